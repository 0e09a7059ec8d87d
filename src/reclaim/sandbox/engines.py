"""Command lines of the container engines: Podman and Docker (one CLI), Apptainer.

Pure functions from a ``Run`` (what one command needs) to an argv, so every flag that holds the
isolation can be checked without an engine; container.py runs them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field

ENGINES = ("podman", "docker", "apptainer")
LABEL = "reclaim.sandbox=1"


@dataclass
class Run:
    """One command in a fresh container: everything an engine's argv is made of."""

    image: str
    name: str
    cmd: list[str]
    workdir: str
    mounts: list[tuple[str, str, bool]] = field(default_factory=list)
    """Bind mounts (host, inside, writable)."""
    masks: list[tuple[str, bool]] = field(default_factory=list)
    """Paths inside to hide (inside, is_dir): an empty read-only tmpfs or /dev/null over them."""
    devices: list[tuple[str, str]] = field(default_factory=list)
    tmp: str | None = None
    """Host folder to serve as /tmp; None: a tmpfs."""
    env_file: str | None = None
    env_keys: list[str] = field(default_factory=list)
    """Names whose values the engine takes from its own environment (values with newlines)."""
    user: tuple[int, int] | None = None
    caps: list[str] = field(default_factory=list)
    """Capabilities kept (all others dropped): only what the harness's own drop needs."""
    network: bool = False
    memory_bytes: int | None = None
    cpus: float | None = None
    pids: int = 4096
    nofile: int = 65536
    nproc: int = 32768
    cgroup_parent: str | None = None
    empty_dir: str = "/var/empty"
    """An empty folder on the host (Apptainer masks folders with it)."""


@dataclass(frozen=True)
class Engine:
    name: str
    exe: str
    runtime: str | None = None
    """OCI runtime (podman only): $RECLAIM_CONTAINER_RUNTIME, else runc where crun is missing."""

    def base(self) -> list[str]:
        if self.name == "podman" and self.runtime:
            return [self.exe, "--runtime", self.runtime]
        return [self.exe]

    def run_argv(self, r: Run) -> list[str]:
        if self.name == "apptainer":
            return apptainer_argv(self.exe, r)
        return self.base() + oci_argv(self.name, r)

    def remove_argv(self, *names: str) -> list[str]:
        return self.base() + ["rm", "--force", "--time", "0", *names] if self.name == "podman" \
            else self.base() + ["rm", "--force", *names]

    def kill_argv(self, name: str) -> list[str]:
        return self.base() + ["kill", "--signal", "KILL", name]

    def inspect_argv(self, name: str) -> list[str]:
        return self.base() + ["inspect", "--format", "{{.State.Status}} {{.State.StartedAt}}", name]

    def image_exists_argv(self, image: str) -> list[str]:
        return self.base() + ["image", "inspect", "--format", "{{.Id}}", image]

    def build_argv(self, tag: str, dockerfile: str, context: str) -> list[str]:
        argv = self.base() + ["build", "--network=none", "--pull=never", "--tag", tag, "--file", dockerfile]
        if self.name == "podman":
            argv += ["--layers", "--cap-drop=ALL"]
        return argv + [context]


def find(name: str | None = None) -> Engine | None:
    """The engine named (or $RECLAIM_CONTAINER_ENGINE, or the first of podman, docker, apptainer found)."""
    name = name or os.environ.get("RECLAIM_CONTAINER_ENGINE") or None
    for candidate in ([name] if name else ENGINES):
        exe = shutil.which(candidate) or (shutil.which("singularity") if candidate == "apptainer" else None)
        if exe:
            runtime = os.environ.get("RECLAIM_CONTAINER_RUNTIME") or None
            if candidate == "podman" and runtime is None and not shutil.which("crun") and _runc():
                runtime = "runc"
            return Engine(candidate, exe, runtime)
    return None


def _runc() -> bool:
    return bool(shutil.which("runc") or any(os.access(p, os.X_OK) for p in ("/usr/sbin/runc", "/usr/bin/runc")))


def probe(engine: Engine) -> str | None:
    """None when the engine answers, else why not (its own words)."""
    argv = [engine.exe, "--version"] if engine.name == "apptainer" \
        else engine.base() + ["info", "--format", "{{.Host.Arch}}"] if engine.name == "podman" \
        else [engine.exe, "info", "--format", "{{.Architecture}}"]
    try:
        res = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{engine.name} does not answer: {e}"
    if res.returncode != 0:
        detail = (res.stderr or res.stdout).strip().splitlines()
        return f"{engine.name} cannot run containers here: {detail[-1] if detail else f'exit {res.returncode}'}"
    return None


