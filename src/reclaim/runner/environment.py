"""A trial's places to live: its Python environment, a writable home and an on-disk /tmp.

The prepared environment (materials/environment.py) is bound read-only at its own path; the
trial's own environment, its home and its /tmp are folders of the trial, writable by the agent
and counted against its disk budget. The re-execution gets the environment the agent left,
read-only, so reproduce.sh need not install anything again, and a fresh home and /tmp: what the
agent left there is not part of what it hands in.

Under the ``container`` backend a venv built on the host works only where the image has the
same interpreter at the same path: that is checked once per image and interpreter, through the
sandbox, before the agent starts. A task that names its own image (``environment.image`` or
``dockerfile``) and declares no packages runs with the image's own Python instead: the trial's
venv is made inside the image from its ``python3``, seeing the image's packages.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from reclaim.materials import (
    ENV_INSIDE,
    RECORD,
    VENV_INSIDE,
    EnvironmentFailed,
    PreparedEnv,
    pip_scripts,
    prepare,
    sandbox_env,
    trial_venv,
)
from reclaim.sandbox import Backend, Bind, SandboxConfig, image_backend, make_sandbox
from reclaim.spec import Environment, Task
from reclaim.store import write_model
from reclaim.tempdirs import owned_tempdir

HOME_INSIDE = "/home/reclaim"
VENV, HOME, TMP = "venv", "home", "tmp"
OUT_INSIDE = "/run/reclaim-env-out"
CHECK_TIMEOUT_S = 120.0
_VERSION = "import sys; print('%d.%d.%d' % sys.version_info[:3])"
_DESCRIBE = ("import importlib.metadata as m, json, sys, sysconfig; print(json.dumps({'python': sys.executable, "
             "'version': '%d.%d.%d' % sys.version_info[:3], 'prefix': sys.prefix, "
             "'site': sysconfig.get_path('purelib'), "
             "'packages': sorted({d.metadata['Name'] + '==' + d.version "
             "for d in m.distributions() if d.metadata['Name']})}))")
_checked: dict[tuple, str] = {}
"""(image id, interpreter, binds) -> its version: each image is asked once per process."""


@dataclass
class TrialEnv:
    prepared: PreparedEnv
    tdir: Path
    isolated: bool

    @classmethod
    def create(cls, task: Task, tdir: Path, kind: type[Backend], image: str | None = None,
               wheels: Path | None = None, offline: bool = False) -> TrialEnv:
        """Prepare (or take from the cache) the task's environment and make the trial's own.

        ``kind``, ``image``: where the trial runs. Where the backend runs images, the image must hold the
        prepared environment's interpreter at its path and version; or, for a task naming its own
        image and no packages, the image's own Python is the environment. ``wheels``, ``offline``: where
        pip finds packages without the network (materials/environment.py)."""
        records = tdir / "records"
        records.mkdir(exist_ok=True)
        log = records / "environment.log"
        declared = task.spec.environment or Environment()
        isolated = kind.isolated
        own = kind.images and bool(declared.image or declared.dockerfile) and not (
            declared.packages or declared.requirements or declared.host_python)
        try:
            if own:
                env = cls(_image_python(image, declared, tdir / VENV, log), tdir, isolated)
            else:
                env = cls(prepare(task, log=log, wheels=wheels, offline=offline), tdir, isolated)
                if kind.images:
                    env.check_image(image)
                trial_venv(env.prepared, tdir / VENV, env.venv_inside, ENV_INSIDE if isolated else None)
        except EnvironmentFailed as e:
            raise EnvironmentFailed(f"{task.dir / 'task.yaml'}: {e}") from None
        for name in (HOME, TMP):
            (tdir / name).mkdir()
        (tdir / TMP).chmod(0o1777)
        write_model(records / RECORD, env.prepared)
        return env

    def check_image(self, image: str | None) -> None:
        """The image runs the prepared environment's interpreter at its path, at its version
        (asked through the sandbox, once per image and interpreter); else EnvironmentFailed."""
        p, binds = self.prepared, self._shared()
        with _Scratch(image, binds) as (box, out):
            key = (box.image_id, p.python, tuple((str(b.host), b.inside) for b in binds))
            if key in _checked:
                return
            res = box.exec([p.python, "-c", _VERSION], stdout=out / "o", stderr=out / "e", timeout=CHECK_TIMEOUT_S)
            said, err = _text(out / "o").strip(), _text(out / "e").strip()
        fix = (f"fix: use an image with Python {p.python_version} at {p.python}, or declare environment.image "
               "(or dockerfile) with its own Python and no packages")
        if res.exit_code in (126, 127) and not said:
            raise EnvironmentFailed(f"environment.python: the image {image} has no {p.python} ({p.python_version}) "
                                    f"for the prepared environment — {fix}")
        if not res.ok:
            why = "timed out" if res.timed_out else f"exit {res.exit_code}: {err[-300:]}"
            raise EnvironmentFailed(f"environment.python: {p.python} does not run in the image {image} ({why}) — {fix}")
        if _minor(said) != _minor(p.python_version):
            raise EnvironmentFailed(f"environment.python: the image {image} has Python {said or '?'} at {p.python}, "
                                    f"the prepared environment was made with {p.python_version} — {fix}")
        _checked[key] = said

    @property
    def venv_inside(self) -> str:
        return VENV_INSIDE if self.isolated else str((self.tdir / VENV).resolve())

    def _shared(self) -> list[Bind]:
        """The prepared environment at its own path (its scripts name it) and at ENV_INSIDE, which
        the trial's .pth names: a container image may not let the sandbox user through the
        folders above its own path (an image's /root is 0700)."""
        if self.prepared.image is not None:
            return []  # the image's own Python: nothing of the host's
        if self.prepared.host_python:
            return [Bind(Path(p), p) for p in self.prepared.binds]
        env = Path(self.prepared.path)
        return [Bind(env, str(env)), Bind(env, ENV_INSIDE), *(Bind(Path(p), p) for p in self.prepared.binds)]

    def agent_binds(self) -> list[Bind]:
        if not self.isolated:
            return []
        return [*self._shared(), Bind(self.tdir / VENV, VENV_INSIDE, writable=True),
                Bind(self.tdir / HOME, HOME_INSIDE, writable=True)]

    def reexec_binds(self, base: Path) -> list[Bind]:
        """The agent's environment as it left it (read-only) and a fresh home under ``base``."""
        (base / HOME).mkdir(parents=True, exist_ok=True)
        if not self.isolated:
            return []
        return [*self._shared(), Bind(self.tdir / VENV, VENV_INSIDE),
                Bind(base / HOME, HOME_INSIDE, writable=True)]

    def tmp(self, base: Path | None = None) -> Path:
        folder = (base or self.tdir) / TMP
        folder.mkdir(parents=True, exist_ok=True)
        folder.chmod(0o1777)
        return folder

    def env(self, base: Path | None = None) -> dict[str, str]:
        home = HOME_INSIDE if self.isolated else str(((base or self.tdir) / HOME).resolve())
        return sandbox_env(self.venv_inside) | {"HOME": home, "XDG_CACHE_HOME": f"{home}/.cache"}

    def environment_inside(self) -> dict[Path, str]:
        """The agent's own environment (host folder -> its path inside the re-runs' sandboxes)."""
        return {self.tdir / VENV: self.venv_inside} if self.isolated else {}

    def disk_roots(self) -> list[Path]:
        return [self.tdir / VENV, self.tdir / HOME, self.tdir / TMP]


class _Scratch:
    """A throwaway container sandbox of the image with ``binds``: (the sandbox, a folder for output)."""

    def __init__(self, image: str | None, binds: list[Bind]):
        self.image, self.binds = image, binds

    def __enter__(self):
        self.dir = owned_tempdir("env")
        (self.dir / "out").mkdir()
        self.box = make_sandbox(image_backend(),
                                SandboxConfig(self.dir / "ws", binds=list(self.binds), image=self.image))
        try:
            self.box.start()
        except BaseException:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise
        return self.box, self.dir / "out"

    def __exit__(self, *exc) -> None:
        self.box.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def _image_python(image: str | None, declared: Environment, dest: Path, log: Path) -> PreparedEnv:
    """The image's own python3 as the environment: described, and the trial's venv made in the
    image (``--system-site-packages``: the image's packages stay visible; the agent installs over them)."""
    dest.mkdir()
    out_dir = owned_tempdir("env-out")
    script = (f'set -e; python3 -c "{_DESCRIBE}" > {OUT_INSIDE}/describe.json; '
              f"python3 -m venv --without-pip --system-site-packages {VENV_INSIDE}")
    try:
        binds = [Bind(dest, VENV_INSIDE, writable=True), Bind(out_dir, OUT_INSIDE, writable=True)]
        with _Scratch(image, binds) as (box, out):
            res = box.exec(["/bin/sh", "-c", script], stdout=out / "o", stderr=out / "e", timeout=CHECK_TIMEOUT_S)
            image_id = box.image_id or str(image)
            err = _text(out / "e")
            with open(log, "a", encoding="utf-8") as fh:
                fh.write(f"$ (in {image}) {script}\n{_text(out / 'o')}{err}\n")
        info = json.loads(_text(out_dir / "describe.json") or "{}") if res.ok else {}
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
    if not res.ok:
        what = "has no python3" if res.exit_code == 127 or "python3: not found" in err else \
            f"cannot make a virtual environment with its python3 ({err.strip()[-300:]})"
        raise EnvironmentFailed(f"environment: the image {image} {what} — fix: install python3 (with its venv "
                                "module) in the image, or declare environment.packages for a Python prepared "
                                "on the host")
    if declared.python and _minor(info["version"]) != declared.python:
        raise EnvironmentFailed(f"environment.python: {declared.python} declared, but the image {image} has Python "
                                f"{info['version']} — fix: declare {_minor(info['version'])}, or use an image with "
                                f"Python {declared.python}")
    pip_scripts(dest / "bin")
    key = hashlib.sha256(json.dumps({"image": image_id, "python": info["python"]}).encode()).hexdigest()[:32]
    return PreparedEnv(key=key, path=info["prefix"], python=info["python"], python_version=info["version"],
                       site_packages=info["site"], declared=declared.model_dump(exclude_defaults=True),
                       packages=info["packages"], image=str(image), cached=True)


def _text(path: Path) -> str:
    try:
        return path.read_text(errors="replace")[: 1 << 20]
    except OSError:
        return ""


def _minor(version: str) -> str:
    return ".".join(version.strip().split(".")[:2])


def environment_note(p: PreparedEnv) -> str:
    """One line for the trace: what the agent was given to run with."""
    if p.image is not None:
        shown = ", ".join(p.packages[:30]) + (f" and {len(p.packages) - 30} more" if len(p.packages) > 30 else "")
        return (f"environment: the image's own Python {p.python_version} ({p.python} in {p.image}) and its "
                f"packages ({shown or 'none'}); a writable environment at {VENV_INSIDE}, made in the image, "
                "for the agent's own installs")
    if p.host_python:
        return f"environment: reclaim's own Python {p.python_version} and its packages (host_python: true)"
    given = [x for x in p.packages if not x.startswith("pip==")]
    return (f"environment {p.key[:12]} ({'cached' if p.cached else f'prepared in {p.prepared_s:.1f} s'}): "
            f"Python {p.python_version} ({p.python}); " + (f"given: {', '.join(given[:30])}"
            + (f" and {len(given) - 30} more" if len(given) > 30 else "") if given else "no packages given")
            + f"; a writable environment at {VENV_INSIDE} for the agent's own installs")


__all__ = ["HOME_INSIDE", "EnvironmentFailed", "TrialEnv", "environment_note"]
