"""The run whose number counts, made the most adversarial run honest work survives (issue 32).

Its view of the release and of the agent's work, built before it runs and shared with the
checks where they show the same: the released code's programs rewritten, meaning kept (and
every copy of them, in the workspace or copied in where a sandbox has no layered views), the
data and weights rewritten so too unless the task keeps them as released
(``verify.as_released``), the release's texts with their answers hidden (runner/answers.py),
and the agent's changes to a material less what is not source text (runner/purge.py).
Stand-ins for the release (rewritten, scrambled) never show the agent's changes to it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial
from pathlib import Path

from reclaim.runner.answers import Answers
from reclaim.runner.derived import ReleasedCode
from reclaim.runner.reexec import Reexec, digest
from reclaim.runner.rewrite import rewrite_bytes, rewritten_view
from reclaim.runner.views import Shown, changes_layer
from reclaim.sandbox import identity, untrusted

WITHHELD_KINDS = ("data", "weights")  # what a computed number must depend on


def code_rewritten(rx: Reexec, seed: str, answers: Answers) -> tuple[list[Shown] | None, list[str], Callable | None]:
    """The fresh run's materials with the released code's programs rewritten, meaning kept, and
    a step that rewrites the copies of them elsewhere in the workspace the same way: a number keyed
    to their bytes, wherever it reads them, does not come out."""
    code = next((s for s in rx.shown if s.name == "code"), None)
    rng = random.Random(f"{seed}:agent-code")
    if code is None:
        return None, *_copied_code_rewritten(rx, rng, answers)
    view = rx.base / "rewritten-materials" / "code"
    done = [f"code/{rel}" for rel in rewritten_view(code.layers[-1], view, seed, code=True, also=answers.file)]
    layers: tuple[Path, ...] = (view,)
    if code.writable:  # the agent's changes on top, its programs rewritten too; unchanged copy-ups left to the view
        upper = rx.trial_dir / "workspace" / "code"
        top = rx.base / "layers" / "fresh" / "code"
        treated = changes_layer(upper, top, keep=lambda rel: f"code/{rel}" not in rx.purged
                                and digest(upper, rel) != rx.provided.get(f"code/{rel}"),
                                treat=lambda rel, raw: _treated(answers, rel, raw, rng, code=True))
        done += [f"code/{rel}" for rel in treated]
        layers = (top, view)
    shown = [Shown(s.name, s.inside, layers, s.writable) if s is code else s for s in rx.shown]
    released = ReleasedCode(code.layers[-1], {p.split("/", 1)[1]: h for p, h in rx.provided.items()
                                              if p.startswith("code/")})
    return shown, done, _code_copies(released, rng, done, answers, with_release=False)


def _treated(answers: Answers, rel: str, raw: bytes, rng: random.Random, code: bool) -> bytes | None:
    """A file rewritten, meaning kept, and its answers hidden; None where neither changed it."""
    out = rewrite_bytes(Path(rel).name, raw, rng, code=code)
    return answers.file(rel, raw if out is None else out) or out


def purged_layers(rx: Reexec) -> list[Shown]:
    """The materials with the agent's changes to them less its purged files."""
    out = []
    for s in rx.shown:
        if s.name == "code" or len(s.layers) < 2 or not any(p.startswith(s.name + "/") for p in rx.purged):
            out.append(s)  # (the code's layer is made again, rewritten, without them)
            continue
        top = rx.base / "layers" / "purged" / s.name
        left_out = {p.split("/", 1)[1] for p in rx.purged if p.startswith(s.name + "/")}
        changes_layer(s.layers[0], top, keep=lambda rel: rel not in left_out)  # noqa: B023 (used at once)
        out.append(Shown(s.name, s.inside, (top, *s.layers[1:]), s.writable))
    return out


def _code_copies(released: ReleasedCode, rng: random.Random, done: list[str], answers: Answers,
                 with_release: bool) -> Callable:
    """A step that rewrites, meaning kept, the copies of the released code in a workspace (and,
    ``with_release``, the release itself where it was copied in under code/), adding them to ``done``."""

    def copies(dest: Path) -> list[str]:
        ident = identity.current()
        for e in untrusted.walk(dest):
            if e.kind != "file" or not e.plain:
                continue
            if e.rel.startswith("code/"):
                if not with_release:
                    continue
            elif not (released.is_copy(dest, e.rel, e.size) or released.is_near_copy(dest, e.rel)):
                continue
            raw = untrusted.read_bytes(dest, e.rel, 16 << 20)
            new = rewrite_bytes(Path(e.rel).name, raw, rng, code=True)
            if with_release and (hidden := answers.file(e.rel, raw if new is None else new)) is not None:
                new = hidden
            if new is not None:
                untrusted.write_bytes(dest, e.rel, new, 0o644 | (e.mode & 0o111), owner=ident.owner)
                done.append(e.rel)
        return []  # not scrambled: the record names them as rewritten

    return copies


