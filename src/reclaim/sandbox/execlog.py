"""The exec record: every program a sandbox starts, recorded where no agent can reach.

``strace -f --seccomp-bpf -e trace=execve,execveat`` traces the command, as root before the
privilege drop when the harness is root (the agent's uid can neither signal, trace nor read it),
around the whole sandbox otherwise, and writes to a folder of the harness's log folder. The kernel stops only on exec calls, so
the cost is small, and nothing inside the sandbox (unsetting BASH_ENV, calling dash directly,
``trap - DEBUG``, Python's subprocess) can leave a program out of it. The in-sandbox bash hook
stays as a richer but untrusted layer.
"""

from __future__ import annotations

import codecs
import functools
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

MAX_LOG_BYTES = 32 << 20  # read at most this much of a log: an exec storm cannot flood the harness
MAX_EXECS = 20_000
STRING_LIMIT = 512

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


def parse(log: Path, drop: list[str] | None = None, outside: bool = False) -> list[Exec]:
    """The successful execs in ``log``, in order, without the harness's own steps: the launcher
    when strace ran ``outside`` the sandbox (the cgroup join and bwrap, which exec in one
    process), and the privilege drop ``drop`` in front of the command."""
    try:
        with open(log, "rb") as fh:
            data = fh.read(MAX_LOG_BYTES)
    except OSError:
        return []
    pending: dict[int, Exec] = {}
    out: list[Exec] = []
    for line in data.split(b"\n"):
        if m := _LINE.match(line):
            pid, rest = int(m.group(1)), m.group(3)
            if m.group(2) == b"execveat":  # execveat(dirfd, "path", [argv], ...)
                rest = rest.split(b",", 1)[1] if b"," in rest else rest
            strings, cut = _strings(rest.split(b"], ", 1)[0] + b"]")
            if not strings:
                continue
            ex = Exec(pid, strings[0], strings[1:], cut or b"...]" in rest)
            if rest.rstrip().endswith(b"<unfinished ...>"):
                pending[pid] = ex
            elif (r := _RESULT.search(rest)) and int(r.group(1)) == 0:
                out.append(ex)
        elif (m := _RESUMED.match(line)) and int(m.group(2)) == 0:
            if (ex := pending.pop(int(m.group(1)), None)) is not None:
                out.append(ex)
        if len(out) > MAX_EXECS:
            break
    if outside and out:
        launcher = out[0].pid
        out = [e for e in out if e.pid != launcher]
    if out and drop is not None and out[0].argv[:len(drop)] == drop:
        out = out[1:]  # the privilege drop the harness put in front of the command
    return out[:MAX_EXECS]
