"""The Sandbox protocol and what the backends share: config, results, killing a tree."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Literal, Protocol, runtime_checkable

import psutil

from reclaim.errors import SandboxError
from reclaim.sandbox import identity, untrusted
from reclaim.sandbox.netns import Netns
from reclaim.sandbox.overlay import Overlay

GRACE_SECONDS = 2.0
READ_LIMIT = 8 << 20
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"


GATEWAY_DIR = "/run/reclaim-gateway"
GATEWAY_PORT = 8787  # on the sandbox's own loopback; every sandbox has its own
EGRESS_DIR = "/run/reclaim-egress"
EGRESS_PORT = 8788
FORWARDER = Path(__file__).resolve().parents[1] / "gateway" / "forward.py"
FORWARDER_INSIDE = "/run/reclaim-forward.py"


@dataclass
class Bind:
    """A host path made visible inside the sandbox."""

    host: Path
    inside: str
    writable: bool = False


@dataclass
class SandboxConfig:
    workspace: Path
    network: bool = False
    env: dict[str, str] = field(default_factory=dict)
    binds: list[Bind] = field(default_factory=list)
    hidden: list[Path] = field(default_factory=list)
    """Host paths that must not be visible even if they lie inside a bound folder."""
    gateway: Path | None = None
    """Folder holding the model gateway's Unix socket and forwarder; the only way out."""
    devices: list[tuple[str, str]] = field(default_factory=list)
    """Device files made available inside, (host path, path inside): the trial's GPUs."""
    launcher: list[str] = field(default_factory=list)
    """Put before the sandbox's own command line, e.g. to join the trial's cgroups."""
    launcher_env: dict[str, str] = field(default_factory=dict)
    egress: Path | None = None
    """Folder holding the egress proxy's Unix socket (proxy.sock): the only way to other hosts."""
    tmp: Path | None = None
    """Host folder to serve as /tmp (on disk, within the disk budget); default: a small tmpfs."""
    image: str | None = None
    """Container image for the container backend; ignored by the others."""
    netns: Netns | None = None
    """bwrap: the phase's network namespace, where the harness's servers already listen at the
    gateway's and the egress proxy's ports (a root harness): no relay runs inside then."""
    overlays: list[Overlay] = field(default_factory=list)
    """Materials as copy-on-write overlays (overlay.py), mounted for each command; each one's view
    is also in ``binds`` (writable) where the material goes."""


@dataclass
class ExecResult:
    cmd: list[str]
    exit_code: int | None
    timed_out: bool
    start: float
    end: float
    stdout_path: Path
    stderr_path: Path
    exec_log: Path | None = None
    """Every program the command started, recorded where the agent cannot reach (execlog.py)."""
    exec_log_outside: bool = False
    """True when strace ran around the sandbox (its first process is the harness's launcher)."""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out

    @property
    def duration(self) -> float:
        return self.end - self.start


@runtime_checkable
class Sandbox(Protocol):
    """A place to run an agent's commands over one workspace."""

    name: str
    isolated: bool
    config: SandboxConfig
    workspace_inside: str
    """The workspace's path as programs inside the sandbox see it."""

    def start(self) -> None: ...

    def exec(self, cmd: list[str], *, stdout: Path, stderr: Path, timeout: float | None = None,
             env: dict[str, str] | None = None) -> ExecResult: ...

    def inside(self, host: Path) -> str:
        """Where a host path bound into the sandbox appears inside it."""
        ...

    def gateway_url(self, host_url: str) -> str:
        """Where programs inside reach the model gateway that listens at ``host_url`` on the host."""
        ...

    def read_file(self, rel: str) -> bytes: ...

    def write_file(self, rel: str, data: bytes, mode: int = 0o644) -> None: ...

    def stop(self) -> None: ...


