"""The programs the re-execution ran, as text: the re-executed script and every file it names or
imports, transitively, followed through the agent's files and the released ones alike.

A file is named when a token of its text (or of a re-execution command's arguments) resolves to a
workspace path, from the naming file's folder or the workspace root (``$DIR/x.py`` by its
suffix); imported when a Python ``import x`` / ``from x import y`` / ``-m x`` resolves to
``x.py`` or ``x/__init__.py`` from the file's folder, its parents, the root or ``src/``.
``sitecustomize.py``, ``usercustomize.py`` and ``.pth`` files run at every Python start, so they are
always in. Only the agent's own files are shown as text; a released file it changed in place, or
a copy of one it changed, is shown as a unified diff against the original (evidence_originals.py).
"""

from __future__ import annotations

import difflib
import json
import os
import posixpath
import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from reclaim.judge.evidence_models import Cut, Program
from reclaim.judge.evidence_originals import Originals
from reclaim.judge.provenance import CODE_NAMES, CODE_SUFFIXES
from reclaim.sandbox import untrusted

READ_BYTES = 1 << 20  # of one program: its head and tail
MAX_PROGRAMS = 100
DIFF_LINES = 20_000
REF_LINES = 50_000
SNIFF = 8192
STARTUP = ("sitecustomize.py", "usercustomize.py")

_TOKEN = re.compile(r"[\w\-./+@%~]+")
_IMPORT = re.compile(r"^\s*import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)")
_FROM = re.compile(r"^\s*from\s+(\.*)([\w.]*)\s+import\s+\(?\s*([\w\s,*]+)")
_MODULE = re.compile(r"""(?:(?:^|\s)-m\s+|(?:import_module|__import__|run_module)\(\s*['"])([\w.]+)""")


@dataclass
class Known:
    """The workspace as the re-execution had it: the agent's files and the released ones (what it
    wrote itself is not a program it was given)."""

    sources: set[str]
    provided: dict[str, str]
    ws_inside: str = "/workspace"
    paths: set[str] = field(init=False)
    names: set[str] = field(init=False)

    def __post_init__(self):
        self.paths = self.sources | set(self.provided)
        self.names = {posixpath.basename(p) for p in self.paths}

    def resolve(self, token: str, base: str) -> str | None:
        t = token.rstrip(".")
        if posixpath.basename(t.rstrip("/")) not in self.names:
            return None
        if t.startswith(self.ws_inside + "/"):
            tries = [t[len(self.ws_inside) + 1:]]
        elif t.startswith(("/", "~")):
            tries = []
        else:
            tries = [posixpath.join(base, t), t]
        parts = t.strip("/").split("/")
        tries += ["/".join(parts[i:]) for i in range(1, len(parts))]  # $DIR/train.py, /abs/.../x.py
        for c in tries:
            c = posixpath.normpath(c)
            if c in self.paths and not c.startswith("../"):
                return c
        return None

    def modules(self, name: str, level: int, base: str) -> list[str]:
        parts = [p for p in name.split(".") if p]
        if level:
            start = base
            for _ in range(level - 1):
                start = posixpath.dirname(start)
            roots = [start]
        else:
            roots, d = [base], base
            while d:
                d = posixpath.dirname(d)
                roots.append(d)
            roots += ["", "src"]
        for r in dict.fromkeys(roots):
            for k in range(len(parts), 0, -1):
                p = posixpath.join(r, *parts[:k])
                hits = [c for c in (p + ".py", p + "/__init__.py") if c in self.paths]
                if hits:
                    return hits + [i for j in range(1, k) if (i := posixpath.join(r, *parts[:j], "__init__.py"))
                                   in self.paths]
        return []


def references(rel: str, text: str, known: Known) -> list[tuple[str, str]]:
    """(path, why) for every workspace file ``text`` names or imports, in order of first mention."""
    base, out, seen = posixpath.dirname(rel), [], set()
    python = rel.endswith((".py", ".ipynb", ".pyx"))
    for no, line in enumerate(text.splitlines()[:REF_LINES], 1):
        if line in seen:  # what a line names, its first copy said
            continue
        seen.add(line)
        for tok in _TOKEN.findall(line):
            if tok.rstrip(".").rsplit("/", 1)[-1] not in known.names:
                continue
            if (target := known.resolve(tok, base)) is not None:
                out.append((target, f"named in {rel} line {no}"))
        mods = [(m, 0) for m in _MODULE.findall(line)] + (_imports(line) if python else [])
        for mod, level in mods:
            out += [(t, f"imported by {rel} line {no}") for t in known.modules(mod, level, base)]
    return [(t, why) for t, why in out if t != rel]


