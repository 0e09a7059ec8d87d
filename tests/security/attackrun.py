"""Running the attack suite through the real CLI, as the invoking user or as an unprivileged one.

Each batch is one `reclaim run` (several --agent flags, --jobs 2) followed by `reclaim judge` with an
LLM judge whose endpoint is the fake provider, so the prompts the harness would send a real judge
model are on record. The harness process runs with an address-space cap (a safety net for the shared
machine: an unbounded read ends as MemoryError, not as a dead machine) and its peak RSS is sampled.
"""

from __future__ import annotations

import hashlib
import os
import pwd
import resource
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil
from attacklib import JUDGE_MODEL, REPO, SUITE, TASK, VICTIM, Attack, FakeProvider

CI_USER = "reclaim-ci"
CI_VENV = Path("/var/tmp/reclaim-ci-venv")
BUDGET_SCALE = "0.4"  # two minutes a phase instead of five: attacks are quick, hung ones end sooner
HARNESS_AS_GB = float(os.environ.get("RECLAIM_SECURITY_HARNESS_AS_GB", "6"))
INFO = ("import json, sys, sysconfig; print(json.dumps({'prefix': sys.prefix, 'base': sys.base_prefix, "
        "'stdlib': sysconfig.get_paths()['stdlib'], 'purelib': sysconfig.get_paths()['purelib'], "
        "'exe': sys.executable, 'base_bin': sysconfig.get_config_var('BINDIR')}))")


@dataclass
class Dimension:
    name: str
    user: str
    uid: int
    prefix: list[str]  # how a command runs as that user
    venv: Path
    home: str
    work: Path  # run folders go here; owned by the user
    info: dict = field(default_factory=dict)
    secret: str = field(default_factory=lambda: "sk-test-SECRET-" + secrets.token_hex(12))

    @property
    def reclaim(self) -> list[str]:
        return [str(self.venv / "bin" / "reclaim")]

    def env(self) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items()
                if not any(s in k.upper() for s in ("KEY", "TOKEN", "SECRET", "PASSWORD", "PYTEST", "VIRTUAL_ENV"))}
        return keep | {
            "PATH": f"{self.venv / 'bin'}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "HOME": self.home, "USER": self.user, "LOGNAME": self.user,
            # caches of this user's own: the harness prepares environments and materials as it
            "RECLAIM_ENVS_CACHE": f"/var/tmp/reclaim-test-envs-{self.uid}",
            "RECLAIM_MATERIALS_CACHE": f"/var/tmp/reclaim-test-materials-{self.uid}",
            "RECLAIM_HOME": f"/var/tmp/reclaim-test-home-{self.uid}",  # its runs root, not the test's tmp_path
            "OPENAI_API_KEY": self.secret, "ANTHROPIC_API_KEY": self.secret + "-ant",
            "GEMINI_API_KEY": self.secret + "-gem", "AWS_SECRET_ACCESS_KEY": self.secret + "-aws",
        }

    def command(self, argv: list[str]) -> list[str]:
        """argv as this user; run it with env=self.env() (runuser keeps the environment but for
        PATH and HOME, set again here: no secret goes on a command line)."""
        if not self.prefix:
            return argv
        env = self.env()
        return self.prefix + ["env"] + [f"{k}={env[k]}" for k in ("PATH", "HOME", "USER", "LOGNAME")] + argv

    def give(self, path: Path) -> None:
        if self.prefix:
            os.chown(path, self.uid, pwd.getpwnam(self.user).pw_gid)

    def probe(self) -> None:
        out = subprocess.run(self.command([str(self.venv / "bin" / "python"), "-c", INFO]),
                             env=self.env(), capture_output=True, text=True, timeout=60)
        if out.returncode != 0:
            raise RuntimeError(f"{self.venv}/bin/python does not start as {self.user}: {out.stderr[-500:]}")
        import json

        self.info = json.loads(out.stdout)


def invoker(work: Path) -> Dimension:
    me = pwd.getpwuid(os.geteuid())
    d = Dimension("invoker", me.pw_name, me.pw_uid, [], REPO / ".venv", me.pw_dir, work)
    d.probe()
    return d