class Backend(Protocol):
    """What a sandbox kind can do: the runner asks these, never the backend's name."""

    name: ClassVar[str]
    isolated: ClassVar[bool]
    """Its commands see only what they are given (else: the host, with a loud warning)."""
    binds: ClassVar[bool]
    """Host folders can be bound in (materials from the cache, environments, each re-run's own
    home and /tmp); else materials are copied into the workspace."""
    images: ClassVar[bool]
    """It runs a container image: a task's environment.image or dockerfile, or --image."""
    shows_host_usr: ClassVar[bool]
    """The host's /usr is visible inside: GPU driver files kept there need no bind."""
    network: ClassVar[Literal["netns", "relay", "host"]]
    """How it reaches the gateway and the egress proxy: netns (a root harness starts it in the
    phase's network namespace, or it relays like ``relay``), relay (its own empty network, loopback
    relayed to their sockets), host (no network control: the host's own)."""
    shell_hook: ClassVar[bool]
    """The audit's bash hook also sees /bin/sh scripts (dash is wrapped in)."""
    warning: ClassVar[str | None]
    """What users must be told whenever it is used; None for an isolating sandbox."""

    @classmethod
    def available(cls) -> str | None:
        """None when it can run here, else why not."""
        ...

    @classmethod
    def limits(cls) -> list[str]:
        """What it enforces beyond the runner's own limits (wall clock, workspace disk)."""
        ...

    @classmethod
    def workspace_for(cls, workspace: Path) -> str:
        """Where the host folder ``workspace`` appears to programs inside."""
        ...

    @classmethod
    def overlays(cls) -> str | None:
        """None when it can show materials as copy-on-write overlays here, else why not."""
        ...

    def __init__(self, config: SandboxConfig) -> None:
        """A backend class is called with the config to make its Sandbox."""


class HostWorkspace:
    """File access and teardown shared by backends whose workspace is a host folder."""

    name: str
    config: SandboxConfig
    _procs: set

    def read_file(self, rel: str) -> bytes:
        """A workspace file, read as the agent's: no links followed, no special files, bounded."""
        try:
            return untrusted.read_bytes(self.config.workspace, rel, READ_LIMIT)
        except untrusted.Untrusted as e:
            raise SandboxError(str(e)) from None

    def write_file(self, rel: str, data: bytes, mode: int = 0o644) -> None:
        """Write into the workspace without following anything the agent made there."""
        ident = identity.current() if self.name != "process" else None
        try:
            untrusted.write_bytes(self.config.workspace, rel, data, mode,
                                  owner=(ident.uid, ident.gid) if ident and ident.dedicated else None)
        except untrusted.Untrusted as e:
            raise SandboxError(str(e)) from None

    stopped: bool = False
    """stop() was called: a command that ends now without a status was stopped, not failed to start."""

    def stop(self) -> None:
        self.stopped = True
        for proc in list(self._procs):
            kill_tree(proc)
        self._procs.clear()


def relay(config: SandboxConfig, python: str | None = None) -> list[str]:
    """The command prefix that relays the sandbox's loopback ports to the gateway's and the egress
    proxy's sockets (bound at GATEWAY_DIR and EGRESS_DIR); empty when neither is given. It runs
    with the system's interpreter, not one the agent could have replaced."""
    pairs = []
    if config.gateway is not None:
        pairs += [str(GATEWAY_PORT), f"{GATEWAY_DIR}/gateway.sock"]
    if config.egress is not None:
        pairs += [str(EGRESS_PORT), f"{EGRESS_DIR}/proxy.sock"]
    if not pairs:
        return []
    if python is None:  # a sandbox that shows the host's /usr
        python = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else "python3"
    return [python, "-I", "-S", FORWARDER_INSIDE, *pairs, "--"]  # lean: it starts before every command


def egress_inside() -> tuple[str, str]:
    """(proxy URL, CA bundle) as programs inside a sandbox with an egress proxy reach them."""
    return f"http://127.0.0.1:{EGRESS_PORT}", f"{EGRESS_DIR}/ca.pem"


