"""A suite's materials as one portable file: packed where the network is, unpacked where it is not.

A bundle is a gzip'd tar laid out as the materials cache itself (materials/cache.py), so unpacking
is installing into a cache, and a folder it was unpacked into is a cache (``--materials-cache``,
``$RECLAIM_MATERIALS_CACHE``; a shared file system works the same)::

    bundle.json                  BundleManifest: what it holds, what it lacks and why, checksums
    keys/<sha256(key)>.json      which object each source's key names
    objects/<digest>/...         each material's tree; objects/<digest>.json its manifest
    wheels/*                     the packages the tasks' environments install (materials/wheels.py)

Nothing in a bundle is trusted on the way in: every object is hashed again and must be the digest
its key record names, every wheel must match its sha256, and members are extracted with tarfile's
``data`` filter (no links out, no devices, no absolute paths).
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import tarfile
import tempfile
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field

from reclaim.materials.cache import KeyRecord, MaterialCache, key_hash, rmtree, seal
from reclaim.materials.errors import MaterialsError
from reclaim.materials.paper import extracted_text, pdf_source
from reclaim.materials.prefetch import KINDS
from reclaim.materials.sources import LocalSource, Source
from reclaim.materials.wheels import Wheel, download, listed, missing, sha256_file
from reclaim.spec import Task

MANIFEST = "bundle.json"
FORMAT = 1


class Item(BaseModel):
    task: str
    name: str = Field(description="code, data, weights or paper.")
    kind: str = Field(description="git, http, hub or path.")
    source: str = Field(description="Where it comes from, for people.")
    key: str = Field(description="The name of its key record: keys/<key>.json.")
    digest: str = Field(description="The object it names: objects/<digest>.")
    bytes: int


class Lack(BaseModel):
    task: str
    name: str = Field(description="code, data, weights, paper or packages.")
    why: str


class BundleManifest(BaseModel):
    """bundle.json: what a bundle holds, for people and for the checks of ``unpack``."""

    format: int = FORMAT
    suite: str
    suite_version: str
    created: datetime
    tasks: list[str]
    items: list[Item] = Field(default_factory=list)
    wheels: list[Wheel] = Field(default_factory=list)
    lacks: list[Lack] = Field(default_factory=list)

    @property
    def bytes(self) -> int:
        return sum({i.digest: i.bytes for i in self.items}.values()) + sum(w.bytes for w in self.wheels)


def sources(task: Task, cache: MaterialCache) -> tuple[list[tuple[str, Source]], list[tuple[str, str]]]:
    """Every source a run of the task reads from the cache: each material it names (those its level
    withholds too: the re-executions and other levels use them) and its paper's PDF, unless the task
    has its own text; and the items whose source cannot even be named (an unpinned file: why).
    Task-relative folders travel with the suite and are left out."""
    spec, where = task.spec, str(task.dir / "task.yaml")
    out: list[tuple[str, Source]] = []
    bad: list[tuple[str, str]] = []
    for name in KINDS:
        ref = spec.materials.refs().get(name)
        if ref is not None and ref.path is None:
            try:
                out.append((name, cache.source_of(ref, task.dir, f"{where}: materials.{name}")))
            except MaterialsError as e:
                bad.append((name, str(e)))
    if not (task.dir / spec.paper.text).is_file():
        try:
            pdf = pdf_source(spec.paper, task.dir, cache, f"{where}: paper")
        except MaterialsError as e:
            bad.append(("paper", str(e)))
        else:
            if pdf is not None and not isinstance(pdf, LocalSource):
                out.append(("paper", pdf))
    return out, bad


def collect(suite_name: str, suite_version: str, tasks: Iterable[Task], cache: MaterialCache,
            packages: bool = True, say: Callable[[str], None] = lambda _: None) -> BundleManifest:
    """Everything the tasks need, fetched into ``cache`` (unless it is offline) and listed: what could
    not be had is a Lack, with the reason, never a silent gap."""
    tasks = list(tasks)
    wanted: set[str] = set()
    m = BundleManifest(suite=suite_name, suite_version=suite_version, created=datetime.now(UTC),
                       tasks=[t.id for t in tasks])
    for task in tasks:
        named, bad = sources(task, cache)
        for name, problem in bad:
            m.lacks.append(Lack(task=task.id, name=name, why=problem))
            say(f"✗ {task.id} {name}: {problem}")
        for name, source in named:
            try:
                got = cache.get_source(source)
                if name == "paper":
                    extracted_text(got, source.where)
            except MaterialsError as e:
                m.lacks.append(Lack(task=task.id, name=name, why=str(e)))
                say(f"✗ {task.id} {name}: {e}")
                continue
            m.items.append(Item(task=task.id, name=name, kind=got.kind, source=got.source, key=key_hash(source),
                                digest=got.digest, bytes=got.bytes))
            say(f"✓ {task.id} {name}: {got.source}")
        if not packages:
            continue
        files: list[str] = []
        why: str | None = None
        if not cache.offline:
            files, why = download(task, cache.wheels)
        wanted |= set(files)
        gaps = missing(task, cache.wheels)
        if why or gaps:
            m.lacks.append(Lack(task=task.id, name="packages",
                                why=why or f"not in the wheelhouse {cache.wheels}: {', '.join(gaps)}"))
            say(f"✗ {task.id} packages: {why or ', '.join(gaps)}")
        else:
            say(f"✓ {task.id} packages")
    if packages:  # offline, what pip would take cannot be told: the whole wheelhouse goes
        m.wheels = listed(cache.wheels, None if cache.offline else wanted)
    return m


def pack(m: BundleManifest, cache: MaterialCache, out: Path) -> Path:
    """Write the bundle ``m`` lists, from ``cache``, to ``out`` (replaced whole, or left as it was)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    os.close(fd)
    try:
        with tarfile.open(tmp, "w:gz") as tar:
            body = m.model_dump_json(indent=1).encode()
            info = tarfile.TarInfo(MANIFEST)
            info.size, info.mtime, info.mode = len(body), int(m.created.timestamp()), 0o644
            tar.addfile(info, io.BytesIO(body))
            for digest in sorted({i.digest for i in m.items}):
                tar.add(cache.root / "objects" / f"{digest}.json", f"objects/{digest}.json")
                tar.add(cache.object_dir(digest), f"objects/{digest}")
            for key in sorted({i.key for i in m.items}):
                tar.add(cache.root / "keys" / f"{key}.json", f"keys/{key}.json")
            for w in m.wheels:
                tar.add(cache.wheels / w.file, f"wheels/{w.file}")
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return out