def oci_argv(engine: str, r: Run) -> list[str]:
    """``podman run`` / ``docker run``: nothing of the host but what ``r`` names, no way to gain a
    capability, no network, every limit explicit (a rootful engine would hand out the host's)."""
    argv = ["run", "--name", r.name, "--label", LABEL, "--pull=never", "--hostname", "sandbox",
            "--network=host" if r.network else "--network=none", "--ipc=private", "--cgroupns=private",
            "--cap-drop=ALL", "--security-opt=no-new-privileges", "--read-only",
            "--pids-limit", str(r.pids), "--ulimit", f"nofile={r.nofile}:{r.nofile}",
            "--ulimit", f"nproc={r.nproc}:{r.nproc}", "--ulimit", "core=0:0"]
    if engine == "podman":  # the container's stdio are the harness's files; no copy in podman's store
        argv += ["--log-driver=passthrough", "--read-only-tmpfs=false"]
    else:
        argv += ["--log-driver=none"]
    for cap in r.caps:
        argv += [f"--cap-add={cap}"]
    if r.user is not None:
        argv += ["--user", f"{r.user[0]}:{r.user[1]}"]
    if r.memory_bytes:
        argv += ["--memory", str(r.memory_bytes), "--memory-swap", str(r.memory_bytes)]
    if r.cpus:
        argv += ["--cpus", f"{r.cpus:g}"]
    if r.cgroup_parent:
        argv += ["--cgroup-parent", r.cgroup_parent]
    argv += ["--tmpfs", "/run:rw,nosuid,nodev,mode=0755", "--tmpfs", "/var/tmp:rw,exec,nosuid,nodev,mode=1777"]
    if r.tmp is None:
        argv += ["--tmpfs", "/tmp:rw,exec,nosuid,nodev,mode=1777"]
    else:
        argv += ["--mount", _bind(r.tmp, "/tmp", True)]
    for host, inside, writable in r.mounts:
        argv += ["--mount", _bind(host, inside, writable)]
    for inside, is_dir in r.masks:
        # engines mount tmpfs before binds, so a tmpfs would land under the bound folder: binds only
        argv += ["--mount", _bind(r.empty_dir if is_dir else "/dev/null", inside, False)]
    for host, inside in r.devices:
        argv += ["--device", f"{host}:{inside}:rwm"]
    if r.env_file:
        argv += ["--env-file", r.env_file]
    for key in r.env_keys:
        argv += ["--env", key]
    return argv + ["--workdir", r.workdir, "--entrypoint", r.cmd[0], r.image, *r.cmd[1:]]


def _bind(host: str, inside: str, writable: bool) -> str:
    for part in (host, inside):
        if "," in part or "=" in part or "\n" in part:
            raise ValueError(f"a container bind path may not hold ',', '=' or a newline: {part!r}")
    return f"type=bind,source={host},destination={inside},bind-propagation=rprivate" + ("" if writable else ",ro=true")


def apptainer_argv(exe: str, r: Run) -> list[str]:
    """``apptainer exec``: runs as the calling (unprivileged) user, so root never enters; the
    container holds no home, no host /tmp, no host environment and (--network none) no network.
    Limits need cgroups delegated to the user: --memory/--cpus/--pids-limit, passed when known."""
    argv = [exe, "exec", "--containall", "--cleanenv", "--no-home", "--no-init", "--no-privs",
            "--writable-tmpfs", "--pwd", r.workdir]
    if not r.network:
        argv += ["--net", "--network", "none"]
    if r.memory_bytes:
        argv += ["--memory", str(r.memory_bytes)]
    if r.cpus:
        argv += ["--cpus", f"{r.cpus:g}"]
    if r.tmp is not None:
        argv += ["--bind", f"{r.tmp}:/tmp:rw"]
    for host, inside, writable in r.mounts:
        if ":" in host or ":" in inside or "," in host or "," in inside:
            raise ValueError(f"an apptainer bind path may not hold ':' or ',': {host!r} -> {inside!r}")
        argv += ["--bind", f"{host}:{inside}:{'rw' if writable else 'ro'}"]
    for inside, is_dir in r.masks:
        # no tmpfs at an arbitrary path: an empty read-only folder or /dev/null over it
        argv += ["--bind", f"{r.empty_dir if is_dir else '/dev/null'}:{inside}:ro"]
    if r.devices:  # the GPUs given: --nv brings in the host's driver libraries and nvidia-smi
        argv += ["--nv"]
    for host, inside in r.devices:
        argv += ["--bind", f"{host}:{inside}"]
    # the environment comes as APPTAINERENV_* in apptainer's own (its --env-file is shell code)
    return argv + [r.image, *r.cmd]
