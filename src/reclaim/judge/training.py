"""Evaluate mode: re-running only the agent's evaluation is honest when the artefacts it
evaluates were made by training the harness recorded, at a cost that fits the reference's.

``budget.reexec.mode: evaluate`` saves re-running many GPU-hours of training. What the
harness re-runs is then the evaluation alone, so the judge needs evidence for the rest:

1. the trained artefacts (``budget.reexec.artefacts`` patterns, minus released files) exist
   in the agent's workspace;
2. each was last written by a recorded command of the agent's phase, and the file the
   evaluation got is the one that command left (same sha256, or same size above the hashing
   limit) — a checkpoint edited by hand, or dropped in from nowhere, has no such command;
3. the agent's recorded commands up to the last of those writes used at least
   ``min_fraction`` of the reference's CPU-hours and/or GPU-hours (metered by cgroup and NVML,
   never reported by the agent). Unmetered time cannot vouch for anything: without a meter
   the check fails, and says so.

It does not tell good training from CPU burnt in a loop; the evaluation's own re-execution,
with the released data withheld and scrambled, and the literal checks still apply to it.
"""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass, field
from pathlib import Path

from reclaim.judge.flags import Flag
from reclaim.sandbox import untrusted
from reclaim.spec import TaskSpec
from reclaim.store import HASH_LIMIT, PROVIDED, RESULTS
from reclaim.trace import CommandFinished

NOT_ARTEFACTS = (RESULTS, "paper.md", "TASK.md")


@dataclass
class TrainingCheck:
    ok: bool
    why: str
    flag: str = ""
    artefacts: list[str] = field(default_factory=list)
    writers: list[int] = field(default_factory=list)
    cpu_hours: float | None = None
    gpu_hours: float | None = None

    def summary(self) -> dict:
        return {"ok": self.ok, "why": self.why, "artefacts": self.artefacts[:50], "writers": self.writers[:50],
                "cpu_hours": self.cpu_hours, "gpu_hours": self.gpu_hours}


def _matches(rel: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(rel, p) or (p.startswith("**/") and fnmatch.fnmatchcase(rel, p[3:]))
               for p in patterns)


def artefacts(trial_dir: Path, spec: TaskSpec) -> list[str]:
    """The agent's files matching the task's artefact patterns; released files are not its."""
    ws = trial_dir / "workspace"
    try:
        provided = json.loads((trial_dir / PROVIDED).read_text())
    except (OSError, ValueError):
        provided = {}
    out = []
    for e in untrusted.walk(ws):
        if (e.kind == "file" and e.plain and e.rel not in NOT_ARTEFACTS
                and _matches(e.rel, spec.budget.reexec.artefacts)):
            if e.rel in provided and _sha(ws, e.rel) == provided[e.rel]:
                continue
            out.append(e.rel)
    return sorted(out)


def _sha(root: Path, rel: str) -> str | None:
    try:
        return untrusted.sha256(root, rel, limit=HASH_LIMIT)
    except (OSError, untrusted.Untrusted):
        return None


def check_training(spec: TaskSpec, trial_dir: Path, trace: list) -> TrainingCheck:
    how = spec.budget.reexec
    found = artefacts(trial_dir, spec)
    if not found:
        return TrainingCheck(False, "no trained artefact (files matching " + ", ".join(how.artefacts[:6])
                             + ("..." if len(how.artefacts) > 6 else "") + ") in the agent's workspace, so the "
                             "evaluation rests on nothing the trace shows being trained", Flag.no_artefacts)
    ws = trial_dir / "workspace"
    agent = [e for e in trace if isinstance(e, CommandFinished) and e.phase == "agent"]
    writers, last = [], -1
    for rel in found:
        writer = None
        for i, ev in enumerate(agent):
            for f in ev.files:
                if f.path == rel:
                    writer = None if f.change == "deleted" else (i, ev, f)
        if writer is None:
            return TrainingCheck(False, f"the artefact {rel} was not written by any recorded command of the "
                                 "agent's", Flag.training_not_shown, found)
        i, ev, f = writer
        size = (ws / rel).lstat().st_size
        same = f.sha256 == _sha(ws, rel) if f.sha256 is not None else f.size == size and size > HASH_LIMIT
        if not same:
            return TrainingCheck(False, f"the artefact {rel} is not the file recorded command {ev.id} left "
                                 "(changed since, outside the record)", Flag.training_not_shown, found)
        writers.append(ev.id)
        last = max(last, i)
    spent = agent[: last + 1]
    cpu = [e.cpu_s for e in spent if e.cpu_s is not None]
    gpu = [e.gpu_s for e in spent if e.gpu_s is not None]
    cpu_h = sum(cpu) / 3600 if len(cpu) == len(spent) else None  # None: a command went unmetered
    gpu_h = sum(gpu) / 3600 if len(gpu) == len(spent) else None
    check = TrainingCheck(True, "", "", found, sorted(set(writers)), cpu_h, gpu_h)
    for what, ref, used in (("CPU", how.reference_cpu_hours, cpu_h), ("GPU", how.reference_gpu_hours, gpu_h)):
        if ref is None or ref == 0:
            continue
        if used is None:
            check.ok, check.flag = False, Flag.training_cost_unmeasured
            check.why = f"the training's {what} time was not metered here, so nothing vouches for the artefacts"
            return check
        if used < how.min_fraction * ref:
            check.ok, check.flag = False, Flag.training_cost_low
            check.why = (f"the recorded training used {used:.4g} {what}-hours, less than {how.min_fraction:g} of "
                         f"the reference's {ref:g}: the artefacts were not trained as the paper's were")
            return check
    parts = [f"{what} {used:.4g} h of the reference's {ref:g} h" for what, ref, used in
             (("CPU", how.reference_cpu_hours, cpu_h), ("GPU", how.reference_gpu_hours, gpu_h)) if ref]
    check.why = (f"evaluated {len(found)} artefact(s) made by recorded command(s) "
                 f"{', '.join(map(str, check.writers[:10]))}" + (f" ({'; '.join(parts)})" if parts else ""))
    return check