def read_manifest(bundle: Path) -> BundleManifest:
    try:
        with tarfile.open(bundle, "r:gz") as tar:
            member = tar.extractfile(MANIFEST)
            if member is None:
                raise KeyError(MANIFEST)
            return BundleManifest.model_validate_json(member.read())
    except (OSError, tarfile.TarError, KeyError, ValueError) as e:
        raise MaterialsError(f"{bundle}: not a reclaim bundle ({e}) — fix: make one with "
                             "`reclaim materials pack SUITE -o BUNDLE`") from None


def unpack(bundle: Path, cache: MaterialCache) -> BundleManifest:
    """Install a bundle's objects, keys and wheels into ``cache``, each checked; returns its manifest."""
    m = read_manifest(bundle)
    for sub in ("objects", "keys", "locks", "tmp"):
        (cache.root / sub).mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="bundle-", dir=cache.root / "tmp"))
    try:
        with tarfile.open(bundle, "r:gz") as tar:
            tar.extractall(scratch, filter="data")
        keys = sorted({i.key for i in m.items})
        records = [_checked_key(scratch, key, bundle) for key in keys]  # every one checked before any is installed
        for rec in records:
            cache.adopt(scratch / "objects" / rec.digest, rec, f"{bundle}: objects/{rec.digest}")
        wheels = scratch / "wheels"
        for w in m.wheels:
            f = wheels / w.file
            if not f.is_file() or sha256_file(f) != w.sha256:
                raise MaterialsError(f"{bundle}: wheels/{w.file} is missing or does not match its sha256 — "
                                     "fix: pack the bundle again")
        if m.wheels:
            cache.wheels.mkdir(parents=True, exist_ok=True)
            for w in m.wheels:
                if not (cache.wheels / w.file).is_file():
                    shutil.move(wheels / w.file, cache.wheels / w.file)
    finally:
        rmtree(scratch)
    return m


def _checked_key(scratch: Path, key: str, bundle: Path) -> KeyRecord:
    """A key record of the bundle and its object, checked: the record names the key its file name
    hashes, and the object's files hash to the digest it names. A paper's text is not taken from a
    bundle: it is extracted again from its PDF."""
    where = f"{bundle}: keys/{key}.json"
    try:
        rec = KeyRecord.model_validate_json((scratch / "keys" / f"{key}.json").read_bytes())
    except (OSError, ValueError) as e:
        raise MaterialsError(f"{where}: unreadable ({e}) — fix: pack the bundle again") from None
    if hashlib.sha256(rec.key.encode()).hexdigest() != key:
        raise MaterialsError(f"{where}: names another key than its file name says — fix: pack the bundle again")
    tree = scratch / "objects" / rec.digest
    if not tree.is_dir():
        raise MaterialsError(f"{where}: its object {rec.digest[:12]} is not in the bundle — fix: pack it again")
    digest = seal(tree, where).digest()
    if digest != rec.digest:
        raise MaterialsError(f"{where}: its files hash to {digest[:12]}, not to the {rec.digest[:12]} it was "
                             "packed as: the bundle is damaged or was changed — fix: pack it again")
    return rec
