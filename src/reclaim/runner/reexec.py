"""Re-executing the agent's reproduce.sh in a fresh sandbox, from a copy of its workspace."""

from __future__ import annotations

import shutil
from pathlib import Path

from reclaim.budget import BudgetExhausted, Deadline
from reclaim.judge.provenance import checkable, find_literals
from reclaim.judge.results import read_metric
from reclaim.materials import PAPER_MD, TASK_MD
from reclaim.runner.recorder import Cancellation, Recorder, snapshot
from reclaim.sandbox import SandboxConfig, make_sandbox
from reclaim.store.files import sha256_file
from reclaim.store.models import ReexecRecord
from reclaim.trace import TraceWriter

SCRIPT = "reproduce.sh"
RESULTS = "results.json"
# Removed before re-running: the claimed result, and the texts a script could copy a number from.
EXCLUDED = (RESULTS, PAPER_MD, TASK_MD)


def reexecute(trial_dir: Path, *, metric: str, sandbox: str, wall_seconds: float, trace: TraceWriter,
              hidden: list[Path], provided: dict[str, str],
              cancellation: Cancellation | None = None, extras: dict | None = None) -> tuple[ReexecRecord, float]:
    """Run reproduce.sh again; return its record and the seconds its commands took.

    ``provided`` maps the files the harness put in the workspace to their sha256; files still
    identical to those are materials, not the agent's sources. When the re-executed value is
    already written in a data file the agent left (a cached result), reproduce.sh runs once
    more without those files: a script that only copies the number then fails.
    """
    ws, base = trial_dir / "workspace", trial_dir / "reexec"
    if not (ws / SCRIPT).is_file():
        return ReexecRecord(ran=False, reason=f"no {SCRIPT} in the workspace root"), 0.0
    kw = dict(sandbox=sandbox, wall_seconds=wall_seconds, trace=trace, hidden=hidden, provided=provided,
              cancellation=cancellation, extras=extras or {})
    record, seconds = _run_copy(ws, base, set(EXCLUDED), **kw)
    value, _ = read_metric(base / "workspace" / RESULTS, metric)
    if record.exit_code == 0 and value is not None and checkable(value):
        cached = sorted({lit.path for lit in find_literals(base / "workspace", record.sources, value)
                         if not lit.is_code})
        if cached:
            record.ablation, extra = _run_copy(ws, base / "ablation", set(EXCLUDED) | set(cached), **kw)
            seconds += extra
    return record, seconds


def _run_copy(ws: Path, base: Path, exclude: set[str], *, sandbox: str, wall_seconds: float,
              trace: TraceWriter, hidden: list[Path], provided: dict[str, str],
              cancellation: Cancellation | None, extras: dict) -> tuple[ReexecRecord, float]:
    dest = base / "workspace"
    if dest.exists():
        shutil.rmtree(dest)

    def ignore(d: str, names: list[str]) -> list[str]:
        rel = Path(d).relative_to(ws)
        return [n for n in names if (rel / n).as_posix() in exclude]

    shutil.copytree(ws, dest, symlinks=True, ignore=ignore)
    removed = sorted(p for p in exclude if (ws / p).exists())
    before = snapshot(dest)
    box = make_sandbox(sandbox, SandboxConfig(dest, hidden=hidden, **extras))
    box.start()
    rec = Recorder(box, trace, dest, base / "logs", "reexec", Deadline(wall_seconds), cancellation)
    timed_out = False
    try:
        res = rec.run(["bash", SCRIPT])
        exit_code, timed_out = res.exit_code, res.timed_out
    except BudgetExhausted:
        exit_code, timed_out = None, True
    finally:
        box.stop()
    after = snapshot(dest)
    outputs = sorted(p for p in after if before.get(p) != after[p])
    sources = sorted(p for p in before if p in after and p not in outputs
                     and provided.get(p) != sha256_file(dest / p))
    record = ReexecRecord(ran=True, reason="timed out" if timed_out else f"exit {exit_code}",
                          exit_code=exit_code, timed_out=timed_out, event_id=rec.last_event,
                          wall_s=rec.deadline.elapsed, removed=removed, sources=sources,
                          outputs=outputs)
    return record, rec.command_seconds
