"""The Python a trial runs with: prepared once per declaration, cached, recorded, layered.

A task's ``environment:`` (a Python version, packages, a requirements file) is installed once
into a virtual environment under the cache, keyed by the declaration and the interpreter, and
bound read-only into every trial at its own path (pip writes absolute paths into scripts).
Each trial then gets a writable virtual environment of its own at ``VENV_INSIDE``, layered over
the prepared one by a ``.pth`` file: the agent can ``pip install`` what it needs, and what the
harness gave stays as it was. Without a declaration a trial gets the system's Python with pip
and nothing else: reclaim's own interpreter and the host's wheel folders stay out unless the
task asks for them (``host_python: true``).
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from pydantic import BaseModel, Field

from reclaim.errors import MaterialsError
from reclaim.materials.requirements import cpu_index_args, cuda_packages, through_mirrors, tree_mb
from reclaim.spec import Environment, Task

ENVS_VAR = "RECLAIM_ENVS_CACHE"
PYTHONS_VAR = "RECLAIM_PYTHONS"
VENV_INSIDE = "/opt/reclaim/venv"
ENV_INSIDE = "/opt/reclaim/env"
"""The prepared environment, also bound here: a path every image lets the sandbox user reach."""
TEMPLATE = "trial-venv"
DONE = ".reclaim-complete"
RECORD = "environment.json"
INSTALL_TIMEOUT_S = 3600.0
LAYER_PTH = "_reclaim_environment.pth"


class EnvironmentFailed(MaterialsError):
    """The declared environment could not be prepared: the suite's problem, not the agent's."""


class PreparedEnv(BaseModel):
    """What the harness gave a trial to run with; kept in the trial's records."""

    key: str = Field(description="sha256 of the declaration and the interpreter: the cache entry.")
    path: str = Field(description="The prepared virtual environment (bound read-only at this path).")
    python: str = Field(description="The base interpreter.")
    python_version: str
    site_packages: str
    declared: dict = Field(default_factory=dict, description="The task's environment: as written.")
    packages: list[str] = Field(default_factory=list, description="pip freeze of what was installed.")
    binds: list[str] = Field(default_factory=list, description="Host folders bound read-only at their own path.")
    host_python: bool = False
    image: str | None = Field(default=None, description="The container image whose own Python this is "
                              "(nothing prepared on the host; the trial's venv was made inside it).")
    prepared_s: float = 0.0
    cached: bool = False
    size_mb: float | None = Field(default=None, description="What the prepared environment holds on disk.")
    cuda_packages: list[str] = Field(default_factory=list, description="CUDA's distributions among what was "
                                     "installed (nvidia-*, a +cu torch): none belong to a task with no GPU.")
    pip_args: list[str] = Field(default_factory=list, description="What pip was given beyond the requirements "
                                "(PyTorch's CPU index for a task with no GPU).")


def envs_root() -> Path:
    return Path(os.environ.get(ENVS_VAR) or Path.home() / ".cache" / "reclaim" / "envs")


def _version_of(python: Path) -> str:
    """The interpreter's version, asked once a process for each file it is (a new install asks again)."""
    real = Path(python).resolve()
    try:
        st = real.stat()
    except OSError as e:
        raise EnvironmentFailed(f"{python} does not run: {e}") from None
    return _asked_version(str(real), st.st_ino, st.st_size, st.st_mtime_ns)