def unprivileged() -> Dimension | str:
    """The dimension that runs the harness as an unprivileged user, or why it cannot run here."""
    if os.geteuid() != 0:
        return "not root: the suite already runs as this unprivileged user (dimension 'invoker')"
    if shutil.which("runuser") is None:
        return "runuser is not installed"
    try:
        pwd.getpwnam(CI_USER)
    except KeyError:
        made = subprocess.run(["useradd", "--system", "--create-home", CI_USER], capture_output=True, text=True)
        if made.returncode != 0:
            return f"cannot create user {CI_USER}: {made.stderr.strip()}"
    pw = pwd.getpwnam(CI_USER)
    prefix = ["runuser", "-u", CI_USER, "--"]
    venv = REPO / ".venv"
    usable = subprocess.run(prefix + [str(venv / "bin" / "python"), "-c", "import reclaim, numpy"], capture_output=True)
    if usable.returncode != 0:  # e.g. the venv's interpreter lives under /root: a copy on a readable one
        why = _ci_venv()
        if why:
            return why
        venv = CI_VENV
    readable = subprocess.run(prefix + ["test", "-r", str(REPO / "tests/security/attacks")])
    if readable.returncode != 0:
        return f"{REPO} is not readable by {CI_USER}"
    work = Path(tempfile.mkdtemp(prefix="reclaim-security-", dir="/var/tmp"))
    d = Dimension("unprivileged", CI_USER, pw.pw_uid, prefix, venv, pw.pw_dir, work)
    d.give(work)
    try:
        d.probe()
    except RuntimeError as e:
        return str(e)
    return d


def _ci_venv() -> str | None:
    """A venv for the unprivileged user on the system's interpreter of the same version, holding a
    copy of the main venv's packages (reclaim itself is the editable install of this repository)."""
    major, minor = sys.version_info[:2]
    base = Path(f"/usr/bin/python{major}.{minor}")
    if not base.exists():
        return f"the venv's interpreter is not readable by {CI_USER} and there is no {base} to build one on"
    site = Path(REPO / ".venv/lib" / f"python{major}.{minor}" / "site-packages")
    # the stamp covers where the editable install points (the .pth files), not only the listing: a
    # copy made for another clone of the repository (since moved or deleted) must not be reused
    pth = [f"{n}={(site / n).read_text(errors='replace')}" for n in sorted(os.listdir(site)) if n.endswith(".pth")]
    stamp = hashlib.sha256("\n".join([str(REPO), *sorted(os.listdir(site)), *pth]).encode()).hexdigest()
    if (CI_VENV / "stamp").is_file() and (CI_VENV / "stamp").read_text() == stamp:
        return None
    shutil.rmtree(CI_VENV, ignore_errors=True)
    made = subprocess.run([str(base), "-m", "venv", "--without-pip", str(CI_VENV)], capture_output=True, text=True)
    if made.returncode != 0:
        return f"cannot make a venv on {base}: {made.stderr.strip()[-300:]}"
    shutil.copytree(site, CI_VENV / "lib" / f"python{major}.{minor}" / "site-packages", symlinks=True,
                    dirs_exist_ok=True)
    script = (REPO / ".venv/bin/reclaim").read_text().split("\n", 1)[1]
    (CI_VENV / "bin/reclaim").write_text(f"#!{CI_VENV}/bin/python\n{script}")
    (CI_VENV / "bin/reclaim").chmod(0o755)
    (CI_VENV / "stamp").write_text(stamp)
    return None


# --- one batch ----------------------------------------------------------------------------------


@dataclass
class Step:
    argv: list[str]
    rc: int | None = None
    timed_out: bool = False
    wall_s: float = 0.0
    peak_rss_mb: float = 0.0
    tail: str = ""


