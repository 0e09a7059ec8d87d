"""Where an agent's commands run: isolation backends behind one protocol."""

from __future__ import annotations

from reclaim.sandbox import bwrap, execlog, identity, untrusted
from reclaim.sandbox.base import (
    Bind,
    ExecResult,
    Sandbox,
    SandboxConfig,
    SandboxError,
    kill_strays,
    kill_tree,
)
from reclaim.sandbox.process import WARNING as PROCESS_WARNING

BACKENDS = ("bwrap", "process", "container")


def default_backend() -> str:
    """bwrap where it works, else process (which callers must announce loudly)."""
    return "bwrap" if bwrap.available() is None else "process"


def make_sandbox(name: str, config: SandboxConfig) -> Sandbox:
    if name == "bwrap":
        return bwrap.BwrapSandbox(config)
    if name == "process":
        from reclaim.sandbox.process import ProcessSandbox

        return ProcessSandbox(config)
    if name == "container":
        from reclaim.sandbox.container import ContainerSandbox

        return ContainerSandbox(config)
    raise SandboxError(f"unknown sandbox '{name}'; choose one of {', '.join(BACKENDS)}")


def check_backend(name: str) -> str | None:
    """None when the backend can run here, else why not."""
    if name == "bwrap":
        return bwrap.available()
    if name == "container":
        from reclaim.sandbox.images import available

        return available()
    if name in BACKENDS:
        return None
    return f"unknown sandbox '{name}'; choose one of {', '.join(BACKENDS)}"


__all__ = [
    "BACKENDS", "Bind", "ExecResult", "PROCESS_WARNING", "Sandbox", "SandboxConfig",
    "SandboxError", "check_backend", "execlog", "identity", "untrusted", "default_backend", "kill_strays", "kill_tree", "make_sandbox",
]