def interpreter_dirs() -> list[Path]:
    """Folders the running Python needs: the virtual environment and its base install."""
    dirs = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()}
    return sorted(d for d in dirs if not str(d).startswith("/usr/"))


def base_env(config: SandboxConfig, workspace: str) -> dict[str, str]:
    """A clean environment: nothing from the host's, so no key can leak in."""
    env = {
        "PATH": DEFAULT_PATH,
        "HOME": workspace,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TMPDIR": "/tmp",
        "PYTHONDONTWRITEBYTECODE": "1",
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
    }
    for key in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):  # machine facts numpy needs, not secrets
        if key in os.environ:
            env[key] = os.environ[key]
    env.update(config.env)
    return env


def resolve_inside(root: Path, rel: str) -> Path:
    """The host path of ``rel`` under ``root``; refuses to leave the root."""
    root = root.resolve()
    target = (root / rel).resolve()
    if target != root and root not in target.parents:
        raise SandboxError(f"path '{rel}' leaves the workspace")
    return target


def run_killable(argv: list[str], *, cwd: str | None, env: dict[str, str], stdout: Path,
                 stderr: Path, timeout: float | None, procs: set,
                 pass_fds: tuple[int, ...] = ()) -> ExecResult:
    """Run argv in its own session, streaming output to files; kill the whole tree on timeout."""
    stdout.parent.mkdir(parents=True, exist_ok=True)
    stderr.parent.mkdir(parents=True, exist_ok=True)
    start = time.time()
    with open(stdout, "wb") as out, open(stderr, "wb") as err:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=err, start_new_session=True, pass_fds=pass_fds)
        procs.add(proc)
        timed_out = False
        try:
            code: int | None = wait(proc, timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_tree(proc)
            code = None
        finally:
            procs.discard(proc)
    if code is not None and code < 0:
        code = 128 - code  # killed by a signal, shell convention
    return ExecResult(argv, code, timed_out, start, time.time(), stdout, stderr)


def wait(proc: subprocess.Popen, timeout: float | None) -> int:
    """Wait for the process to end, woken by the kernel when it does: a pidfd becomes readable
    at exit. Popen.wait with a timeout polls in sleeps that grow to 50 ms, so a 10 ms command was
    seen to end up to 50 ms late, in every sandboxed command of a trial."""
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # not Linux 5.3+, or the process is already reaped
        return proc.wait(timeout=timeout)
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
    finally:
        os.close(fd)
    if not ready:
        assert timeout is not None  # without one, select waits for the exit
        raise subprocess.TimeoutExpired(proc.args, timeout)
    return proc.wait()


def kill_tree(proc: subprocess.Popen, grace: float = GRACE_SECONDS) -> None:
    """SIGTERM the process, its group and every descendant; SIGKILL what is left after grace."""
    try:
        family = [psutil.Process(proc.pid)]
        family += family[0].children(recursive=True)
    except psutil.NoSuchProcess:
        family = []
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        for p in family:
            try:
                p.send_signal(sig)
            except psutil.NoSuchProcess:
                pass
        if sig == signal.SIGTERM:
            _, alive = psutil.wait_procs(family, timeout=grace)
            if not alive and proc.poll() is not None:
                break
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        pass


def kill_strays(folder: Path) -> int:
    """SIGKILL every process still working in ``folder`` (by command line or working directory).

    A harness killed while starting a sandbox can leave it orphaned before bwrap arms
    --die-with-parent; resuming the trial first clears such leftovers. Returns how many died.
    """
    root = str(folder.resolve())
    strays = []
    for p in psutil.process_iter(["pid", "cmdline", "cwd"]):
        if p.info["pid"] == os.getpid():
            continue
        args = p.info["cmdline"] or []
        cwd = p.info["cwd"] or ""
        if cwd == root or cwd.startswith(root + "/") or any(a.startswith(root) for a in args):
            strays.append(p)
    for p in strays:
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(strays, timeout=GRACE_SECONDS)
    return len(strays)
