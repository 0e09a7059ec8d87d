"""No isolation at all: commands run as host processes in the workspace. A last resort."""

from __future__ import annotations

from pathlib import Path

from reclaim.sandbox.base import (
    ExecResult,
    HostWorkspace,
    SandboxConfig,
    SandboxError,
    base_env,
    run_killable,
)

WARNING = ("sandbox 'process' gives NO isolation: the agent can read the suite (with its reference "
           "solutions), other trials, your home directory and the network. Install bubblewrap "
           "(apt-get install bubblewrap) for real results.")


class ProcessSandbox(HostWorkspace):
    name = "process"
    isolated = False
    binds = False
    images = False
    shows_host_usr = True
    network = "host"
    shell_hook = False
    warning = WARNING

    @classmethod
    def available(cls) -> str | None:
        return None

    @classmethod
    def workspace_for(cls, workspace: Path) -> str:
        return str(workspace.resolve())

    @classmethod
    def overlays(cls) -> str | None:
        return "the process backend copies materials"

    @classmethod
    def limits(cls) -> list[str]:
        return []

    def __init__(self, config: SandboxConfig):
        self.config = config
        self._procs: set = set()
        self.workspace_inside = str(config.workspace.resolve())

    def start(self) -> None:
        self.config.workspace.mkdir(parents=True, exist_ok=True)

    def gateway_url(self, host_url: str) -> str:
        return host_url  # no network namespace: the gateway's own port is reachable

    def inside(self, host: Path) -> str:
        host = host.resolve()
        if host == self.config.workspace.resolve() or any(b.host.resolve() == host for b in self.config.binds):
            return str(host)
        raise SandboxError(f"{host} is not bound into the sandbox")

    def exec(self, cmd: list[str], *, stdout: Path, stderr: Path, timeout: float | None = None,
             env: dict[str, str] | None = None) -> ExecResult:
        full_env = base_env(self.config, self.workspace_inside) | (env or {})
        return run_killable(self.config.launcher + cmd, cwd=self.workspace_inside,
                            env=full_env | self.config.launcher_env, stdout=stdout,
                            stderr=stderr, timeout=timeout, procs=self._procs)