@functools.cache
def _asked_version(python: str, _ino: int, _size: int, _mtime_ns: int) -> str:
    out = subprocess.run([str(python), "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
                         capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise EnvironmentFailed(f"{python} does not run: {out.stderr.strip()[-300:]}")
    return out.stdout.strip()


def candidates() -> list[Path]:
    """Interpreters this host offers: $RECLAIM_PYTHONS, the system's, /usr/local, pyenv's."""
    found = [Path(p) for p in os.environ.get(PYTHONS_VAR, "").split(":") if p]
    found += sorted(Path("/usr/bin").glob("python3.[0-9]*")) + sorted(Path("/usr/local/bin").glob("python3.[0-9]*"))
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    found += sorted(pyenv.glob("3.*/bin/python3"))
    return [p for p in found if re.search(r"python3(\.\d+)?$", p.name) and os.access(p, os.X_OK)]


def find_python(version: str | None) -> Path:
    """The interpreter for ``version`` ('3.11'); default the system's python3."""
    if version is None:
        defaults = (Path("/usr/bin/python3"), Path(sys.base_prefix) / "bin" / "python3")
        for p in defaults:
            if p.exists():
                return p
        raise EnvironmentFailed(f"environment: no python3 on this host (neither {' nor '.join(map(str, defaults))}); "
                                "declare environment.python, or install python3")
    for p in candidates():
        if _version_of(p).startswith(version + "."):
            return p
    if (uv := shutil.which("uv")) is not None:  # uv's own interpreters: found, else installed once
        for args in (["python", "find", version], ["python", "install", version], ["python", "find", version]):
            out = subprocess.run([uv, *args], capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
            if args[1] == "find" and out.returncode == 0 and out.stdout.strip():
                return Path(out.stdout.strip().splitlines()[-1])
    seen = sorted({_version_of(p).rsplit(".", 1)[0] for p in candidates()})
    raise EnvironmentFailed(
        f"environment.python: no Python {version} on this host (found {', '.join(seen) or 'none'}"
        f"{'' if shutil.which('uv') else '; uv is not installed'}); install it (uv python install {version}, "
        f"pyenv install {version}), list its interpreter in ${PYTHONS_VAR}, or declare one of those versions")


def _prefix_binds(python: Path) -> list[str]:
    """Folders the interpreter lives in that a sandbox does not already show (it shows /usr)."""
    real = python.resolve()
    prefix = real.parent.parent
    return [] if str(prefix).startswith("/usr") else [str(prefix)]


def _requirements(env: Environment, task_dir: Path) -> tuple[list[str], str]:
    """The packages and the requirements file's text, git URLs through the git mirrors."""
    reqs = [through_mirrors(p) for p in env.packages]
    text = ""
    if env.requirements:
        text = through_mirrors((task_dir / env.requirements).read_text(encoding="utf-8"))
    return reqs, text


def _check_system(env: Environment) -> None:
    missing = []
    for pkg in env.system:
        q = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg], capture_output=True, text=True)
        if "install ok installed" not in q.stdout:
            missing.append(pkg)
    if missing:
        raise EnvironmentFailed(
            f"environment.system: {', '.join(missing)} not installed on this host; install them "
            "(apt-get install ...) or run with --sandbox container and an image that has them")


class Plan(BaseModel):
    """What a task's environment is built from, and the cache key that names it."""

    python: Path
    version: str
    packages: list[str]
    requirements: str
    pip_args: list[str]
    key: str


def plan(task: Task) -> Plan:
    """The interpreter, requirements and key of a task's declared environment (nothing built)."""
    env = task.spec.environment or Environment()
    python = find_python(env.python)
    version = _version_of(python)
    packages, req_text = _requirements(env, task.dir)
    extra = cpu_index_args(packages, req_text, task.spec.budget.gpus)
    key = hashlib.sha256(json.dumps({"python": str(python), "version": version, "packages": packages,
                                     "requirements": req_text, **({"pip": extra} if extra else {})},
                                    sort_keys=True).encode()).hexdigest()
    return Plan(python=python, version=version, packages=packages, requirements=req_text, pip_args=extra,
                key=key)


def built(task: Task, root: Path | None = None) -> bool:
    """Whether the task's environment is already prepared in the cache (or needs none)."""
    if (task.spec.environment or Environment()).host_python:
        return True
    return _complete((root or envs_root()) / plan(task).key[:32]) is not None


def prepare(task: Task, root: Path | None = None, log: Path | None = None, wheels: Path | None = None,
            offline: bool = False) -> PreparedEnv:
    """The task's environment, built now or taken from the cache; safe across processes. ``wheels``:
    a wheelhouse pip also looks in (the materials cache's, filled by a bundle); ``offline``: pip looks
    nowhere else. Neither changes the key: the same requirements give the same environment."""
    env = task.spec.environment or Environment()
    if env.host_python:
        return _host(env)
    if env.system and not (env.image or env.dockerfile):
        _check_system(env)
    p = plan(task)
    declared = env.model_dump(exclude_defaults=True)
    root = root or envs_root()
    root.mkdir(parents=True, exist_ok=True)
    path = root / p.key[:32]
    local = [*(["--find-links", str(wheels)] if wheels is not None and wheels.is_dir() else []),
             *(["--no-index"] if offline else [])]
    with open(root / f"{p.key[:32]}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        t0 = time.perf_counter()
        record = _complete(path)
        cached = record is not None
        if record is None:  # never built, or a build that died half-way (its record missing or torn)
            try:
                _build(path, p.python, p.packages, p.requirements, log, p.pip_args, local)
            except EnvironmentFailed as e:
                if not offline:
                    raise
                raise EnvironmentFailed(f"{e}; offline, pip looks only in the wheelhouse {wheels} — fix: where "
                                        "the network is, `reclaim materials pack SUITE --task ID -o BUNDLE` (it "
                                        "downloads the packages), then here `reclaim materials unpack BUNDLE`"
                                        ) from None
            record = PreparedEnv.model_validate_json((path / DONE).read_text())
    return record.model_copy(update={"declared": declared, "cached": cached,
                                     "prepared_s": 0.0 if cached else round(time.perf_counter() - t0, 3)})


def _run(cmd: list[str], log: Path | None, what: str) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S,
                             env=os.environ | {"PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    except subprocess.TimeoutExpired:
        raise EnvironmentFailed(f"{what} ran over {INSTALL_TIMEOUT_S:.0f} s") from None
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(f"$ {' '.join(cmd)}\n{out.stdout}{out.stderr}\n")
    if out.returncode != 0:
        tail = (out.stderr or out.stdout).strip().splitlines()[-6:]
        raise EnvironmentFailed(f"{what} failed (exit {out.returncode}): " + " | ".join(tail))
    return out.stdout


def _build(path: Path, python: Path, packages: list[str], req_text: str, log: Path | None,
           extra: list[str] | None = None, local: list[str] | None = None) -> None:
    shutil.rmtree(path, ignore_errors=True)  # a build that died half-way starts over
    _run([str(python), "-m", "venv", "--without-pip", str(path)], log, "creating the environment")
    env_python = path / "bin" / "python"
    # the harness's pip installs into the new environment, with this host's pip configuration
    pip = [sys.executable, "-m", "pip", "--python", str(env_python), "install", "--no-input", *(extra or []),
           *(local or []), "pip"]
    if req_text:
        (path / "requirements.txt").write_text(req_text, encoding="utf-8")
        pip += ["-r", str(path / "requirements.txt")]
    _run(pip + packages, log, f"installing {', '.join(['pip', *packages]) + (' and requirements' if req_text else '')}")
    site = _run([str(env_python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], log,
                "locating site-packages").strip()
    freeze = _run([str(env_python), "-m", "pip", "freeze", "--all"], log, "listing what was installed")
    _template(path, python, site)
    for p in [path, *path.rglob("*")]:  # readable by the sandbox's unprivileged user, writable by none
        if not p.is_symlink():
            p.chmod((p.stat().st_mode | 0o444 | (0o111 if p.is_dir() else 0)) & ~0o022)
    record = PreparedEnv(key=path.name, path=str(path), python=str(python), python_version=_version_of(python),
                         site_packages=site, packages=freeze.split(), binds=_prefix_binds(python),
                         size_mb=tree_mb(path), cuda_packages=cuda_packages(freeze.split()), pip_args=extra or [])
    part = path / f"{DONE}.part"
    part.write_text(record.model_dump_json(indent=1))
    os.replace(part, path / DONE)  # the record appears whole or not at all: a kill here leaves a build to redo


def _complete(path: Path) -> PreparedEnv | None:
    """The record of a finished build at ``path``; None where there is none or it does not read."""
    try:
        return PreparedEnv.model_validate_json((path / DONE).read_text())
    except (OSError, ValueError):
        return None


def pip_scripts(bin_dir: Path) -> None:
    """pip and pip3 as the environment's own ``python -m pip``: no absolute path baked in."""
    for name in ("pip", "pip3"):
        script = bin_dir / name
        script.unlink(missing_ok=True)
        script.write_text("#!/bin/sh\nexec \"$(dirname \"$0\")/python\" -m pip \"$@\"\n")
        script.chmod(0o755)


def _template(path: Path, python: Path, site: str) -> None:
    """The trial's own environment, made once: copied per trial, named by where it is bound."""
    tpl = path / TEMPLATE
    _run([str(python), "-m", "venv", "--without-pip", str(tpl)], None, "creating the trial environment")
    inner_site = Path(site.replace(str(path), str(tpl), 1))
    (inner_site / LAYER_PTH).write_text(site + "\n")
    pip_scripts(tpl / "bin")


def _host(env: Environment) -> PreparedEnv:
    """reclaim's own interpreter and its packages, as older suites expect."""
    site = next(p for p in sys.path if p.endswith("site-packages") and p.startswith(sys.prefix))
    return PreparedEnv(key="host", path=sys.prefix, python=sys.executable, python_version=sys.version.split()[0],
                       site_packages=site, declared=env.model_dump(exclude_defaults=True),
                       binds=sorted({str(Path(d).resolve()) for d in (sys.prefix, sys.base_prefix)
                                  if not str(Path(d).resolve()).startswith("/usr/")}), host_python=True, cached=True)


def trial_venv(prepared: PreparedEnv, dest: Path, inside: str = VENV_INSIDE, env_inside: str | None = None) -> None:
    """A writable environment for one trial at ``dest``, as it will be seen at ``inside``;
    ``env_inside``: where the prepared environment is bound (default: at its own path)."""
    if prepared.host_python:
        _run([sys.executable, "-m", "venv", "--without-pip", str(dest)], None, "creating the trial environment")
        site = Path(dest, "lib", f"python{sys.version_info[0]}.{sys.version_info[1]}", "site-packages")
        (site / LAYER_PTH).write_text(prepared.site_packages + "\n")
        pip_scripts(dest / "bin")
    else:
        shutil.copytree(Path(prepared.path) / TEMPLATE, dest, symlinks=True)
    tpl = str(Path(prepared.path) / TEMPLATE) if not prepared.host_python else str(dest)
    for f in (dest / "bin").iterdir():  # activate scripts name the environment's own path
        if f.name.startswith("activate") and f.is_file() and not f.is_symlink():
            f.write_text(f.read_text(encoding="utf-8").replace(tpl, inside), encoding="utf-8")
    cfg = dest / "pyvenv.cfg"
    cfg.write_text(cfg.read_text(encoding="utf-8").replace(tpl, inside), encoding="utf-8")
    if env_inside is not None and not prepared.host_python:
        for pth in dest.glob(f"lib/python3*/site-packages/{LAYER_PTH}"):
            pth.write_text(prepared.site_packages.replace(prepared.path, env_inside, 1) + "\n")


def sandbox_env(inside: str = VENV_INSIDE) -> dict[str, str]:
    """The variables that make the trial's environment the one programs find first."""
    return {"VIRTUAL_ENV": inside, "PATH": f"{inside}/bin:/usr/local/bin:/usr/bin:/bin",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
