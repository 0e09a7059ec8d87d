"""Which re-executions a trial gets, and what each shows, to tell a computed number from a made one.

1. **fresh**: reproduce.sh (or, with ``budget.reexec.mode: evaluate``, the agent's evaluation
   entry point) in a fresh sandbox, without results.json, with the task's inputs set
   (``verify.inputs``), the released code's programs rewritten, meaning kept (runner/rewrite.py:
   a number keyed to their bytes does not survive it), the data and weights rewritten so too
   unless the task says their bytes are checked (``verify.as_released``), and paper.md, TASK.md
   and the release's texts showing another value for each target (runner/answers.py: a number
   copied from them is the wrong one; every re-run below shows them so). runner/counting.py
   builds this view; the agent's files that are not source text are in no re-run (runner/purge.py).
2. **ablation**: where the value already sat in a data file the agent left, once more without it;
   **altered**: where it sits as a number in one of the agent's programs (a comment, a docstring, a
   printed comparison, or code), once more with every such number changed: a result that follows
   is written down, not computed (disqualified); one that stays merely mentions it.

Where the fresh run's numbers meet the criteria, the checks of what they depend on, each only
where it applies, in this order, stopping at the first that shows the numbers without their cause:

3. **code-withheld** (code released to the agent): without the released code and every copy of
   it (runner/derived.py), its URLs denied: a number that still comes out was not computed by it.
   Where data or weights were released too, that is the agent's own implementation, which must
   then show that it computed the number from them (4 and 5); else nothing computed it.
4. **withheld** (data or weights released): without them and their copies; where that fails,
   **scrambled**: with their content scrambled, format kept (runner/scramble.py; not run where no
   released file is of a format it scrambles: the same bytes would give the same number, and the
   perturbations decide). With
   ``verify.scramble: sample``, on a sixteenth of the rows, and where the number stays the same
   there, **scrambled-whole** decides, every row scrambled. All are bounded in time by twice the
   fresh run's.
5. **rewritten** (data released, and code not, or not needed): with the data rewritten, meaning
   kept: a number keyed to its bytes changes. Without released code the fresh run is this run,
   and where it falls short of what the agent claimed, **as-released** runs once with the data as
   released: a number that comes out only there is keyed to the bytes. With released code (an own
   implementation found by check 3), one more run.
6. **perturbed** (``verify.perturb``): once per perturbation, with other inputs whose reference
   numbers the harness knows and the agent never saw.

What they cost (benchmarks/verification.py): a check that must fail (withheld) fails at once; the
scrambled one repeats the computation (a sixteenth of it with ``verify.scramble: sample``, which
lets through a number written only at the release's exact size); perturbations are full runs, as
cheap as the poser makes them.

The judge reads what each found (judge/dependence.py); the reference's recorded compute bounds
the fresh run's own from below (``verify.min_compute``).
"""

from __future__ import annotations

import random
from functools import partial
from pathlib import Path

from reclaim.judge import Reading, alter_literals, checkable, find_literals, holds, read_claim, same_result
from reclaim.runner.answers import Answers, shown_texts
from reclaim.runner.counting import (
    WITHHELD_KINDS,
    both,
    code_rewritten,
    data_rewritten_view,
    material_sizes,
    purged_layers,
    stand_in,
    withheld_paths,
)
from reclaim.runner.derived import ReleasedCode, derived_in_environment, derived_in_workspace
from reclaim.runner.purge import opaque
from reclaim.runner.reexec import EXCLUDED, SCRIPT, Reexec, Rerun
from reclaim.runner.scramble import scramble, scrambled_view
from reclaim.runner.views import Shown, changes_layer
from reclaim.sandbox import Bind, identity, untrusted
from reclaim.spec import ReexecMode, TaskSpec
from reclaim.store import ReexecRecord

WITHHELD_MIN_S = 30.0
DENIED = {"withheld": WITHHELD_KINDS, "scrambled": WITHHELD_KINDS, "rewritten": WITHHELD_KINDS,
          "code-withheld": ("code",)}
"""Per re-run folder, the materials whose URLs its network denies: no fetching them again."""


