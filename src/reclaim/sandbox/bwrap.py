"""bubblewrap: a read-only view of the system, a writable workspace, no network, own PIDs."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

from reclaim.sandbox.base import (
    ExecResult,
    HostWorkspace,
    SandboxConfig,
    SandboxError,
    base_env,
    interpreter_dirs,
    run_killable,
)

WORKSPACE = "/workspace"
GATEWAY_DIR = "/run/reclaim-gateway"
GATEWAY_PORT = 8787  # on the sandbox's own loopback; every sandbox has its own
# What programs need from /etc; the rest (keys, credentials, service configs) stays out.
ETC_ENTRIES = (
    "passwd", "group", "hosts", "nsswitch.conf", "ld.so.cache", "ld.so.conf", "ld.so.conf.d",
    "alternatives", "localtime", "ssl", "ca-certificates", "mime.types", "os-release",
    "debian_version", "protocols", "services", "magic", "magic.mime",
)
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt")


@functools.cache
def available() -> str | None:
    """None when bwrap works here, else why not."""
    exe = shutil.which("bwrap")
    if exe is None:
        return "bubblewrap (bwrap) is not installed"
    probe = subprocess.run([exe, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return f"bwrap cannot create namespaces here: {probe.stderr.strip()}"
    return None


class BwrapSandbox(HostWorkspace):
    name = "bwrap"
    isolated = True
    workspace_inside = WORKSPACE

    def __init__(self, config: SandboxConfig):
        self.config = config
        self._procs: set = set()
        self._argv: list[str] | None = None

    def start(self) -> None:
        reason = available()
        if reason:
            raise SandboxError(reason)
        self.config.workspace.mkdir(parents=True, exist_ok=True)
        self._argv = self._build_argv()

    def _build_argv(self) -> list[str]:
        argv = ["bwrap", "--die-with-parent", "--new-session", "--unshare-all",
                "--hostname", "sandbox", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
                "--dir", "/var/tmp", "--dir", "/run"]
        if self.config.network:
            argv.append("--share-net")
        bound: list[tuple[Path, str]] = []  # (host folder, where it appears inside)
        for d in SYSTEM_DIRS:
            p = Path(d)
            if p.is_symlink():
                argv += ["--symlink", os.readlink(p), d]
            elif p.is_dir():
                argv += ["--ro-bind", d, d]
                bound.append((p, d))
        for entry in ETC_ENTRIES:
            p = Path("/etc", entry)
            if p.exists():
                argv += ["--ro-bind", str(p), str(p)]
        for d in interpreter_dirs():
            argv += ["--ro-bind", str(d), str(d)]
            bound.append((d, str(d)))
        argv += ["--bind", str(self.config.workspace.resolve()), WORKSPACE]
        for b in self.config.binds:
            argv += ["--bind" if b.writable else "--ro-bind", str(b.host.resolve()), b.inside]
            bound.append((b.host.resolve(), b.inside))
        if self.config.gateway is not None:
            argv += ["--ro-bind", str(self.config.gateway.resolve()), GATEWAY_DIR]
        for host, inside in self.config.devices:
            argv += ["--dev-bind", host, inside]
        for h in self.config.hidden:
            h = h.resolve()
            for host, inside in bound:
                if h.exists() and (h == host or host in h.parents):
                    target = str(Path(inside) / h.relative_to(host))
                    argv += ["--tmpfs", target] if h.is_dir() else ["--ro-bind", "/dev/null", target]
        return argv + ["--chdir", WORKSPACE, "--"]

    def gateway_url(self, host_url: str) -> str:
        """Where programs inside reach the gateway."""
        return f"http://127.0.0.1:{GATEWAY_PORT}"

    def inside(self, host: Path) -> str:
        host = host.resolve()
        if host == self.config.workspace.resolve():
            return WORKSPACE
        for b in self.config.binds:
            if b.host.resolve() == host:
                return b.inside
        raise SandboxError(f"{host} is not bound into the sandbox")

    def exec(self, cmd: list[str], *, stdout: Path, stderr: Path, timeout: float | None = None,
             env: dict[str, str] | None = None) -> ExecResult:
        if self._argv is None:
            raise SandboxError("sandbox not started")
        full_env = base_env(self.config, WORKSPACE) | (env or {})
        asked = cmd
        if self.config.gateway is not None:  # a relay from the sandbox's loopback to the gateway
            cmd = ["python3", f"{GATEWAY_DIR}/forward.py", str(GATEWAY_PORT), f"{GATEWAY_DIR}/gateway.sock",
                   "--", *cmd]
        # bwrap reports the command's exit code on this fd; none means the sandbox never ran it
        status_r, status_w = os.pipe()
        argv = self._argv[:1] + ["--json-status-fd", str(status_w)] + self._argv[1:]
        try:
            res = run_killable(self.config.launcher + argv + cmd, cwd=None,
                               env=full_env | self.config.launcher_env, stdout=stdout, stderr=stderr,
                               timeout=timeout, procs=self._procs, pass_fds=(status_w,))
        finally:
            os.close(status_w)
            with os.fdopen(status_r, "rb") as fh:
                status = fh.read()
        if b"exit-code" not in status and not res.timed_out:
            detail = stderr.read_text(errors="replace").strip()[-2000:]
            raise SandboxError(f"bwrap could not set up the sandbox: {detail}")
        res.cmd = asked
        return res
