"""The content-addressed cache of materials: fetched once, verified, read-only, shared.

Layout under the root (``$RECLAIM_MATERIALS_CACHE``, else ``~/.cache/reclaim/materials``)::

    objects/<digest>/        the material's tree: files 0644 (0755 if executable), folders 0755,
                             bound read-only into sandboxes
    objects/<digest>.json    its Manifest; written last, so its presence means complete
    keys/<sha256(key)>.json  a KeyRecord: which object a source's key names, and when it was fetched
    downloads/<sha256>.part  HTTP downloads in progress (resumed with Range)
    locks/, tmp/             per-key flock files; private scratch folders, renamed into place

The digest is the sha256 of the canonical manifest, so two sources with the same content share
one object. Several processes and nodes may share a root: a key is fetched under an exclusive
``flock`` and installed by ``rename``, and a hit takes no lock and reads two small JSON files.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import shutil
import stat
import tempfile
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field

from reclaim.errors import ReclaimError
from reclaim.materials.errors import MaterialsError
from reclaim.materials.git import GitFetcher
from reclaim.materials.http import CHUNK, HttpFetcher
from reclaim.materials.hub import HubFetcher
from reclaim.materials.sources import SKIP, Excluding, LocalSource, Source
from reclaim.spec import MaterialRef

CACHE_VAR = "RECLAIM_MATERIALS_CACHE"
FORMAT = 1


class FileEntry(BaseModel):
    path: str = Field(description="Relative path, '/'-separated.")
    size: int
    sha256: str
    mode: int = Field(description="Permission bits in the object: 0o644, or 0o755 when executable.")


class LinkEntry(BaseModel):
    path: str
    target: str = Field(description="The link's target, as written; it stays inside the material.")


class Manifest(BaseModel):
    """Everything in one object; its canonical JSON's sha256 is the object's digest."""

    format: int = FORMAT
    files: list[FileEntry] = Field(default_factory=list)
    links: list[LinkEntry] = Field(default_factory=list)
    dirs: list[str] = Field(default_factory=list, description="Every folder, so empty ones count too.")
    bytes: int = 0

    def digest(self) -> str:
        canon = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canon.encode()).hexdigest()


class KeyRecord(BaseModel):
    """What a source's key resolved to."""

    key: str
    digest: str
    kind: str
    source: str = Field(description="The source, for people: URL and commit, folder, repository.")
    fetched_at: datetime
    transferred: int = Field(default=0, description="Bytes downloaded or copied to make the object.")


class CachedMaterial(BaseModel):
    """A material in the cache, ready to bind read-only."""

    digest: str
    path: Path = Field(description="objects/<digest>: the read-only tree.")
    files: dict[str, str] = Field(description="Relative path -> sha256 of every file.")
    bytes: int
    source: str
    kind: str
    fetched: bool = Field(default=False, description="Fetched by this call (else found in the cache).")
    transferred: int = Field(default=0, description="Bytes this call downloaded or copied.")


def default_root() -> Path:
    return Path(os.environ.get(CACHE_VAR) or Path.home() / ".cache" / "reclaim" / "materials")