def _imports(line: str) -> list[tuple[str, int]]:
    if m := _IMPORT.match(line):
        return [(part.split()[0], 0) for part in m.group(1).split(",") if part.strip()]
    if m := _FROM.match(line):
        level, mod = len(m.group(1)), m.group(2)
        names = [n.split()[0] for n in m.group(3).split(",") if n.strip() and n.split()[0] != "*"]
        return ([(mod, level)] if mod else []) + [(f"{mod}.{n}" if mod else n, level) for n in names]
    return []


def command_tokens(cmds: list[tuple[int, str]], known: Known) -> list[tuple[str, str]]:
    """Files the re-execution's recorded commands name: (path, 'run by [event N]')."""
    out = []
    for event_id, text in cmds:
        for tok in _TOKEN.findall(text):
            if (target := known.resolve(tok, "")) is not None:
                out.append((target, f"named by the re-execution's [event {event_id}]"))
        out += [(t, f"run as a module by [event {event_id}]") for m in _MODULE.findall(text)
                for t in known.modules(m, 0, "")]
    return out


def read_agent(trial_dir: Path, rel: str) -> tuple[bytes | None, int | None, str]:
    """(head and tail of an agent's file, its size, '') never through a link, else (None, None, why)."""
    why = "missing"
    for root in (trial_dir / "workspace", trial_dir / "reexec" / "workspace"):
        try:
            fd = untrusted.open_file(root, rel)
        except untrusted.Untrusted as e:
            why = str(e)
            if why.endswith(": missing"):
                continue
            return None, None, why
        try:
            size = os.fstat(fd).st_size
            if size <= READ_BYTES:
                return os.pread(fd, READ_BYTES, 0), size, ""
            half = READ_BYTES // 2
            cut = f"\n[... {size - 2 * half} bytes not read ...]\n".encode()
            return os.pread(fd, half, 0) + cut + os.pread(fd, half, size - half), size, ""
        finally:
            os.close(fd)
    return None, None, why


def as_text(rel: str, data: bytes) -> tuple[str | None, str]:
    """(text, note); None when the file is binary."""
    if b"\x00" in data[:SNIFF]:
        return None, "binary (a NUL byte in its first 8 KiB): not shown"
    if rel.endswith(".ipynb") and (cells := _notebook(data)) is not None:
        return cells, "a notebook: its code cells only"
    try:
        return data.decode("utf-8"), ""
    except UnicodeDecodeError:
        return data.decode("utf-8", "backslashreplace"), "not valid UTF-8 (those bytes shown as \\xNN)"


def _notebook(data: bytes) -> str | None:
    try:
        nb = json.loads(data)
        cells = [c for c in nb.get("cells", []) if isinstance(c, dict) and c.get("cell_type") == "code"]
        return "\n".join(f"# [code cell {i}]\n" + "".join(s if isinstance(s, list) else [s])
                         for i, c in enumerate(cells, 1) if isinstance(s := c.get("source", ""), (str, list))
                         and all(isinstance(x, str) for x in (s if isinstance(s, list) else [s])))
    except (ValueError, RecursionError, AttributeError, TypeError):
        return None


def is_code(rel: str) -> bool:
    name = posixpath.basename(rel)
    return name in CODE_NAMES or posixpath.splitext(name)[1].lower() in CODE_SUFFIXES


def counterpart(rel: str, provided: dict[str, str], digest: str | None = None) -> tuple[str | None, bool]:
    """(the released file ``rel`` is a copy of: the same bytes, the same path inside its material, or
    the same name; whether only its name matched)."""
    same_bytes = sorted(q for q, h in provided.items() if digest and h == digest and "/" in q)
    if same_bytes:
        return same_bytes[0], False
    inner = {q: q.split("/", 1)[1] for q in provided if "/" in q}
    by_path = [q for q, w in inner.items() if w == rel or rel.endswith("/" + w)]
    if by_path:
        return min(by_path, key=lambda q: (-len(inner[q]), q)), False
    same = [q for q in inner if posixpath.basename(q) == posixpath.basename(rel)]
    return (same[0], True) if len(same) == 1 else (None, False)


