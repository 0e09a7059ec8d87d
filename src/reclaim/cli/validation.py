"""What `reclaim tasks validate` says about a task beyond its spec: where the rules cannot check
its target, and, after running them, why a reference or a weakened experiment came out as it did."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from reclaim.judge.criteria import acceptance
from reclaim.judge.flags import meaning
from reclaim.judge.provenance import MIN_SIGNIFICANT_DIGITS, checkable
from reclaim.spec import Direction, Task
from reclaim.store import VERDICT_JSON, TrialRecord

MATERIALS_CHECKED = ("data", "weights")  # what the re-executions withhold and scramble (runner/reexec.py)
REEXEC_RUNS = ("ablation", "withheld", "scrambled")  # the re-runs beside reexec/ itself
TAIL_LINES = 20
TAIL_BYTES = 8192



def _metric_list(values: dict[str, float]) -> str:
    return ", ".join(f"{k} = {v:g}" for k, v in values.items())


def task_warnings(task: Task) -> list[str]:
    """Where the rules cannot check this task's target; none of these fails validation."""
    spec = task.spec
    out = []
    short = {m.name: m.value for m in spec.metrics() if not checkable(m.value)}
    if short:
        out.append(f"target value(s) with fewer than {MIN_SIGNIFICANT_DIGITS} significant digits "
                   f"({_metric_list(short)}): the literal check cannot tell a number written into a program "
                   "from a computed one; only the re-runs without the released data and weights can "
                   "(or the LLM judge)")
    if not set(MATERIALS_CHECKED) & set(spec.materials.allowed(spec.level)):
        why = "data: generated" if spec.materials.data_generated else "none released"
        out.append(f"nothing to withhold or scramble: the workspace gets no released data or weights ({why}), "
                   "so the re-runs without them and with them scrambled do not apply "
                   "(verdicts flag materials_check_not_applicable)")
    ref = spec.reference
    if ref is None:
        out.append("no reference solution (reference: null): --with-reference cannot check this task")
    elif ref.weakened is None:
        out.append("no weakened experiment (reference.weakened): nothing checks that a weaker run misses the "
                   "target, and the overclaim and partial baselines skip this task")
    for m in spec.metrics():
        if m.direction == Direction.match or m.criteria.interval is not None:
            continue
        if m.bounds is None and m.value in (0, 1):
            out.append(f"{m.name} is one-sided at {m.value:g} with no bounds: if {m.value:g} is the best the metric "
                       "allows (an SHD of 0, a TPR of 1), say so with bounds: [0, .inf] or [0, 1], so that nothing "
                       "is accepted as better than it")
        acc = acceptance(m)
        edge = acc.plausible_high if m.direction == Direction.higher_is_better else acc.plausible_low
        if math.isinf(edge):
            cause = "max_better: .inf" if m.criteria.max_better is not None else "tolerance 0"
            out.append(f"{m.name} is one-sided ({m.direction.value}) with no bound on its better side ({cause}): "
                       "where the metric can go past the paper's value, any value there passes, however "
                       "implausible; give criteria.max_better (and a tolerance above 0)")
    return out


def verdict_of(tdir: Path) -> dict | None:
    """verdict.json as written, read loosely: only its words and numbers are shown."""
    try:
        return json.loads((tdir / VERDICT_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def flags_in_words(flags: list[str]) -> str:
    return "; ".join(f"{meaning(f)} ({f})" for f in flags)


def measured_vs_criteria(verdict: dict) -> str:
    """Each number of the claim: what was measured, and the rule it was held to."""
    rows = verdict.get("metrics") or [verdict]
    parts = []
    for m in rows:
        got = m.get("measured")
        got = "nothing" if got is None else f"{got:.6g}"
        parts.append(f"{m.get('name') or m.get('metric')} measured {got}, criteria {m.get('tolerance') or '?'}")
    return "; ".join(parts)


def _tail(path: Path) -> list[str]:
    """The last lines of a log the harness wrote, never through a link."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return []
    with os.fdopen(fd, "rb") as f:
        size = f.seek(0, os.SEEK_END)
        f.seek(max(0, size - TAIL_BYTES))
        raw = f.read()
    lines = raw.decode("utf-8", "replace").splitlines()
    if size > TAIL_BYTES and lines:
        lines = lines[1:]  # a cut first line
    return lines[-TAIL_LINES:]


def log_tails(tdir: Path) -> list[tuple[str, list[str]]]:
    """The output of the last command of the agent (logs/) and of each re-execution (reexec/**/logs/)."""
    out = []
    rx = tdir / "reexec"
    for folder in (tdir / "logs", rx / "logs", *(rx / name / "logs" for name in REEXEC_RUNS)):
        if folder.is_symlink() or not folder.is_dir():
            continue
        commands = sorted({p.name.rsplit(".", 1)[0] for p in folder.iterdir() if p.suffix in (".stdout", ".stderr")})
        if not commands:
            continue
        last = commands[-1]
        for stream in ("stdout", "stderr"):
            lines = _tail(folder / f"{last}.{stream}")
            if lines:
                out.append((f"{(folder / last).relative_to(tdir)}.{stream}", lines))
    return out


def failure_report(rec: TrialRecord, tdir: Path) -> list[str]:
    """Why a trial did not come out as it should, in words: verdict, flags, harness error, logs."""
    out = []
    verdict = verdict_of(tdir)
    if verdict is not None:
        out.append(f"verdict {verdict.get('outcome')}: {verdict.get('rationale') or '(no rationale)'}")
        if verdict.get("flags"):
            out.append(f"flags: {flags_in_words(verdict['flags'])}")
    if rec.error:
        out.append(f"harness error: {rec.error}")
    tails = log_tails(tdir)
    for name, lines in tails:
        out.append(f"{name} (last {len(lines)} line(s)):")
        out += [f"    {line}" for line in lines]
    if not tails:
        out.append("no command output was recorded")
    out.append(f"trial folder: {tdir}")
    return out
