"""Re-executing the agent's reproduce.sh in a fresh sandbox, from a copy of its workspace."""

from __future__ import annotations

import shutil
from pathlib import Path

from reclaim.budget import BudgetExhausted, Deadline
from reclaim.materials import PAPER_MD, TASK_MD
from reclaim.runner.recorder import Recorder, sha256_file, snapshot
from reclaim.sandbox import SandboxConfig, make_sandbox
from reclaim.store.models import ReexecRecord
from reclaim.trace import TraceWriter

SCRIPT = "reproduce.sh"
# Removed before re-running: the claimed result, and the texts a script could copy a number from.
EXCLUDED = ("results.json", PAPER_MD, TASK_MD)


def reexecute(trial_dir: Path, *, sandbox: str, wall_seconds: float, trace: TraceWriter,
              hidden: list[Path], provided: dict[str, str]) -> tuple[ReexecRecord, float]:
    """Run reproduce.sh again; return its record and the seconds its command took.

    ``provided`` maps the files the harness put in the workspace to their sha256; files still
    identical to those are materials, not the agent's sources.
    """
    ws, dest = trial_dir / "workspace", trial_dir / "reexec" / "workspace"
    if not (ws / SCRIPT).is_file():
        return ReexecRecord(ran=False, reason=f"no {SCRIPT} in the workspace root"), 0.0
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(ws, dest, symlinks=True,
                    ignore=lambda d, names: [n for n in names if Path(d) == ws and n in EXCLUDED])
    removed = [n for n in EXCLUDED if (ws / n).exists()]
    before = snapshot(dest)
    box = make_sandbox(sandbox, SandboxConfig(dest, hidden=hidden))
    box.start()
    rec = Recorder(box, trace, dest, trial_dir / "reexec" / "logs", "reexec", Deadline(wall_seconds))
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