def reexecute(rx: Reexec, spec: TaskSpec, seed: str, env_inside: dict[Path, str] | None = None
              ) -> tuple[ReexecRecord, float]:
    """Run the re-executions the task calls for; return the fresh one's record (the others hang
    from it) and the seconds their commands took. ``env_inside``: the agent's environment folder
    on the host -> its path inside, where copies of released code are looked for."""
    ws = rx.trial_dir / "workspace"
    how = spec.budget.reexec
    script = SCRIPT if how.mode == ReexecMode.full else how.entrypoint
    mode = how.mode.value
    try:
        untrusted.read_head(ws, script, 0)
    except untrusted.Untrusted as e:
        return ReexecRecord(ran=False, reason=f"no usable {script} in the workspace root: {e}", mode=mode,
                            script=script), 0.0
    inputs = dict(spec.verify.inputs)
    answers = Answers.for_task(spec, random.SystemRandom())  # not to be worked out from the trial's name
    rx.texts = shown_texts(rx.trial_dir, answers)
    if how.mode == ReexecMode.full:  # what is not source text is made again by reproduce.sh (runner/purge.py)
        rx.purged = opaque(ws, [p for p in rx.own_files(script) if p != script])
        rx.shown = purged_layers(rx)
    kinds = {s.name for s in rx.shown} | {p.split("/", 1)[0] for p in rx.provided if "/" in p}
    rx.released = list(rx.shown)
    # every run, the counting one first, sees the release rewritten, meaning kept: the code always,
    # the data and weights unless the task says their bytes are checked (verify.as_released)
    code_view, rewrote, code_copies = code_rewritten(rx, seed, answers)
    if code_view is not None:
        rx.shown = code_view
    before_data = list(rx.shown)
    data: list[str] = []
    data_copies = None
    if kinds & set(WITHHELD_KINDS):
        data_view, data, data_copies = data_rewritten_view(rx, seed, answers, keep=set(spec.verify.as_released))
        if data_view is not None:
            rx.shown = data_view
    rx.prepare = both(code_copies, data_copies)
    record = rx.run(Rerun(script=script, env=inputs))
    record.rewritten_files = sorted(rewrote)
    record.rewritten_data = sorted(data)
    record.answers = {k: list(v) for k, v in answers.shown.items()}
    record.purged = dict(sorted(rx.purged.items()))
    if not record.ran:
        return record, rx.seconds
    got = read_claim(rx.base / "workspace", spec)
    short = record.exit_code != 0 or bool(got.missing(spec)) or not holds(spec, got)
    if data and short and holds(spec, read_claim(rx.trial_dir / "workspace", spec)):
        # what the agent claimed did not come out of the data rewritten: does it from the release's bytes?
        record.as_released = rx.run(Rerun("as-released", env=inputs, script=script, shown=before_data,
                                          common=False, prepare=code_copies))
        return record, rx.seconds
    if record.exit_code != 0 or got.missing(spec):
        return record, rx.seconds
    values = [x for x in got.present().values() if checkable(x)]
    cached = sorted({lit.path for x in values for lit in find_literals(rx.base / "workspace", record.sources, x)
                     if not lit.is_code})
    if cached:
        record.ablation = rx.run(Rerun("ablation", set(EXCLUDED) | set(cached), env=inputs, script=script))
    written = _programs_holding(rx, record, values)
    if written:  # a number in a program is written down only if the result follows it
        record.altered = _with_literals_altered(rx, written, values, inputs, script)
        if not came_out(record.altered, rx.base / "altered", spec, got):
            return record, rx.seconds
    if not holds(spec, got):
        return record, rx.seconds
    wall = min(rx.wall_seconds, max(WITHHELD_MIN_S, 2 * record.wall_s + 10))  # failing is fast when it depends
    own = False  # the number came out without the released code: the agent's own implementation
    if "code" in kinds:
        record.code_withheld = _without_code(rx, inputs, script, wall, env_inside or {})
        own = came_out(record.code_withheld, rx.base / "code-withheld", spec, got)
        if own and not kinds & set(WITHHELD_KINDS):
            return record, rx.seconds  # and nothing else was released to compute it from
    if kinds & set(WITHHELD_KINDS) and not _without_data(rx, record, spec, got, inputs, script, wall, seed):
        return record, rx.seconds
    for p in spec.verify.perturb:
        run = rx.run(Rerun(f"perturbed-{p.name}", env=inputs | p.env, script=script))
        run.perturbation = p.name
        record.perturbed.append(run)
    return record, rx.seconds


