"""A trial's places to live: its Python environment, a writable home and an on-disk /tmp.

The prepared environment (materials/environment.py) is bound read-only at its own path; the
trial's own environment, its home and its /tmp are folders of the trial, writable by the agent
and counted against its disk budget. The re-execution gets the environment the agent left,
read-only, so reproduce.sh need not install anything again, and a fresh home and /tmp: what the
agent left there is not part of what it hands in.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reclaim.materials.environment import (
    ENV_INSIDE,
    RECORD,
    VENV_INSIDE,
    EnvironmentFailed,
    PreparedEnv,
    prepare,
    sandbox_env,
    trial_venv,
)
from reclaim.sandbox import Bind
from reclaim.spec import Task
from reclaim.store import write_model

HOME_INSIDE = "/home/reclaim"
VENV, HOME, TMP = "venv", "home", "tmp"


@dataclass
class TrialEnv:
    prepared: PreparedEnv
    tdir: Path
    isolated: bool

    @classmethod
    def create(cls, task: Task, tdir: Path, isolated: bool) -> TrialEnv:
        """Prepare (or take from the cache) the task's environment and make the trial's own."""
        records = tdir / "records"
        records.mkdir(exist_ok=True)
        try:
            prepared = prepare(task, log=records / "environment.log")
        except EnvironmentFailed as e:
            raise EnvironmentFailed(f"{task.dir / 'task.yaml'}: {e}") from None
        env = cls(prepared, tdir, isolated)
        trial_venv(prepared, tdir / VENV, env.venv_inside, ENV_INSIDE if isolated else None)
        for name in (HOME, TMP):
            (tdir / name).mkdir()
        (tdir / TMP).chmod(0o1777)
        write_model(records / RECORD, prepared)
        return env

    @property
    def venv_inside(self) -> str:
        return VENV_INSIDE if self.isolated else str((self.tdir / VENV).resolve())

    def _shared(self) -> list[Bind]:
        """The prepared environment at its own path (its scripts name it) and at ENV_INSIDE, which
        the trial's .pth names: a container image may not let the sandbox user through the
        folders above its own path (an image's /root is 0700)."""
        if self.prepared.host_python:
            return [Bind(Path(p), p) for p in self.prepared.binds]
        env = Path(self.prepared.path)
        return [Bind(env, str(env)), Bind(env, ENV_INSIDE), *(Bind(Path(p), p) for p in self.prepared.binds)]

    def agent_binds(self) -> list[Bind]:
        if not self.isolated:
            return []
        return [*self._shared(), Bind(self.tdir / VENV, VENV_INSIDE, writable=True),
                Bind(self.tdir / HOME, HOME_INSIDE, writable=True)]

    def reexec_binds(self, base: Path) -> list[Bind]:
        """The agent's environment as it left it (read-only) and a fresh home under ``base``."""
        (base / HOME).mkdir(parents=True, exist_ok=True)
        if not self.isolated:
            return []
        return [*self._shared(), Bind(self.tdir / VENV, VENV_INSIDE),
                Bind(base / HOME, HOME_INSIDE, writable=True)]

    def tmp(self, base: Path | None = None) -> Path:
        folder = (base or self.tdir) / TMP
        folder.mkdir(parents=True, exist_ok=True)
        folder.chmod(0o1777)
        return folder

    def env(self, base: Path | None = None) -> dict[str, str]:
        home = HOME_INSIDE if self.isolated else str(((base or self.tdir) / HOME).resolve())
        return sandbox_env(self.venv_inside) | {"HOME": home, "XDG_CACHE_HOME": f"{home}/.cache"}

    def disk_roots(self) -> list[Path]:
        return [self.tdir / VENV, self.tdir / HOME, self.tdir / TMP]


def environment_note(p: PreparedEnv) -> str:
    """One line for the trace: what the agent was given to run with."""
    if p.host_python:
        return f"environment: reclaim's own Python {p.python_version} and its packages (host_python: true)"
    given = [x for x in p.packages if not x.startswith("pip==")]
    return (f"environment {p.key[:12]} ({'cached' if p.cached else f'prepared in {p.prepared_s:.1f} s'}): "
            f"Python {p.python_version} ({p.python}); " + (f"given: {', '.join(given[:30])}"
            + (f" and {len(given) - 30} more" if len(given) > 30 else "") if given else "no packages given")
            + f"; a writable environment at {VENV_INSIDE} for the agent's own installs")


__all__ = ["EnvironmentFailed", "HOME_INSIDE", "TrialEnv", "environment_note"]
