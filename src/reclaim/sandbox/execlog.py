"""The exec record: every program a sandbox starts, recorded where no agent can reach.

``strace -f --seccomp-bpf -e trace=execve,execveat`` traces the command, as root before the
privilege drop when the harness is root (the agent's uid can neither signal, trace nor read it),
around the whole sandbox otherwise, and writes to a folder of the harness's log folder. The kernel
stops only on exec calls, so the cost is small, and nothing inside the sandbox (unsetting
BASH_ENV, calling dash directly, ``trap - DEBUG``, Python's subprocess) can leave a program out
of it. The in-sandbox bash hook stays as a richer but untrusted layer.
"""

from __future__ import annotations

import codecs
import functools
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

MAX_LOG_BYTES = 256 << 20  # read at most this much of a log, a chunk at a time
MAX_EXECS = 20_000  # distinct programs (path and arguments) kept per command
STRING_LIMIT = 512
CHUNK = 1 << 20

_LINE = re.compile(rb"^(\d+)\s+(execve|execveat)\((.*)$")
_RESUMED = re.compile(rb"^(\d+)\s+<\.\.\. (?:execve|execveat) resumed>.*\)\s+=\s+(-?\d+)")
_RESULT = re.compile(rb"\)\s+=\s+(-?\d+)(?:\s+\w+.*)?$")
_STRING = re.compile(rb'"((?:[^"\\]|\\.)*)"(\.\.\.)?')


@dataclass
class Exec:
    pid: int
    path: str
    argv: list[str]
    truncated: bool = False
    count: int = 1
    """How many times this program ran with these arguments (the first pid is kept)."""


class ExecRecord(list):
    """The distinct execs of one command, in the order first seen, and whether the record is whole.

    An exec storm of one program (20,000 ``true``) is one entry with its count, so later
    programs stay on the record. A storm of distinct command lines, or a log past MAX_LOG_BYTES,
    cuts it: ``cut`` is set with the reason, and the judge then relies on nothing the record
    does not show (judge/scope.py reads every file as possibly run)."""

    seen: int = 0
    cut: bool = False
    why: str = ""


@functools.cache
def strace() -> str | None:
    return shutil.which("strace")


def wrap(log: Path) -> list[str]:
    """The prefix that records every exec under it into ``log``; empty where strace is missing."""
    exe = strace()
    if exe is None:
        return []
    return [exe, "-f", "--seccomp-bpf", "-qq", "-e", "trace=execve,execveat", "-e", "signal=none",
            "-s", str(STRING_LIMIT), "-o", str(log), "--"]


def _strings(blob: bytes) -> tuple[list[str], bool]:
    out, cut = [], False
    for m in _STRING.finditer(blob):
        try:
            raw = codecs.escape_decode(m.group(1))[0]
        except ValueError:
            raw = m.group(1)
        out.append(raw.decode("utf-8", "backslashreplace"))
        cut = cut or bool(m.group(2))
    return out, cut


def parse(log: Path, drop: list[str] | None = None, outside: bool = False) -> ExecRecord:
    """The successful execs in ``log``, in order, without the harness's own steps: the launcher
    when strace ran ``outside`` the sandbox (the cgroup join and bwrap, which exec in one
    process), and the privilege drop ``drop`` in front of the command."""
    out = ExecRecord()
    try:
        fh = open(log, "rb")  # noqa: SIM115 - closed by the `with fh:` below, once take() is defined
    except OSError:
        return out
    pending: dict[int, Exec] = {}
    seen: dict[tuple, Exec] = {}
    launcher: int | None = None
    checked_drop = False
    read, rest = 0, b""

    def take(ex: Exec) -> bool:
        """Record one exec; False once the record is full."""
        nonlocal launcher, checked_drop
        if outside and launcher is None:
            launcher = ex.pid
        if outside and ex.pid == launcher:
            return True
        if not checked_drop:  # the privilege drop the harness put in front of the command
            checked_drop = True
            if drop is not None and ex.argv[:len(drop)] == drop:
                return True
        out.seen += 1
        key = (ex.path, tuple(ex.argv))
        if key in seen:
            seen[key].count += 1
            return True
        if len(out) >= MAX_EXECS:
            out.cut, out.why = True, f"more than {MAX_EXECS} distinct programs"
            return False
        seen[key] = ex
        out.append(ex)
        return True

    with fh:
        while True:
            chunk = fh.read(CHUNK)
            if not chunk:
                lines, rest = rest.split(b"\n"), b""
            else:
                read += len(chunk)
                lines = (rest + chunk).split(b"\n")
                rest = lines.pop()
            full = False
            for line in lines:
                for ex in _execs(line, pending):
                    if not take(ex):
                        full = True
                        break
                if full:
                    break
            if full or not chunk:
                break
            if read >= MAX_LOG_BYTES:
                if fh.read(1):
                    out.cut, out.why = True, f"the log is longer than {MAX_LOG_BYTES >> 20} MiB"
                break
    return out


def _execs(line: bytes, pending: dict[int, Exec]) -> list[Exec]:
    """The exec a line of strace's log completes, if any (an unfinished one waits in ``pending``)."""
    if m := _LINE.match(line):
        pid, rest = int(m.group(1)), m.group(3)
        if m.group(2) == b"execveat":  # execveat(dirfd, "path", [argv], ...)
            rest = rest.split(b",", 1)[1] if b"," in rest else rest
        strings, cut = _strings(rest.split(b"], ", 1)[0] + b"]")
        if not strings:
            return []
        ex = Exec(pid, strings[0], strings[1:], cut or b"...]" in rest)
        if rest.rstrip().endswith(b"<unfinished ...>"):
            pending[pid] = ex
        elif (r := _RESULT.search(rest)) and int(r.group(1)) == 0:
            return [ex]
    elif (m := _RESUMED.match(line)) and int(m.group(2)) == 0 and (done := pending.pop(int(m.group(1)), None)):
        return [done]
    return []
