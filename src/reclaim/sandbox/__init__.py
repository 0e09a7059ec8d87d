"""Where an agent's commands run: isolation backends behind one protocol, registered by name.

Each backend class says what it can do (``isolated``, ``binds``, ``images``, ``network``, ...,
``available()``, ``limits()``: the ``Backend`` protocol in base.py); the runner asks the class,
never compares its name. Backends are imported only when asked for, so a run that uses bwrap
never loads the container engine's code.
"""

from __future__ import annotations

import importlib
from typing import cast

from reclaim.sandbox import bwrap, execlog, identity, untrusted
from reclaim.sandbox.base import (
    Backend,
    Bind,
    ExecResult,
    Sandbox,
    SandboxConfig,
    SandboxError,
    kill_strays,
    kill_tree,
)
from reclaim.sandbox.process import WARNING as PROCESS_WARNING

SANDBOXES = {
    "bwrap": "reclaim.sandbox.bwrap:BwrapSandbox",
    "process": "reclaim.sandbox.process:ProcessSandbox",
    "container": "reclaim.sandbox.container:ContainerSandbox",
}
"""name -> "module:Class" of every sandbox backend."""
BACKENDS = tuple(SANDBOXES)


def backend(name: str) -> type[Backend]:
    """The backend class registered as ``name``."""
    if name not in SANDBOXES:
        raise SandboxError(f"unknown sandbox '{name}'; choose one of {', '.join(BACKENDS)}")
    module, _, cls = SANDBOXES[name].partition(":")
    return getattr(importlib.import_module(module), cls)


def image_backend() -> str:
    """The backend that runs container images (a task's own environment is checked through it)."""
    return next(name for name in SANDBOXES if backend(name).images)


def default_backend() -> str:
    """bwrap where it works, else process (which callers must announce loudly)."""
    return "bwrap" if bwrap.available() is None else "process"


def make_sandbox(name: str, config: SandboxConfig) -> Sandbox:
    # a backend class's instances are its sandboxes: one class, both protocols (Backend's class
    # variables cannot be matched by a Sandbox type, so the two are not one protocol)
    return cast(Sandbox, backend(name)(config))


def check_backend(name: str) -> str | None:
    """None when the backend can run here, else why not."""
    if name not in SANDBOXES:
        return f"unknown sandbox '{name}'; choose one of {', '.join(BACKENDS)}"
    return backend(name).available()


from reclaim.sandbox.base import EGRESS_PORT, GATEWAY_PORT, egress_inside  # noqa: E402
from reclaim.sandbox.netns import Netns  # noqa: E402
from reclaim.sandbox.overlay import Overlay, is_whiteout, opaque  # noqa: E402

__all__ = [
    "BACKENDS",
    "EGRESS_PORT",
    "GATEWAY_PORT",
    "PROCESS_WARNING",
    "SANDBOXES",
    "Backend",
    "Bind",
    "ExecResult",
    "Netns",
    "Overlay",
    "Sandbox",
    "SandboxConfig",
    "SandboxError",
    "backend",
    "check_backend",
    "default_backend",
    "egress_inside",
    "execlog",
    "identity",
    "image_backend",
    "is_whiteout",
    "kill_strays",
    "kill_tree",
    "make_sandbox",
    "opaque",
    "untrusted",
]