def unified(old: str, new: str, old_name: str, new_name: str) -> str | None:
    a, b = old.splitlines(), new.splitlines()
    if max(len(a), len(b)) > DIFF_LINES:
        return None
    return "\n".join(difflib.unified_diff(a, b, f"released {old_name}", new_name, n=3, lineterm=""))


def collect(trial_dir: Path, known: Known, originals: Originals, script: str, named: list[tuple[str, str]],
            digests: dict[str, str | None]) -> tuple[list[Program], list[Cut]]:
    """Every program reachable from ``script``, breadth first, then from what the re-execution's
    commands ``named`` and the files Python runs at its start; at most MAX_PROGRAMS."""
    queue = deque([(script, "the re-executed script")])
    later = deque(named + [(p, "runs at every Python start") for p in sorted(known.sources)
                           if posixpath.basename(p) in STARTUP or p.endswith(".pth")])
    seen: set[str] = set()
    out: list[Program] = []
    while (queue or later) and len(out) < MAX_PROGRAMS:
        rel, why = queue.popleft() if queue else later.popleft()
        if rel in seen:
            continue
        seen.add(rel)
        prog, text = _load(trial_dir, rel, why, known, originals, digests)
        out.append(prog)
        if text is not None:
            queue.extend((t, w) for t, w in references(rel, text, known) if t not in seen)
    left = {rel for rel, _ in [*queue, *later]} - seen
    cuts = [Cut(part="programs", unit="files", total=len(out) + len(left), cut=len(left),
                how=f"at most {MAX_PROGRAMS} shown; not shown: {', '.join(sorted(left)[:5])}")] if left else []
    return out, cuts


def _load(trial_dir: Path, rel: str, why: str, known: Known, originals: Originals,
          digests: dict[str, str | None]) -> tuple[Program, str | None]:
    """The program entry for ``rel``, and the text to follow its references in (None: nothing to read)."""
    if rel not in known.sources and rel in known.provided:
        prog = Program(path=rel, reason=why, kind="released", sha256=known.provided[rel],
                       note="provided by the harness, unchanged")
        if not is_code(rel):
            return prog, None
        data, where = originals.read(rel)  # only to follow what it names and imports
        if data is None:
            prog.note += f"; what it imports not followed: {where}"
        return prog, as_text(rel, data)[0] if data is not None else None
    data, size, err = read_agent(trial_dir, rel)
    if data is None or size is None:  # both, or neither
        return Program(path=rel, reason=why, kind="unreadable", note=f"not read: {err}"), None
    text, note = as_text(rel, data)
    cut = f"only its first and last {READ_BYTES // 2 >> 10} KiB of {size:,} bytes read" if size > READ_BYTES else ""
    note = "; ".join(n for n in (note, cut) if n)
    prog = Program(path=rel, reason=why, kind="agent", size=size, sha256=digests.get(rel), note=note)
    if text is None:
        prog.kind = "binary"
        return prog, None
    original, by_name = (rel, False) if rel in known.provided else counterpart(rel, known.provided, digests.get(rel))
    old, where = originals.read(original) if original is not None else (None, "")
    old_text = as_text(original, old)[0] if original is not None and old is not None else None
    if by_name and (old_text is None or difflib.SequenceMatcher(
            None, old_text.splitlines()[:2000], text.splitlines()[:2000]).quick_ratio() < 0.5):
        original = None  # only the name is the same: another file, or one we cannot compare
    if original is not None:
        prog.kind, prog.original = ("changed" if rel in known.provided else "copied"), original
        if old == data:
            prog.note = "; ".join(n for n in (f"identical to the released {original}", note) if n)
            return prog, text
        diff = unified(old_text, text, original, rel) if old_text is not None and not cut else None
        if diff is not None:
            prog.text, prog.diff, prog.lines = diff, True, diff.count("\n") + 1
            return prog, text
        prog.note = "; ".join(n for n in (note, f"differs from the released {original}: " + (
            f"its original is not reachable ({where})" if old_text is None else "too long to diff")) if n)
    prog.text, prog.lines = text, text.count("\n") + (0 if text.endswith("\n") else 1)
    return prog, text