def _programs_holding(rx: Reexec, record: ReexecRecord, values: list[float]) -> list[str]:
    """The agent's programs (as the literal checks read them) that hold one of ``values`` as a number."""
    ws = rx.trial_dir / "workspace"
    scope = record.scope
    groups = [(rx.base / "workspace", record.sources)]
    if scope is not None:
        groups.append((ws, [*scope.rewritten, *scope.changed_materials]))
    return sorted({lit.path for root, files in groups for x in values for lit in find_literals(root, files, x)
                   if lit.is_code})


def _with_literals_altered(rx: Reexec, files: list[str], values: list[float], inputs: dict,
                           script: str) -> ReexecRecord:
    """The re-run with every literal of the result in the agent's programs changed to another
    number: a comment, a docstring or a printed comparison that mentions the paper's value changes
    nothing; a program that writes it down writes the other number."""
    kinds = {s.name: s for s in rx.shown if s.writable}
    in_layers = [f for f in files if f.split("/", 1)[0] in kinds]

    def alter(dest: Path) -> list[str]:
        untrusted.treat_files(dest, [f for f in files if f not in in_layers],
                              lambda rel, raw: alter_literals(raw, values), identity.current().owner, 16 << 20)
        return []  # not scrambled: the record names them (altered_files)

    shown = []
    for s in rx.shown:
        mine = [f.split("/", 1)[1] for f in in_layers if f.startswith(s.name + "/")]
        if not mine or len(s.layers) < 2:  # (a stand-in shows none of the agent's changes to alter)
            shown.append(s)
            continue
        # the agent's changes as every re-run shows them (its programs rewritten), literals altered
        top = rx.base / "layers" / "altered" / s.name
        changes_layer(s.layers[0], top, treat=partial(_alter_in, mine, values))
        shown.append(Shown(s.name, s.inside, (top, *s.layers[1:]), s.writable))
    run = rx.run(Rerun("altered", shown=shown, env=inputs, script=script, prepare=alter))
    run.altered_files = files
    return run


def _alter_in(mine: list[str], values: list[float], rel: str, raw: bytes) -> bytes | None:
    """A file of the agent's changes to a material, its literals of ``values`` altered where it is one of ``mine``."""
    return alter_literals(raw, values) if rel in mine else None


def came_out(r: ReexecRecord | None, base: Path, spec: TaskSpec, measured: Reading) -> bool:
    """Did the re-run ``r`` (its folder ``base``) give the fresh run's result again (every required number)?"""
    if r is None or not r.ran or r.exit_code != 0:
        return False
    return same_result(spec, read_claim(base / "workspace", spec), measured)


def _without_code(rx: Reexec, inputs: dict, script: str, wall: float, env_inside: dict[Path, str]) -> ReexecRecord:
    """The re-run without the released code: not shown, and every copy of it gone or masked."""
    ws = rx.trial_dir / "workspace"
    root = rx.material_root("code") or ws / "code"
    code = ReleasedCode(root, {p.split("/", 1)[1]: h for p, h in rx.provided.items() if p.startswith("code/")})
    held = derived_in_workspace(ws, code, rx.provided)
    masks = []
    empty = rx.base / "empty"
    empty.write_bytes(b"")
    for host, inside in env_inside.items():
        for rel in derived_in_environment(host, code):
            masks.append(Bind(empty, f"{inside}/{rel}"))
    shown = [s for s in rx.shown if s.name != "code"]
    run = rx.run(Rerun("code-withheld", set(EXCLUDED) | set(held), shown=shown, env=inputs, binds=masks,
                       wall=wall, script=script))
    run.removed = sorted({*held, *(f"{b.inside}" for b in masks), "code/ (the release)"})
    return run


