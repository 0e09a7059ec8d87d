"""The harness-side command audit: a bash hook in the sandbox, read back into the trace.

Every non-interactive bash an agent's programs start sources audit.sh (through BASH_ENV) and
appends each command to a log the harness owns. An agent could switch the hook off, but not
make its transcript the only record: what the hook saw is in the trace either way.
"""

from __future__ import annotations

import shlex
from collections import defaultdict
from pathlib import Path

from reclaim.sandbox import untrusted
from reclaim.trace import ShellCommand, TraceWriter

HOOK = Path(__file__).with_name("audit.sh")
SH_WRAPPER = Path(__file__).with_name("audit_sh")  # bound over /bin/sh: dash reads no BASH_ENV
DASH = Path("/usr/bin/dash")
INSIDE_DIR = "/run/reclaim-audit"
LOG = "commands.tsv"
MAX_EVENTS = 20_000
MAX_LOG_BYTES = 16 << 20


def parse(text: str) -> list[tuple[float, int, str, int | None]]:
    """(start time, pid, command, exit code) per audited command, in log order."""
    rows = []
    for line in text.split("\n"):  # not splitlines(): it also splits on the \x1e used as encoded newline
        parts = line.split("\t", 3)
        if len(parts) != 4:
            continue
        try:
            rows.append((float(parts[0]), int(parts[1]), int(parts[2]), parts[3]))
        except ValueError:
            continue
    by_pid = defaultdict(list)
    for i, (_, pid, _, _) in enumerate(rows):
        by_pid[pid].append(i)
    exit_of = {}
    for indices in by_pid.values():
        for here, nxt in zip(indices, indices[1:] + [None], strict=True):
            exit_of[here] = rows[nxt][2] if nxt is not None else None
    out = []
    for i, (ts, pid, _, quoted) in enumerate(rows):
        if quoted == "__exit__":
            continue
        if quoted.startswith("S"):  # from the /bin/sh wrapper: raw text, newlines and tabs encoded
            cmd = quoted[1:].replace("\x1e", "\n").replace("\x1f", "\t")
        else:
            try:
                (cmd,) = shlex.split(quoted) or [""]
            except ValueError:
                cmd = quoted
        if cmd.startswith(("trap __reclaim", "__reclaim")) or (cmd.startswith("trap ") and "__reclaim" in cmd):
            continue  # the hook's own trap commands, seen by bash running its EXIT trap
        out.append((ts, pid, cmd, exit_of[i]))
    return out


def binds(audit_dir: Path, shell_hook: bool) -> list:
    """What a sandbox needs for the audit: the log folder, the bash hook, and (``shell_hook``:
    a backend that shows the host's dash) /bin/sh wrapped so scripts run through it are seen too."""
    from reclaim.sandbox import Bind

    out = [Bind(audit_dir, INSIDE_DIR, writable=True), Bind(HOOK, "/run/reclaim-audit.sh")]
    if shell_hook and DASH.is_file():
        out += [Bind(DASH, "/run/reclaim-dash"), Bind(SH_WRAPPER, "/usr/bin/sh")]
    return out


def import_log(audit_dir: Path, trace: TraceWriter, phase: str = "agent") -> int:
    """Put what the hook saw into the trace, marked untrusted (the agent can write its log);
    return how many commands. Only the log's first MAX_LOG_BYTES are read, never through a link."""
    try:
        raw, _ = untrusted.read_head(audit_dir, LOG, MAX_LOG_BYTES)
    except untrusted.Untrusted:
        return 0
    rows = parse(raw.decode("utf-8", errors="replace"))
    for ts, pid, cmd, code in rows[:MAX_EVENTS]:
        trace.emit(ShellCommand, phase=phase, at=ts, pid=pid, cmd=cmd[:4000], exit_code=code)
    return len(rows)