def _copied_code_rewritten(rx: Reexec, rng: random.Random, answers: Answers) -> tuple[list[str], Callable | None]:
    """Where the released code was copied into the workspace (a sandbox without layered views):
    a step that rewrites it there, and its copies elsewhere, as a shown view would be."""
    ws = rx.trial_dir / "workspace"
    files = {p.split("/", 1)[1]: h for p, h in rx.provided.items() if p.startswith("code/")}
    if not files:
        return [], None
    released = ReleasedCode(rx.material_root("code") or ws / "code", files)
    done: list[str] = []
    return done, _code_copies(released, rng, done, answers, with_release=True)


def both(a: Callable | None, b: Callable | None) -> Callable | None:
    """Two workspace changes made one after the other (either may be None)."""
    steps = [f for f in (a, b) if f is not None]
    if not steps:
        return None
    return lambda dest: [p for f in steps for p in f(dest)]


def data_rewritten_view(rx: Reexec, seed: str, answers: Answers,
                         keep: set[str] = frozenset()  # type: ignore[assignment]
                         ) -> tuple[list[Shown] | None, list[str], Callable | None]:
    """The materials with the released data and weights rewritten, meaning kept (stand-ins without
    the agent's changes: what it derived from them must be derived again), and a step that
    rewrites the agent's copies of them elsewhere in the workspace the same way: (None, [], None)
    when no file of theirs is of a format rewritten here. The list of what was rewritten grows
    when the step runs."""
    held = {p for p in withheld_paths(rx.trial_dir / "workspace", rx.provided, material_sizes(rx))
            if p.split("/", 1)[0] not in keep}
    shown, done = [], []
    for s in rx.shown:
        if s.name not in WITHHELD_KINDS or s.name in keep:
            shown.append(s)
            continue
        folder = rx.base / "rewritten-materials" / s.name
        done += [f"{s.name}/{rel}" for rel in rewritten_view(s.layers[-1], folder, seed, code=False,
                                                             also=answers.file)]
        shown.append(stand_in(s, folder))
    if not done and not held:
        return None, [], None
    rng = random.Random(f"{seed}:copies:rewrite")

    def copies(dest: Path) -> list[str]:  # the agent's copies of the data elsewhere: rewritten as the release is
        done.extend(untrusted.treat_files(dest, sorted(held), partial(_treated, answers, rng=rng, code=False),
                                          identity.current().owner, 16 << 20))
        return []  # not scrambled: the record names them as rewritten

    return shown, done, copies


def stand_in(s: Shown, folder: Path) -> Shown:
    """The material ``s`` as ``folder`` (a stand-in for the release: scrambled, rewritten), without
    the agent's changes to it: what it derived from the data (a cache, a preprocessed file) was derived
    from the real data, and a copy of a released file would keep the original bytes from the check.
    reproduce.sh must derive them again; a re-run may still write there (copy on write)."""
    return Shown(s.name, s.inside, (folder,), s.writable)


def material_sizes(rx: Reexec) -> set[int] | None:
    """The sizes of the shown data and weights files, from the harness's own copies: a copy of
    one in the workspace has one of these sizes. None when one is not shown (then every file is hashed)."""
    sizes = set()
    for rel in rx.provided:
        kind, _, rest = rel.partition("/")
        if kind not in WITHHELD_KINDS:
            continue
        root = rx.material_root(kind)
        if root is None:
            return None
        try:
            sizes.add((root / rest).lstat().st_size)  # the harness's cache: not the agent's to change
        except (TypeError, OSError):
            return None
    return sizes


def withheld_paths(ws: Path, provided: dict[str, str], sizes: set[int] | None = None) -> list[str]:
    """The released data and weights in the workspace, and every copy of them the agent made
    (with ``sizes``, the materials' sizes, only a file of one of them is hashed)."""
    digests = {h for p, h in provided.items() if p.split("/", 1)[0] in WITHHELD_KINDS}
    if not digests:
        return []
    out = []
    for e in untrusted.walk(ws):
        if e.kind != "file" or not e.plain:
            continue
        released = e.rel.split("/", 1)[0] in WITHHELD_KINDS and e.rel in provided
        # else a copy the agent made (hashed only where its size is one of the materials')
        if released or ((sizes is None or e.size in sizes) and digest(ws, e.rel) in digests):
            out.append(e.rel)
    return sorted(out)