def _cap() -> None:
    cap = int(HARNESS_AS_GB * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def _is_harness(p: psutil.Process) -> bool:
    try:
        return any(a.endswith("/bin/reclaim") for a in p.cmdline()[:2])
    except psutil.Error:
        return False


def run_step(dim: Dimension, argv: list[str], timeout: float, log: Path) -> Step:
    """Run one CLI command as the dimension's user; sample the harness's RSS; kill it at the timeout."""
    step = Step(argv)
    t0 = time.monotonic()
    with open(log, "wb") as out:
        proc = subprocess.Popen(dim.command(argv), env=dim.env(), cwd=dim.work,
                                stdout=out, stderr=subprocess.STDOUT, preexec_fn=_cap, start_new_session=True)
        done = threading.Event()

        def sample() -> None:
            root = psutil.Process(proc.pid)
            while not done.is_set():
                try:
                    for p in [root, *root.children(recursive=True)]:
                        if _is_harness(p):
                            step.peak_rss_mb = max(step.peak_rss_mb, p.memory_info().rss / 2**20)
                except psutil.Error:
                    pass
                done.wait(0.05)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        try:
            step.rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            step.timed_out = True
            kill_tree(proc.pid)
            step.rc = proc.wait()
        finally:
            done.set()
            sampler.join()
    step.wall_s = time.monotonic() - t0
    step.tail = log.read_bytes()[-3000:].decode("utf-8", "replace")
    return step


def kill_tree(pid: int) -> None:
    try:
        root = psutil.Process(pid)
        family = [root, *root.children(recursive=True)]
    except psutil.Error:
        return
    for p in family:
        try:
            p.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(family, timeout=10)


@dataclass
class BatchRun:
    name: str
    run_dir: Path
    agents: list[str]
    run: Step | None = None
    judge: Step | None = None
    prompts: list[str] = field(default_factory=list)
    skipped: str = ""


def run_batch(dim: Dimension, name: str, attacks: list[Attack], provider: FakeProvider, timeout: float,
              judge: bool, run_dir: Path) -> BatchRun:
    agents = [a.agent for a in attacks]
    if name == "main":  # a victim first, so that attacks on another trial's record find it finished
        agents = [VICTIM] + [a.agent for a in attacks if "victim_intact" not in a.checks] + \
                 [a.agent for a in attacks if "victim_intact" in a.checks]
    b = BatchRun(name, run_dir, agents)
    provider.batch = f"{dim.name}/{name}"
    argv = dim.reclaim + ["run", "--suite", SUITE, "--task", TASK, "--run-dir", str(run_dir), "--sandbox", "bwrap",
                          "--jobs", "2", "--judge", "rules", "--budget-scale", BUDGET_SCALE,
                          "--openai-base-url", provider.base + "/v1", "--anthropic-base-url", provider.base,
                          "--format", "json"]
    for a in agents:
        argv += ["--agent", a]
    logs = dim.work / "logs"
    logs.mkdir(exist_ok=True)
    dim.give(logs)
    b.run = run_step(dim, argv, timeout, logs / f"{name}-run.log")
    if judge and (run_dir / "run.json").exists():
        cache = dim.work / "judge-cache"
        cache.mkdir(exist_ok=True)
        dim.give(cache)
        b.judge = run_step(dim, dim.reclaim + ["judge", str(run_dir), "--judge", "llm", "--judge-model", JUDGE_MODEL,
                                               "--judge-base-url", provider.base + "/v1", "--judge-samples", "1",
                                               "--judge-cache", str(cache), "--jobs", "2"],
                           600, logs / f"{name}-judge.log")
    b.prompts = provider.prompts(provider.batch)
    return b


def mount_tmpfs(dim: Dimension, path: Path, size_mb: int) -> str | None:
    """A small file system for the disk-filling batch; None when mounted, else why not."""
    if os.geteuid() != 0:
        return "needs root to mount a tmpfs of its own (filling the shared disk is not an option)"
    path.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_mb}m,mode=0755", "tmpfs", str(path)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return f"cannot mount a tmpfs: {r.stderr.strip()}"
    dim.give(path)
    return None


def umount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


def drop_big_files(root: Path, limit: int = 16 << 20) -> None:
    """Keep the run folders small once judged: big (or sparse) files go, the records stay."""
    # first very deep trees (an attack's): Python's walkers recurse and fail on them, so do pytest's
    # and everyone's clean-up of old temporary folders; rm does not
    subprocess.run(["find", str(root), "-mindepth", "48", "-maxdepth", "48", "-type", "d", "-prune",
                    "-exec", "rm", "-rf", "{}", "+"], capture_output=True)
    if os.environ.get("RECLAIM_SECURITY_KEEP"):
        return
    for d, _dirs, files in os.walk(root, followlinks=False):
        for name in files:
            p = os.path.join(d, name)
            try:
                if os.lstat(p).st_size > limit:
                    os.unlink(p)
            except OSError:
                pass


def sentinel(dim: Dimension) -> subprocess.Popen:
    """A process outside every sandbox that attacks must not be able to kill."""
    return subprocess.Popen(dim.command(["sleep", "7200"]), env=dim.env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


__all__ = ["TASK", "BatchRun", "Dimension", "invoker", "run_batch", "unprivileged"]
