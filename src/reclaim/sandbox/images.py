"""Which container engine runs here, and the images in its local store: found, identified (a
cached answer for the sandboxes of one trial) and, for a task's Dockerfile, built offline once.
Nothing is pulled: a trial runs only an image already present (sandbox/container.py).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import subprocess
import time
from pathlib import Path

from reclaim.sandbox import engines
from reclaim.sandbox.base import SandboxError


@functools.cache
def _available(name: str | None) -> str | None:
    if name and name not in engines.ENGINES:
        return f"unknown container engine '{name}'; choose one of {', '.join(engines.ENGINES)}"
    engine = engines.find(name)
    if engine is None:
        return (f"{name or 'no container engine'} is not installed here: install podman "
                "(apt-get install podman runc uidmap), docker or apptainer")
    return engines.probe(engine)


def available(engine: str | None = None) -> str | None:
    """None when the engine (named, $RECLAIM_CONTAINER_ENGINE, or the first found) runs here."""
    return _available(engine or os.environ.get("RECLAIM_CONTAINER_ENGINE") or None)


def require_engine(name: str | None) -> engines.Engine:
    """The engine that ``available`` vouches for; SandboxError saying why where none runs."""
    if (why := available(name)) is not None:
        raise SandboxError(why)
    engine = engines.find(name)
    assert engine is not None
    return engine


def image_id(engine: engines.Engine, image: str) -> str | None:
    """The image's content id in the engine's local store (a .sif's path and mtime), None when absent."""
    if engine.name == "apptainer":  # a local .sif; docker:// or oras:// would need the network
        p = Path(image)
        return f"{p.resolve()}@{p.stat().st_mtime_ns}" if p.is_file() else None
    res = subprocess.run(engine.image_exists_argv(image), check=False, capture_output=True, text=True)
    return res.stdout.strip() or image if res.returncode == 0 else None


def image_present(engine: engines.Engine, image: str) -> bool:
    return image_id(engine, image) is not None


_IDS: dict[tuple, tuple[str, float]] = {}
ID_TTL_S = 60.0


def recent_image_id(engine: engines.Engine, image: str) -> str | None:
    """image_id, taken from the last minute's answer when the image was there: every sandbox of a
    trial starts from it, and an image removed since fails its first command as the engine's error."""
    now = time.monotonic()
    hit = _IDS.get((engine, image))
    if hit is not None and now - hit[1] < ID_TTL_S:
        return hit[0]
    found = image_id(engine, image)
    if found is not None:
        _IDS[(engine, image)] = (found, now)
    return found


def ensure_image(dockerfile: Path, context: Path, engine: str | None = None) -> str:
    """Build a task's Dockerfile offline (no network, no pulls), once: the tag is keyed by the
    Dockerfile and the names and sizes of the context's files. Its base images must be present."""
    eng = require_engine(engine)
    if eng.name == "apptainer":
        raise SandboxError("apptainer builds from a definition file, not a Dockerfile: build the .sif "
                           "elsewhere (apptainer build) and name it as the task's image")
    try:
        text = dockerfile.read_bytes()
    except OSError as e:
        raise SandboxError(f"cannot read {dockerfile}: {e}") from None
    h = hashlib.sha256(text)
    for path in sorted(p for p in context.rglob("*") if p.is_file() and not p.is_symlink()):
        h.update(f"{path.relative_to(context)}\0{path.stat().st_size}\0".encode())
    tag = f"localhost/reclaim-task:{h.hexdigest()[:20]}"
    if image_present(eng, tag):
        return tag
    stages: set[str] = set()
    for m in re.finditer(r"^\s*FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?", text.decode("utf-8", "replace"),
                         re.IGNORECASE | re.MULTILINE):
        base, alias = m.group(1), m.group(2)
        if base.lower() != "scratch" and base not in stages and "$" not in base and not image_present(eng, base):
            raise SandboxError(f"{dockerfile}: base image '{base}' is not in {eng.name}'s store and builds run "
                               f"offline: {eng.name} pull {base} (or {eng.name} load -i IMAGE.tar) first")
        if alias:
            stages.add(alias)
    res = subprocess.run(eng.build_argv(tag, str(dockerfile), str(context)), check=False, capture_output=True,
                         text=True)
    if res.returncode != 0:
        raise SandboxError(f"building {dockerfile} failed (offline, --network=none): "
                           f"{(res.stderr or res.stdout).strip()[-2000:]}")
    return tag
