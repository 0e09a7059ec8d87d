"""Containers: a task's own image (Podman, Docker or Apptainer) under bwrap's contract.

Each ``exec()`` is one fresh ``run`` of the image: the root filesystem read-only, the workspace
at /workspace, nothing else of the host but the config's binds, the gateway's and egress proxy's
socket folders and the trial's device files; no network, no capability that reaches the host,
limits explicit. A root harness starts the container as the container's root with only the
capabilities its privilege drop needs, so strace (from the image) records every exec before
setpriv becomes the dedicated unprivileged uid (identity.py) — as bwrap.py does; images without
strace and setpriv run straight as that uid, with no exec record.

The container does not run under ``config.launcher`` (a cgroup join holds the engine's client,
not the container): the trial's cgroups named in ``launcher_env`` become its cgroup parent, so
they limit and meter it, and their limits are passed to the engine as well.
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
import subprocess
import time
from pathlib import Path

from reclaim.sandbox import engines, execlog, identity, overlay
from reclaim.sandbox.base import (
    DEFAULT_PATH,
    EGRESS_DIR,
    FORWARDER,
    FORWARDER_INSIDE,
    ExecResult,
    HostWorkspace,
    SandboxConfig,
    SandboxError,
    base_env,
    kill_tree,
    relay,
    run_killable,
)
from reclaim.sandbox.bwrap import EXEC_DIR, GATEWAY_DIR, GATEWAY_PORT, WORKSPACE
from reclaim.sandbox.container_limits import cgroup_limits, pid_max, rlimit
from reclaim.sandbox.images import available as engine_available
from reclaim.sandbox.images import recent_image_id, require_engine
from reclaim.tempdirs import owned_tempdir

DROP_CAPS = ["SETUID", "SETGID", "SETPCAP", "SYS_PTRACE"]  # strace and setpriv, which drops them all
CGROUP_ROOT = Path("/sys/fs/cgroup")
_NOT_FOUND = "executable file not found"
_TOOLS: dict[tuple, dict[str, str]] = {}
"""Where an image keeps strace and setpriv, per engine and image id: probed once per process."""
REMOVE_BATCH = 16


class ContainerSandbox(HostWorkspace):
    name = "container"
    isolated = True
    binds = True
    images = True
    shows_host_usr = False
    network = "relay"
    shell_hook = False
    warning = None
    workspace_inside = WORKSPACE

    @classmethod
    def available(cls) -> str | None:
        return engine_available()

    @classmethod
    def workspace_for(cls, workspace: Path) -> str:
        return WORKSPACE

    @classmethod
    def overlays(cls) -> str | None:
        if not identity.current().dedicated:
            return "an unprivileged harness cannot mount overlays for its containers"
        engine = engines.find(os.environ.get("RECLAIM_CONTAINER_ENGINE") or None)
        if engine is None or engine.name != "podman":
            return "only rootful podman starts its containers from the harness's own mount namespace"
        return overlay.unavailable()

    @classmethod
    def limits(cls) -> list[str]:
        return []

    def __init__(self, config: SandboxConfig, engine: str | None = None, *, memory_mb: int | None = None,
                 cpus: float | None = None, pids: int = 4096):
        self.config = config
        self.engine_name = engine
        self.memory_mb, self.cpus, self.pids = memory_mb, cpus, pids
        self._procs: set = set()
        self._live: set[str] = set()
        self._exited: list[str] = []  # ended containers, removed in batches (off each command's path)
        self.image_id: str | None = None
        self._private: Path | None = None
        self.engine: engines.Engine | None = None
        self.image: str | None = None
        self.tools: dict[str, str] = {}
        self.identity = identity.current()

    # -- setup -------------------------------------------------------------------------------

    def start(self) -> None:
        self.engine = require_engine(self.engine_name)
        image = self.config.image or os.environ.get("RECLAIM_CONTAINER_IMAGE") or None
        if image is None:
            raise SandboxError("the container sandbox needs an image: set environment.image in task.yaml, "
                               "pass --image, or set $RECLAIM_CONTAINER_IMAGE")
        self.image_id = recent_image_id(self.engine, image)
        if self.image_id is None:
            e = self.engine.name
            raise SandboxError(f"image '{image}' is not in {e}'s local store (nothing is pulled during a trial): "
                               f"{e} pull {image}, {e} load -i IMAGE.tar, or build it "
                               "(images.ensure_image for a task's Dockerfile, scripts/build-test-image)")
        self.image = image
        self.config.workspace.mkdir(parents=True, exist_ok=True)
        self.identity.give_tree(self.config.workspace)
        for b in self.config.binds:
            if b.writable and b.host.is_dir():
                self.identity.give_tree(b.host)
        if self.config.tmp is not None:
            self.config.tmp.mkdir(parents=True, exist_ok=True)
            self.identity.give_tree(self.config.tmp)
        for host, inside, _ in self._mounts()[0]:  # the probe is cached per image: check what it checked
            if not os.path.exists(host):
                raise SandboxError(f"{self.engine.name} could not start the container: the bind source "
                                   f"{host} (for {inside}) does not exist")
        self._private = owned_tempdir("ctr")  # 0700: env files, empty dir
        (self._private / "empty").mkdir(mode=0o755)
        try:
            self.tools = self._probe_tools()
        except SandboxError:
            self.stop()
            raise

    def _probe_tools(self) -> dict[str, str]:
        """Where the image keeps strace and setpriv (the exec record needs both), if it does."""
        if self.engine is None or self.engine.name == "apptainer":
            return {}
        key = (self.engine, self.image_id, self._user())
        if key in _TOOLS:
            return dict(_TOOLS[key])
        assert self._private is not None  # made by start()
        out = self._private / "probe"
        script = "for t in strace setpriv; do p=$(command -v $t) && echo $t=$p; done; true"
        res = self._run(["/bin/sh", "-c", script], out, out.with_suffix(".err"), timeout=120, env={},
                        user=self._user(), caps=[], mounts=[])
        tools = dict(ln.split("=", 1) for ln in out.read_text(errors="replace").splitlines() if "=" in ln) \
            if res.exit_code == 0 else {}
        tools = {k: v for k, v in tools.items() if k in ("strace", "setpriv") and v.startswith("/")}
        if res.exit_code == 0:
            _TOOLS[key] = dict(tools)
        return tools

    def _user(self) -> tuple[int, int] | None:
        return (self.identity.uid, self.identity.gid) if self.identity.dedicated else None

    def _mounts(self) -> tuple[list[tuple[str, str, bool]], list[tuple[str, bool]]]:
        ws = self.config.workspace.resolve()
        mounts = [(str(ws), WORKSPACE, True)]
        bound = [(ws, WORKSPACE)]
        for b in self.config.binds:
            mounts.append((str(b.host.resolve()), b.inside, b.writable))
            bound.append((b.host.resolve(), b.inside))
        if self.config.gateway is not None:
            mounts.append((str(self.config.gateway.resolve()), GATEWAY_DIR, False))
        if self.config.egress is not None:
            mounts.append((str(self.config.egress.resolve()), EGRESS_DIR, False))
        if self.config.gateway is not None or self.config.egress is not None:
            mounts.append((str(FORWARDER), FORWARDER_INSIDE, False))
        masks = []
        for h in self.config.hidden:
            h = h.resolve()
            for host, inside in bound:
                if h.exists() and (h == host or host in h.parents):
                    masks.append((str(Path(inside) / h.relative_to(host)), h.is_dir()))
        return mounts, masks

    def gateway_url(self, host_url: str) -> str:
        return f"http://127.0.0.1:{GATEWAY_PORT}"

    def inside(self, host: Path) -> str:
        host = host.resolve()
        if host == self.config.workspace.resolve():
            return WORKSPACE
        for b in self.config.binds:
            if b.host.resolve() == host:
                return b.inside
        raise SandboxError(f"{host} is not bound into the sandbox")

    # -- running -----------------------------------------------------------------------------

    def exec(self, cmd: list[str], *, stdout: Path, stderr: Path, timeout: float | None = None,
             env: dict[str, str] | None = None) -> ExecResult:
        if self.engine is None or self._private is None:
            raise SandboxError("sandbox not started")
        if not cmd:
            raise SandboxError("empty command")
        full_env = base_env(self.config, WORKSPACE) | (env or {})
        if "PATH" not in self.config.env and "PATH" not in (env or {}):
            full_env["PATH"] = DEFAULT_PATH  # the host's virtual environment is not in the image
        asked = cmd
        cmd = relay(self.config, "python3") + cmd  # the same relays as bwrap's: python3 must be in the image
        user, caps, log, outside, mounts = self._user(), [], None, False, []
        if self.engine.name == "apptainer":
            if execlog.strace() is not None:  # apptainer's processes descend from its client
                log, outside = self._exec_folder(stdout) / "log", True
        elif "strace" in self.tools and ("setpriv" in self.tools or not self.identity.dedicated):
            folder = self._exec_folder(stdout)
            log = folder / "log"
            mounts = [(str(folder), EXEC_DIR, True)]
            if self.identity.dedicated:
                # the container's root runs only strace and setpriv, holding only what the drop
                # needs; the agent's uid can neither signal, trace nor read the record (0700, root's)
                user, caps = (0, 0), DROP_CAPS
                cmd = [self.tools["setpriv"], *self.identity.drop()[1:]] + cmd
            cmd = [self.tools["strace"], *execlog.wrap(Path(EXEC_DIR, "log"))[1:]] + cmd
        res = self._run(cmd, stdout, stderr, timeout=timeout, env=full_env, user=user, caps=caps,
                        mounts=mounts, trace_outside=log if outside else None)
        res.cmd = asked
        res.exec_log = log
        res.exec_log_outside = outside
        return res

    def _exec_folder(self, stdout: Path) -> Path:
        folder = stdout.with_name(stdout.name.rsplit(".", 1)[0] + ".execs")
        folder.parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(folder, ignore_errors=True)  # a stream file used again: its record too
        folder.mkdir(mode=0o700)
        return folder

    def _limits(self) -> tuple[str | None, int | None, float | None, int]:
        parent, mem, cpus, pids = cgroup_limits(self.config.launcher_env)
        if self.memory_mb:
            mem = min(mem or 1 << 62, self.memory_mb << 20)
        return parent, mem, self.cpus or cpus, min(pids, self.pids) if pids else self.pids

    def _run(self, cmd: list[str], stdout: Path, stderr: Path, *, timeout: float | None, env: dict[str, str],
             user: tuple[int, int] | None, caps: list[str], mounts: list, trace_outside: Path | None = None
             ) -> ExecResult:
        assert self.engine is not None and self._private is not None and self.image is not None
        name = f"reclaim-{secrets.token_hex(8)}"
        binds, masks = self._mounts()
        parent, mem, cpus, pids = self._limits()
        # a device node goes in as a device; a placeholder file (the fake GPUs) as a read-only bind
        nodes = [(h, i) for h, i in self.config.devices if _is_node(h)]
        plain = [(h, i, False) for h, i in self.config.devices if (h, i) not in nodes]
        run = engines.Run(self.image, name, cmd, WORKSPACE, mounts=binds + mounts + plain, masks=masks,
                          devices=nodes,
                          tmp=str(self.config.tmp.resolve()) if self.config.tmp else None, user=user, caps=caps,
                          network=self.config.network, memory_bytes=mem, cpus=cpus, pids=pids,
                          nofile=rlimit("RLIMIT_NOFILE", 65536), nproc=rlimit("RLIMIT_NPROC", pid_max()),
                          cgroup_parent=parent if self.engine.name != "apptainer" else None,
                          empty_dir=str(self._private / "empty"))
        client_env = {k: v for k, v in os.environ.items() if not k.startswith("APPTAINERENV_")}
        env_file = None
        if self.engine.name == "apptainer":
            client_env |= {f"APPTAINERENV_{k}": v for k, v in env.items()}
        else:  # values never on a command line (ps would show them); ones with newlines by name
            env_file = self._private / f"{name}.env"
            fd = os.open(env_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as fh:
                fh.writelines(f"{k}={v}\n" for k, v in env.items() if "\n" not in v and "\r" not in v)
            run.env_file = str(env_file)
            run.env_keys = [k for k, v in env.items() if "\n" in v or "\r" in v]
            client_env |= {k: env[k] for k in run.env_keys}
        try:
            argv = self.engine.run_argv(run)
        except ValueError as e:
            raise SandboxError(str(e)) from None
        if self.config.overlays:  # mounted in a namespace of the client's own, which podman and its runtime inherit
            argv = overlay.launcher(self.config.overlays) + argv
        if self.engine.name == "apptainer":
            argv = self.identity.drop() + argv  # apptainer itself runs unprivileged
            if trace_outside is not None:
                argv = execlog.wrap(trace_outside) + argv
        self._live.add(name)
        try:
            # in the harness's own log folder: conmon leaves a file named "oom" in its working
            # folder when the container is killed for memory, which was the user's current folder
            res = run_killable(argv, cwd=str(stdout.parent), env=client_env, stdout=stdout, stderr=stderr,
                               timeout=timeout, procs=self._procs)
        finally:
            if env_file is not None:
                env_file.unlink(missing_ok=True)
        if self.engine.name != "apptainer":
            self._settle(name, res, stderr)
        return res

    def _settle(self, name: str, res: ExecResult, stderr: Path) -> None:
        """Mark the container for removal (in a batch); tell an engine that never started it from a
        command that failed."""
        assert self.engine is not None
        state = ""
        if res.timed_out:
            subprocess.run(self.engine.kill_argv(name), check=False, capture_output=True)
        elif res.exit_code in (125, 126, 127):  # the engine's own codes, or the command's: ask
            q = subprocess.run(self.engine.inspect_argv(name), check=False, capture_output=True, text=True)
            state = q.stdout.strip() if q.returncode == 0 else "absent"
        self._exited.append(name)  # removed later, many at once: each removal is a client's start
        if res.timed_out or len(self._exited) >= REMOVE_BATCH:  # a killed one goes at once
            self._remove_exited()
        never_ran = state == "absent" or state.startswith("created") or " 0001-01-01" in state
        if never_ran:
            detail = stderr.read_text(errors="replace").strip()[-2000:]  # the engine's words only
            if res.exit_code == 127 and _NOT_FOUND in detail:
                return  # the command does not exist: its failure, as a shell's 127
            raise SandboxError(f"{self.engine.name} could not start the container: {detail}")

    def _remove_exited(self) -> None:
        assert self.engine is not None
        names, self._exited = self._exited, []
        if names:
            subprocess.run(self.engine.remove_argv(*names), check=False, capture_output=True)
            self._live.difference_update(names)

    def stop(self) -> None:
        for proc in list(self._procs):
            kill_tree(proc)
        self._procs.clear()
        if self.engine is not None:
            running = [n for n in self._live if n not in self._exited]
            for name in running:
                subprocess.run(self.engine.kill_argv(name), check=False, capture_output=True)
            self._exited += running
            self._remove_exited()
            self._live.clear()
        if self._private is not None:
            shutil.rmtree(self._private, ignore_errors=True)
            self._private = None
        self._clear_cgroups()

    def _clear_cgroups(self) -> None:
        """The engine (cgroupfs) made the trial's group in every controller, with a conmon group
        inside: remove those, so that Limits.stop can remove its own (it meters until then)."""
        parent = cgroup_limits(self.config.launcher_env)[0]
        if parent is None or self.engine is None or self.engine.name == "apptainer":
            return
        ours = {Path(p) for p in self.config.launcher_env.get("RECLAIM_CGROUPS", "").split()}
        for ctl in [CGROUP_ROOT, *(p for p in CGROUP_ROOT.iterdir() if p.is_dir())]:
            group = ctl / parent.lstrip("/")
            for d in [group / "conmon"] + ([] if group in ours else [group]):
                for _ in range(25):  # a group stays busy for a moment after its last process died
                    try:
                        d.rmdir()
                        break
                    except FileNotFoundError:
                        break
                    except OSError:
                        time.sleep(0.02)


def _is_node(path: str) -> bool:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return True  # the engine says what is wrong with it
    return stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
