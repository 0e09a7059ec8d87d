"""bubblewrap: a read-only view of the system, a writable workspace, no network, own PIDs."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

from reclaim.sandbox import execlog, identity, overlay
from reclaim.sandbox.base import (
    EGRESS_DIR,
    FORWARDER,
    FORWARDER_INSIDE,
    GATEWAY_DIR,
    GATEWAY_PORT,
    ExecResult,
    HostWorkspace,
    SandboxConfig,
    SandboxError,
    base_env,
    relay,
    run_killable,
)

WORKSPACE = "/workspace"
EXEC_DIR = "/run/reclaim-exec"
# What programs need from /etc; the rest (keys, credentials, service configs) stays out.
ETC_ENTRIES = (
    "passwd", "group", "hosts", "nsswitch.conf", "ld.so.cache", "ld.so.conf", "ld.so.conf.d",
    "alternatives", "localtime", "ssl", "ca-certificates", "mime.types", "os-release",
    "debian_version", "protocols", "services", "magic", "magic.mime",
)
# /opt stays out: hosts keep wheel folders and package indexes there. Interpreters outside /usr
# come in only as binds the environment names (runner/environment.py).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SYMLINKED = tuple(d + "/" for d in SYSTEM_DIRS if Path(d).is_symlink())


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


_DEST_OPS = {"--ro-bind": 2, "--bind": 2, "--dev-bind": 2, "--tmpfs": 1, "--dir": 1}


def _with_parents(argv: list[str]) -> list[str]:
    """Make every folder on the way to a mount point first, world-traversable: bwrap run as root
    makes them 0700, which the unprivileged sandbox user could not enter."""
    made: set[str] = {"/"}
    dests = []
    i = 0
    while i < len(argv):
        n = _DEST_OPS.get(argv[i])
        if n is not None:
            dests.append(argv[i + n])
            i += n + 1
        else:
            i += 1
    prefix: list[str] = []
    for dest in dests:
        for parent in reversed(Path(dest).parents):
            p = str(parent)
            if p not in made and not any(p.startswith(d) for d in SYMLINKED):
                made.add(p)
                prefix += ["--perms", "0755", "--dir", p]
    head = argv.index("--hostname")
    return argv[:head] + prefix + argv[head:]


@functools.cache
def _system_view(dedicated: bool) -> tuple[list[str], list[tuple[Path, str]]]:
    """The read-only system folders and /etc entries every sandbox shows, and the folders bound
    (looked up once a process: four sandboxes a trial are built from them)."""
    argv: list[str] = []
    bound: list[tuple[Path, str]] = []
    for d in SYSTEM_DIRS:
        p = Path(d)
        if p.is_symlink():
            argv += ["--symlink", os.readlink(p), d]
        elif p.is_dir():
            argv += ["--ro-bind", d, d]
            bound.append((p, d))
    accounts = identity.account_files() if dedicated else {}
    for entry in ETC_ENTRIES:
        p = Path("/etc", entry)
        if entry in accounts:
            argv += ["--ro-bind", str(accounts[entry]), str(p)]
        elif p.exists():
            argv += ["--ro-bind", str(p), str(p)]
    return argv, bound


class BwrapSandbox(HostWorkspace):
    name = "bwrap"
    isolated = True
    binds = True
    images = False
    shows_host_usr = True
    network = "netns"
    shell_hook = True
    warning = None
    workspace_inside = WORKSPACE

    @classmethod
    def available(cls) -> str | None:
        return available()

    @classmethod
    def workspace_for(cls, workspace: Path) -> str:
        return WORKSPACE

    @classmethod
    def overlays(cls) -> str | None:
        if not identity.current().dedicated:
            return "an unprivileged harness cannot mount overlays for its sandboxes"
        return overlay.unavailable()

    @classmethod
    def limits(cls) -> list[str]:
        out = ["read_only_host", "no_network", "pid_namespace", "process_tree_kill",
               f"unprivileged uid {identity.current().uid}, no capabilities"]
        if execlog.strace():
            out.append("exec_record (strace, out of the agent's reach)")
        return out

    def __init__(self, config: SandboxConfig):
        self.config = config
        self._procs: set = set()
        self._argv: list[str] | None = None
        self.identity = identity.current()

    def start(self) -> None:
        self.stopped = False
        reason = available()
        if reason:
            raise SandboxError(reason)
        self.config.workspace.mkdir(parents=True, exist_ok=True)
        self.identity.give_tree(self.config.workspace)
        for b in self.config.binds:
            if b.writable and b.host.is_dir():
                self.identity.give_tree(b.host)
        self._argv = self._build_argv()

    def _build_argv(self) -> list[str]:
        # A root harness runs bwrap as root, so it can reach every source path, and the command
        # inside starts through setpriv as the unprivileged sandbox user (identity.py). Otherwise
        # bwrap runs as the user, in a user namespace that maps only that uid, with no
        # capabilities and no nested user namespaces.
        argv = ["bwrap", "--die-with-parent", "--new-session", "--unshare-ipc", "--unshare-pid",
                "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
        if not self.identity.dedicated:
            argv += ["--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
        argv += ["--hostname", "sandbox", "--proc", "/proc", "--dev", "/dev",
                 *(["--bind", str(self.config.tmp.resolve()), "/tmp"] if self.config.tmp
                   else ["--perms", "1777", "--tmpfs", "/tmp"]),
                 "--perms", "1777", "--dir", "/var/tmp",
                 "--dir", "/run"]
        if self.config.network or self.config.netns is not None:  # the host's, or the phase's own
            argv.remove("--unshare-net")
        system, system_bound = _system_view(self.identity.dedicated)
        argv += system
        bound: list[tuple[Path, str]] = list(system_bound)  # (host folder, where it appears inside)
        argv += ["--bind", str(self.config.workspace.resolve()), WORKSPACE]
        for b in self.config.binds:
            argv += ["--bind" if b.writable else "--ro-bind", str(b.host.resolve()), b.inside]
            bound.append((b.host.resolve(), b.inside))
        relayed = self.config.netns is None  # else the harness listens inside: no socket, no relay
        if self.config.gateway is not None and relayed:
            argv += ["--ro-bind", str(self.config.gateway.resolve()), GATEWAY_DIR]
        if self.config.egress is not None:  # its CA bundle, and the socket where relayed
            argv += ["--ro-bind", str(self.config.egress.resolve()), EGRESS_DIR]
        if (self.config.gateway is not None or self.config.egress is not None) and relayed:
            argv += ["--ro-bind", str(FORWARDER), FORWARDER_INSIDE]
        for device, device_inside in self.config.devices:
            argv += ["--dev-bind", device, device_inside]
        for h in self.config.hidden:  # each looked at once (four sandboxes a trial build this)
            h = h.resolve()
            if not h.exists():
                continue
            mask = "--tmpfs" if h.is_dir() else None
            for host, inside in bound:
                under = str(host).rstrip("/") + "/"
                if h == host or str(h).startswith(under):
                    target = str(Path(inside) / h.relative_to(host))
                    argv += [mask, target] if mask else ["--ro-bind", "/dev/null", target]
        return _with_parents(argv) + ["--chdir", WORKSPACE, "--"]

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
        if self.config.netns is None:  # the sandbox's loopback ports to the gateway and the proxy
            cmd = relay(self.config) + cmd
        cmd = self.identity.drop() + cmd  # nothing the agent wrote runs before this
        # bwrap reports the command's exit code on this fd; none means the sandbox never ran it
        status_r, status_w = os.pipe()
        argv = self._argv[:1] + ["--json-status-fd", str(status_w)] + self._argv[1:]
        log, outside = None, list(self.config.launcher)
        if self.config.netns is not None:
            outside += self.config.netns.launcher()
        outside += overlay.launcher(self.config.overlays)  # mounted in the command's own mount namespace
        if execlog.strace() is not None:
            folder = stdout.with_name(stdout.name.rsplit(".", 1)[0] + ".execs")
            folder.parent.mkdir(parents=True, exist_ok=True)
            shutil.rmtree(folder, ignore_errors=True)  # a stream file used again: its record too
            folder.mkdir(mode=0o700)
            log = folder / "log"
            if self.identity.dedicated:
                # strace runs as the sandbox's root, before the drop: the agent's uid can neither
                # signal, trace nor read it (its folder is root's, 0700), and bwrap's own setup
                # stays untraced, which costs 5 ms a command instead of 80
                argv = argv[:-3] + ["--bind", str(folder), EXEC_DIR] + argv[-3:]
                cmd = execlog.wrap(Path(EXEC_DIR, "log")) + cmd
            else:  # an unprivileged harness: the agent's own uid, so strace must stay outside
                outside = execlog.wrap(log) + outside
        try:
            res = run_killable(outside + argv + cmd, cwd=None,
                               env=full_env | self.config.launcher_env, stdout=stdout, stderr=stderr,
                               timeout=timeout, procs=self._procs, pass_fds=(status_w,))
        finally:
            os.close(status_w)
            with os.fdopen(status_r, "rb") as fh:
                status = fh.read()
        if b"exit-code" not in status and not res.timed_out and not self.stopped:
            detail = stderr.read_text(errors="replace").strip()[-2000:]
            raise SandboxError(f"bwrap could not set up the sandbox: {detail}")
        res.cmd = asked
        res.exec_log = log
        res.exec_log_outside = not self.identity.dedicated
        return res