def _without_data(rx: Reexec, record: ReexecRecord, spec: TaskSpec, got: Reading, inputs: dict, script: str,
                  wall: float, seed: str) -> bool:
    """The re-runs without the released data and weights, then with them scrambled; False when
    the result came out all the same (nothing after is needed)."""
    ws = rx.trial_dir / "workspace"
    held = withheld_paths(ws, rx.provided, material_sizes(rx))  # copies the agent made, and copied materials
    shown_data = [s for s in rx.shown if s.name in WITHHELD_KINDS]
    keep = [s for s in rx.shown if s.name not in WITHHELD_KINDS]
    record.withheld = rx.run(Rerun("withheld", set(EXCLUDED) | set(held), shown=keep, env=inputs, wall=wall,
                                   script=script))
    unbound = [p for p in rx.provided if p.split("/", 1)[0] in {s.name for s in shown_data}]
    record.withheld.removed = sorted({*held, *unbound})
    if came_out(record.withheld, rx.base / "withheld", spec, got):
        return False
    whole = spec.verify.scramble == "whole"
    views, done = _scrambled_views(rx, "scrambled", shown_data, seed, whole)
    if not done and not held:  # no file of a format scramble.py reads: the run would be the fresh one again,
        # and its same number would stop the perturbations, the one check left that can vouch
        record.scrambled = ReexecRecord(ran=False, reason="no released file of a format that can be scrambled",
                                        mode=record.mode, script=script)
        return True
    record.scrambled = _scrambled(rx, "scrambled", keep + views, done, held, inputs, script, wall, seed, whole)
    stays = came_out(record.scrambled, rx.base / "scrambled", spec, got)
    if whole or not stays:
        return not stays
    # the number stayed on a sixteenth of the rows, scrambled: every row decides (a few rows can
    # give a degenerate result, a perfect fit, no outlier, which honest work would be judged on)
    views, every = _scrambled_views(rx, "scrambled-whole", shown_data, seed, whole=True)
    if _same_files(rx.base / "scrambled-materials", rx.base / "scrambled-whole-materials", done, every):
        return False  # no file had rows to leave out: the subsample was the whole
    record.scrambled_whole = _scrambled(rx, "scrambled-whole", keep + views, every, held, inputs, script, wall, seed,
                                        whole=True)
    return not came_out(record.scrambled_whole, rx.base / "scrambled-whole", spec, got)


def _scrambled_views(rx: Reexec, folder: str, shown_data: list[Shown], seed: str, whole: bool = False
                     ) -> tuple[list[Shown], list[str]]:
    """A scrambled stand-in for each of the released data and weights, shown where it was (a
    subsample of their rows unless ``whole``), and the files scrambled."""
    views, done = [], []
    for s in shown_data:
        place = rx.base / f"{folder}-materials" / s.name
        done += [f"{s.name}/{rel}" for rel in scrambled_view(s.layers[-1], place, seed, whole)]
        views.append(stand_in(s, place))
    return views, done


def _scrambled(rx: Reexec, folder: str, shown: list[Shown], done: list[str], held: list[str], inputs: dict,
               script: str, wall: float, seed: str, whole: bool = False) -> ReexecRecord:
    """The re-run with those stand-ins, and the agent's copies of the data scrambled as well.
    Bounded as the withheld run is: a number that stays must come out, and a script that looks
    for the stand-in can as well fail at once; the bound only spares honest work a slow failure."""
    return rx.run(Rerun(folder, set(EXCLUDED), shown=shown, env=inputs, script=script, wall=wall,
                        prepare=lambda dest: scramble(dest, held, seed, whole) + done))


def _same_files(a: Path, b: Path, done_a: list[str], done_b: list[str]) -> bool:
    """Whether two scrambled stand-ins (harness-made folders, kind/rel paths) hold the same bytes."""
    if done_a != done_b:
        return False
    for rel in done_a:
        pa, pb = a / rel, b / rel
        if pa.stat().st_size != pb.stat().st_size or pa.read_bytes() != pb.read_bytes():
            return False
    return True


