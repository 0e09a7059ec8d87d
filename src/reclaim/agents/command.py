"""Any executable as an agent: it runs in the sandbox with the task in its environment.

``command:PROGRAM ARGS``. PROGRAM may be a host file (its folder is bound read-only, so helpers
beside it are there too), a host folder (bound read-only; it runs the folder's ``run.sh``), or a
program of the sandbox (``python3``, ``bash``) whose first argument that names a host file is that
file, resolved on the host: ``command:python3 agent.py`` runs ./agent.py from where reclaim was run.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from reclaim.agents.base import AgentContext
from reclaim.errors import AgentError
from reclaim.sandbox import Bind

MOUNT = "/run/reclaim-agent"
ENTRY = "run.sh"
SCRIPT_SUFFIXES = (".sh", ".py", ".bash", ".js", ".rb", ".pl")
INTERPRETER = {".sh": "bash", ".bash": "bash", ".py": "python3"}


def _pathlike(word: str) -> bool:
    return "/" in word or word.startswith((".", "~")) or word.endswith(SCRIPT_SUFFIXES)


def _entries(folder: Path, deep: bool, hidden: Sequence[Path] = ()) -> list[Path]:
    if not deep:
        return sorted(folder.iterdir())
    return sorted(p for p in folder.rglob("*") if not any(p == h or h in p.parents for h in hidden))


def _within(folder: Path, hidden: Sequence[Path]) -> bool:
    """The folder is, or lies inside, a path no sandbox may see (e.g. a --run-dir beside the agent's
    script hides its parent folder, the agent's own): binding it would show that path, and the
    sandbox's mask over it would hide the agent's files."""
    return any(folder == h or h in folder.parents for h in hidden)


def _open_to_all(folder: Path, deep: bool) -> bool:
    """Whether any user can read the folder's files (the sandbox may run as an unprivileged one)."""
    if any(not (p.stat().st_mode & 0o001) for p in [folder, *folder.parents]):
        return False
    return all(p.stat().st_mode & 0o004 for p in _entries(folder, deep) if not p.is_symlink())


def _readable(folder: Path, deep: bool, hidden: Sequence[Path] = ()) -> Path:
    """The folder itself where every user can read it and that hides nothing a sandbox must not see, else a copy
    that they can read (made once, by content): a sandbox that runs as an unprivileged user must be
    able to read the agent's files. A folder agent is copied whole (``deep``) but for hidden paths
    in it; a script's folder, only the files beside the script (it may be any folder, runs and
    suites in it)."""
    hidden = [h.resolve() for h in hidden]
    if not _within(folder, hidden) and _open_to_all(folder, deep):
        return folder
    files = [p for p in _entries(folder, deep, hidden) if p.is_file() and not p.is_symlink()]
    h = hashlib.sha256(f"{folder}\0{deep}".encode())
    for p in files:
        h.update(f"{p.relative_to(folder)}\0{p.stat().st_mtime_ns}\0{p.stat().st_size}\0".encode())
    dest = Path(tempfile.gettempdir()) / f"reclaim-agent-{os.getuid()}" / h.hexdigest()[:20] / (folder.name or "agent")
    if not dest.is_dir():
        dest.parent.mkdir(parents=True, exist_ok=True)
        for d in (dest.parent, dest.parent.parent):
            d.chmod(0o755)
        part = Path(tempfile.mkdtemp(prefix=".part-", dir=dest.parent))  # one per thread and process
        for p in files:
            to = part / p.relative_to(folder)
            to.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, to)
        for p in [part, *part.rglob("*")]:
            src = folder / p.relative_to(part)
            p.chmod(0o755 if p.is_dir() or (src.exists() and src.stat().st_mode & 0o100) else 0o644)
        try:
            part.rename(dest)
        except OSError:  # another trial made it first
            shutil.rmtree(part, ignore_errors=True)
    return dest


class CommandAgent:
    """``command:PROGRAM ARGS``; a host program that is missing or not runnable is refused here,
    before any trial starts."""

    name = "command"
    needs_model = True
    audited = True

    def __init__(self, command: str):
        if not command.strip():
            raise AgentError("the command agent needs a program: --agent 'command:./my_agent.sh'")
        self.argv = shlex.split(command)
        self._folder: Path | None = None  # bound read-only at MOUNT/<name>
        self._arg: int | None = None  # which argv entry is a host file inside that folder
        self._file: Path | None = None
        self._interpreter: str | None = None
        self._whole = False  # a folder agent: the whole tree; else the files beside the script
        first = Path(self.argv[0]).expanduser()
        if first.is_dir():
            entry = first / ENTRY
            if not entry.is_file():
                raise AgentError(f"command agent folder {self.argv[0]} has no {ENTRY}: put the agent's entry "
                                 "point there, or name the script: "
                                 f"--agent 'command:{self.argv[0].rstrip('/')}/SCRIPT'")
            self._take(0, entry.resolve())
            self._whole = True
        elif first.is_file():
            self._take(0, first.resolve())
        elif _pathlike(self.argv[0]):
            raise AgentError(f"command agent program {self.argv[0]} does not exist (looked in {Path.cwd()}); "
                             "give its path from where you run reclaim")
        else:  # a program of the sandbox: its script argument, if any, lives on the host
            for i, word in enumerate(self.argv[1:], start=1):
                if word.startswith("-"):
                    continue
                p = Path(word).expanduser()
                if p.is_file():
                    self._take(i, p.resolve())
                elif _pathlike(word):
                    raise AgentError(f"command agent script {word} does not exist (looked in {Path.cwd()}); "
                                     "give its path from where you run reclaim")
                break
        if self._arg == 0 and self._file is not None and not os.access(self._file, os.X_OK):
            self._interpreter = INTERPRETER.get(self._file.suffix)
            if self._interpreter is None:
                raise AgentError(f"command agent program {self._file} is not executable: chmod +x it, "
                                 "or name its interpreter: --agent 'command:python3 SCRIPT'")

    def canonical(self) -> str:
        """The spec with its host file absolute, so that a trial run elsewhere (Slurm, --resume from
        another folder) finds the same program."""
        argv = list(self.argv)
        if self._arg is not None and self._file is not None:
            argv[self._arg] = str(self._file)
        return "command:" + shlex.join(argv)

    def _take(self, i: int, file: Path) -> None:
        self._arg, self._file, self._folder = i, file, file.parent

    def binds(self, hidden: Sequence[Path] = ()) -> list[Bind]:
        if self._folder is None:
            return []
        self._source = _readable(self._folder, deep=self._whole, hidden=hidden)
        return [Bind(self._source, f"{MOUNT}/{self._folder.name or 'agent'}")]

    def run(self, ctx: AgentContext) -> None:
        argv = list(self.argv)
        if self._folder is not None and self._file is not None and self._arg is not None:
            where = ctx.recorder.sandbox.inside(getattr(self, "_source", self._folder))
            argv[self._arg] = f"{where}/{self._file.relative_to(self._folder).as_posix()}"
            if self._interpreter is not None:
                argv = [self._interpreter, *argv]
        # no exit status is read as "could not start": the program is the agent's, and an agent that
        # exits 127 on purpose must not turn its failure into a harness error; what can be checked
        # (the host file is there and runnable) is checked before the run, in __init__
        ctx.recorder.run(argv, env=ctx.env())