class MaterialCache:
    def __init__(self, root: Path | None = None, offline: bool = False):
        self.root = Path(root) if root is not None else default_root()
        self.offline = offline

    @property
    def downloads(self) -> Path:
        return self.root / "downloads"

    def object_dir(self, digest: str) -> Path:
        return self.root / "objects" / digest

    def source_for(self, ref: MaterialRef, task_dir: Path, where: str) -> Source:
        """The fetcher for a material reference."""
        if ref.path is not None:
            return LocalSource(task_dir, ref.path, where)
        if ref.git is not None:
            return GitFetcher(ref.git, task_dir, where)
        if ref.http is not None:
            h = ref.http
            return HttpFetcher(h.url, h.sha256, where, self.downloads, name=h.name, unpack=h.unpack)
        if ref.hub is not None:
            return HubFetcher(ref.hub, where)
        raise MaterialsError(f"{where}: no source given — fix: give one of path, git, http, hub")

    @property
    def wheels(self) -> Path:
        """The wheelhouse: packages the tasks' environments install, for building them offline
        (``reclaim materials fetch --packages``, or a bundle unpacked here)."""
        return self.root / "wheels"

    def source_of(self, ref: MaterialRef, task_dir: Path, where: str) -> Source:
        """The source of ``ref`` as the cache keys it (its exclusions applied)."""
        source = self.source_for(ref, task_dir, where)
        return Excluding(source, ref.exclude) if ref.exclude else source

    def get(self, ref: MaterialRef, task_dir: Path, where: str) -> CachedMaterial:
        """The material ``ref`` of the task in ``task_dir``, from the cache or fetched into it.
        ``where`` names it in messages, e.g. '.../task.yaml: materials.data'."""
        return self.get_source(self.source_of(ref, task_dir, where))

    def lookup(self, source: Source) -> CachedMaterial | None:
        """The source's material when the cache holds it; never fetches."""
        return self._lookup(key_hash(source))

    def key_record(self, source: Source) -> KeyRecord | None:
        try:
            return KeyRecord.model_validate_json((self.root / "keys" / f"{key_hash(source)}.json").read_bytes())
        except (OSError, ValueError):
            return None

    def adopt(self, tree: Path, rec: KeyRecord, where: str) -> CachedMaterial:
        """Install a tree brought from elsewhere (a bundle) under its key: sealed and hashed here, and
        refused unless its content is the digest the record names."""
        manifest = seal(tree, where)
        digest = manifest.digest()
        if digest != rec.digest:
            raise MaterialsError(f"{where}: its files hash to {digest[:12]}, not to the {rec.digest[:12]} it was "
                                 "packed as: the bundle is damaged or was changed — fix: pack it again")
        for sub in ("objects", "keys", "locks"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        self._install(tree, manifest, digest)
        khash = hashlib.sha256(rec.key.encode()).hexdigest()
        atomic_write(self.root / "keys" / f"{khash}.json", rec.model_dump_json(indent=1))
        found = self._lookup(khash)
        assert found is not None
        return found

    def get_source(self, source: Source) -> CachedMaterial:
        key = source.key()
        khash = hashlib.sha256(key.encode()).hexdigest()
        found = self._lookup(khash)
        if found is not None:
            return found
        if self.offline:
            raise MaterialsError(
                f"{source.where}: {source.describe()} is not in the materials cache {self.root} "
                "and the cache is offline — fix: where the network reaches it, `reclaim materials pack SUITE "
                "--task ID -o bundle.tar.gz`, then here `reclaim materials unpack bundle.tar.gz` (or "
                f"`reclaim materials fetch SUITE` with ${CACHE_VAR} or --cache at this cache, if it is shared)")
        try:
            for sub in ("objects", "keys", "locks", "tmp"):
                (self.root / sub).mkdir(parents=True, exist_ok=True)
            with _flock(self.root / "locks" / f"{khash}.lock"):
                found = self._lookup(khash)  # another process fetched it while we waited
                if found is not None:
                    return found
                return self._fill(source, key, khash)
        except OSError as e:  # a full, read-only or failing disk under the cache: said, nothing half-installed
            if isinstance(e, ReclaimError):
                raise  # a source's own answer (NotFound), already in words
            fix = (f"free space under {self.root} or point ${CACHE_VAR} at a bigger disk"
                   if e.errno in (errno.ENOSPC, errno.EDQUOT) else f"check the disk under {self.root}")
            raise MaterialsError(f"{source.where}: {source.describe()} could not be put in the materials cache "
                                 f"{self.root}: {e.strerror or e} ({e.filename or 'no file named'}); fix: {fix}"
                                 ) from None

    def hand_over(self, digest: str, uid: int, gid: int) -> None:
        """Make an object's files and folders owned by ``uid``:``gid`` (the sandboxes' user), once:
        a copy-on-write view of it (sandbox/overlay.py) lets its owner change a file, which only
        ever changes the trial's upper layer. The object stays read-only to everyone else, and no
        sandbox ever sees it but as a read-only bind or an overlay's lower layer."""
        marker = self.root / "objects" / f"{digest}.owner"
        want = f"{uid}:{gid}\n"
        if _read_text(marker) == want:
            return
        with _flock(self.root / "locks" / f"object-{digest}.lock"):
            if _read_text(marker) == want:
                return
            top = self.object_dir(digest)
            os.lchown(top, uid, gid)
            for d, dirs, files in os.walk(top):
                for name in dirs + files:
                    os.lchown(os.path.join(d, name), uid, gid)
            atomic_write(marker, want)

    def _lookup(self, khash: str) -> CachedMaterial | None:
        try:
            rec = KeyRecord.model_validate_json((self.root / "keys" / f"{khash}.json").read_bytes())
            manifest = Manifest.model_validate_json((self.root / "objects" / f"{rec.digest}.json").read_bytes())
        except FileNotFoundError:
            return None
        path = self.object_dir(rec.digest)
        if not path.is_dir():
            return None
        return CachedMaterial(digest=rec.digest, path=path, files={f.path: f.sha256 for f in manifest.files},
                              bytes=manifest.bytes, source=rec.source, kind=rec.kind)

    def _fill(self, source: Source, key: str, khash: str) -> CachedMaterial:
        scratch = Path(tempfile.mkdtemp(prefix=f"{khash[:12]}-", dir=self.root / "tmp"))
        try:
            tree, work = scratch / "tree", scratch / "work"
            tree.mkdir()
            work.mkdir()
            transferred = source.fetch(tree, work)
            manifest = seal(tree, source.where)
            digest = manifest.digest()
            self._install(tree, manifest, digest)
            rec = KeyRecord(key=key, digest=digest, kind=source.kind, source=source.describe(),
                            fetched_at=datetime.now(UTC), transferred=transferred)
            atomic_write(self.root / "keys" / f"{khash}.json", rec.model_dump_json(indent=1))
        finally:
            rmtree(scratch)
        return CachedMaterial(digest=digest, path=self.object_dir(digest),
                              files={f.path: f.sha256 for f in manifest.files}, bytes=manifest.bytes,
                              source=rec.source, kind=rec.kind, fetched=True, transferred=transferred)

    def _install(self, tree: Path, manifest: Manifest, digest: str) -> None:
        """Move a sealed tree to objects/<digest>, unless the same content is there already."""
        final = self.object_dir(digest)
        meta = self.root / "objects" / f"{digest}.json"
        with _flock(self.root / "locks" / f"object-{digest}.lock"):
            if meta.is_file() and final.is_dir():
                return  # content addressed: another source gave the same bytes
            if final.exists():
                rmtree(final)  # a tree whose manifest never got written: an install that died
            os.rename(tree, final)
            atomic_write(meta, manifest.model_dump_json(indent=1))


def key_hash(source: Source) -> str:
    """The name of a source's key record in keys/."""
    return hashlib.sha256(source.key().encode()).hexdigest()


def seal(tree: Path, where: str) -> Manifest:
    """Hash every file of ``tree``, make it read-only, and describe it. Links must stay inside
    the tree and are never followed; devices, fifos and sockets are refused."""
    files, links, dirs = [], [], []
    total = 0
    stack = [tree]
    order = []
    while stack:
        d = stack.pop()
        order.append(d)
        with os.scandir(d) as it:
            for e in it:
                rel = os.path.relpath(e.path, tree).replace(os.sep, "/")
                s = e.stat(follow_symlinks=False)
                if e.name in SKIP and stat.S_ISDIR(s.st_mode):
                    rmtree(Path(e.path))
                elif stat.S_ISDIR(s.st_mode):
                    dirs.append(rel)
                    stack.append(Path(e.path))
                elif stat.S_ISREG(s.st_mode):
                    # writable by its owner only (the harness): what a sandbox sees is a read-only
                    # bind, and a copy an agent makes of a file is its own to change
                    mode = 0o755 if s.st_mode & 0o111 else 0o644
                    os.chmod(e.path, mode)
                    files.append(FileEntry(path=rel, size=s.st_size, sha256=_sha256(e.path), mode=mode))
                    total += s.st_size
                elif stat.S_ISLNK(s.st_mode):
                    target = os.readlink(e.path)
                    inside = os.path.normpath(os.path.join(os.path.dirname(rel), target))
                    if os.path.isabs(target) or inside == ".." or inside.startswith("../"):
                        raise MaterialsError(f"{where}: '{rel}' is a link to '{target}', outside the material, "
                                             "refused — fix: remove the link, or make it point inside the material")
                    links.append(LinkEntry(path=rel, target=target))
                else:
                    raise MaterialsError(f"{where}: '{rel}' is a device, fifo or socket, refused — fix: remove it")
    for d in reversed(order):
        os.chmod(d, 0o755)
    return Manifest(files=sorted(files, key=lambda f: f.path), links=sorted(links, key=lambda x: x.path),
                    dirs=sorted(dirs), bytes=total)


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(CHUNK):
            h.update(block)
    return h.hexdigest()


def atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def rmtree(path: Path) -> None:
    """Remove a tree that may hold read-only folders."""
    if not path.exists() and not path.is_symlink():
        return
    for d, subdirs, _ in os.walk(path):
        for s in subdirs:
            p = os.path.join(d, s)
            if not os.path.islink(p):
                os.chmod(p, 0o755)
    if not path.is_symlink():
        os.chmod(path, 0o755)
    shutil.rmtree(path)


@contextmanager
def _flock(path: Path):
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
