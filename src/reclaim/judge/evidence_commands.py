"""Every command of a trial's record, marked by how far its source can be trusted.

- harness: the commands the harness itself ran (the agent's entry point, the re-executions),
  with the output it captured: trust high.
- exec: every program the sandboxes started, seen from outside them (strace on execve): trust
  high that it ran with these arguments.
- audit: the bash audit hook's rows, read back from a log inside the sandbox: trust low, the
  agent can switch the hook off or write rows of its own.
- transcript: the steps an external agent's own transcript reports: trust lowest.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from reclaim.judge.evidence_models import TRUST, CommandRecord, LoggedCommand
from reclaim.sandbox import untrusted
from reclaim.trace import CommandFinished, Note, ProgramExec, ShellCommand

STREAM_BYTES = 1 << 20  # of a command's output, head and tail: an agent's 2 GiB log stays on disk
ROW_CHARS = 600
CMD_CHARS = 4000
TRANSCRIPT = "[untrusted transcript] "


def read_stream(trial_dir: Path | None, rel: str | None, limit: int = STREAM_BYTES) -> str | None:
    """A command's output as the harness captured it: only its ends are read, however large."""
    if trial_dir is None or rel is None:
        return None
    data, size = untrusted.read_ends(trial_dir / rel, limit)
    return data.decode("utf-8", "replace") if size or data else None


def harness_commands(trial_dir: Path, finished: list[CommandFinished],
                     outputs: dict[int, dict[str, str]]) -> tuple[list[CommandRecord], dict[int, tuple[str, str]]]:
    """The harness's commands with their output left empty, and that output in full (its ends)."""
    raw = {e.id: (read_stream(trial_dir, e.stdout_file) or e.stdout, read_stream(trial_dir, e.stderr_file) or e.stderr)
           for e in finished}
    records = []
    for e in finished:
        cmd = " ".join(e.cmd)
        files = [f"{f.change} {f.path}" + (f" ({f.size} B)" if f.size is not None else "") for f in e.files]
        if e.files_omitted:
            files.append(f"... {e.files_omitted} more changed files (counted, not listed)")
        records.append(CommandRecord(
            id=e.id, phase=e.phase,
            cmd=cmd if len(cmd) <= CMD_CHARS else cmd[:CMD_CHARS] + f" [... {len(cmd) - CMD_CHARS} chars cut]",
            exit_code=e.exit_code, timed_out=e.timed_out, seconds=round(e.end - e.start, 3), stdout="", stderr="",
            stdout_bytes=e.stdout_bytes, stderr_bytes=e.stderr_bytes, files=files, outputs=outputs.get(e.id, {})))
    return records, raw


def logged_commands(trace: list) -> list[LoggedCommand]:
    """Every command recorded otherwise than run by the harness, uncut, in trace order."""
    finished_of = {e.started_id: e.id for e in trace if isinstance(e, CommandFinished)}
    rows = []
    for e in trace:
        if isinstance(e, ProgramExec):
            cmd = shlex.join(e.argv) if e.argv else ""
            if e.argv and not e.path.endswith("/" + e.argv[0].rsplit("/", 1)[-1]) and e.path != e.argv[0]:
                cmd = f"({e.path}) {cmd}"
            rows.append(LoggedCommand(id=e.id, phase=e.phase, source="exec", trust=TRUST["exec"],
                                      cmd=cmd + (" [arguments cut by the recorder]" if e.truncated else ""),
                                      within=finished_of.get(e.command_id)))
        elif isinstance(e, ShellCommand):
            rows.append(LoggedCommand(id=e.id, phase=e.phase, source="audit", trust=TRUST["audit"], cmd=e.cmd,
                                      exit_code=e.exit_code))
        elif isinstance(e, Note) and e.message.startswith(TRANSCRIPT):
            rows.append(LoggedCommand(id=e.id, phase=e.phase, source="transcript", trust=TRUST["transcript"],
                                      cmd=e.message[len(TRANSCRIPT):]))
    return rows


def shown(row: LoggedCommand) -> LoggedCommand:
    """The row as the bundle shows it: its command cut to ROW_CHARS."""
    if len(row.cmd) <= ROW_CHARS:
        return row
    return row.model_copy(update={"cmd": row.cmd[:ROW_CHARS] + f" [... {len(row.cmd) - ROW_CHARS} chars cut]"})
