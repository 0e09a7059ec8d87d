"""Package files the egress proxy has fetched once, served again to every later trial.

A wheel or an sdist on a package index never changes under its URL (PyPI's files live under
their own hash; conda packages under their name and build), so the proxy keeps what it
downloaded and serves it from disk the next time any trial asks: a 3 GB CUDA wheel crosses the
network once per machine, not once per trial. Only the proxy writes here, with bytes it got from
the upstream itself; no sandbox can reach the folder, so no agent can plant a file for another.

    $RECLAIM_PACKAGE_CACHE, else ~/.cache/reclaim/packages:
        <sha256 of the URL>        the file
        <sha256 of the URL>.json   its URL, size and content type, written last
        .part-*                    downloads in progress, one per writer, renamed into place when whole

Several proxies (runs, Slurm jobs on one shared folder) may write one file at once: each writes
its own part and renames it into place, so a reader sees a whole file or none.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import h11

CACHE_VAR = "RECLAIM_PACKAGE_CACHE"
IMMUTABLE = re.compile(r"\.whl$|/packages/.+\.(tar\.gz|zip|tar\.bz2|tgz)$|\.conda$|/-/[^/]+\.tgz$")
"""Paths of files an index never changes: wheels (a wheel's name is its version and build),
PyPI-style /packages/ sdists, conda packages, npm tarballs."""
STALE_PART_S = 3600.0
"""A download part no writer has added to for this long was left by a killed process."""


def default_root() -> Path:
    return Path(os.environ.get(CACHE_VAR) or Path.home() / ".cache" / "reclaim" / "packages")


class PackageCache:
    def __init__(self, root: Path | None = None, max_bytes: int = 64 << 30):
        self.root = Path(root) if root is not None else default_root()
        self.max_bytes = max_bytes

    @staticmethod
    def cacheable(method: str, url: str, headers: list[tuple[str, str]]) -> bool:
        path = url.split("?", 1)[0].split("#", 1)[0]
        return method == "GET" and bool(IMMUTABLE.search(path)) and not any(k == "range" for k, _ in headers)

    def key(self, url: str) -> Path:
        return self.root / hashlib.sha256(url.encode()).hexdigest()

    def lookup(self, url: str) -> tuple[Path, dict] | None:
        """The cached file and its meta, when complete."""
        key = self.key(url)
        try:
            meta = json.loads(key.with_suffix(".json").read_text())
        except (OSError, ValueError):
            return None
        if meta.get("url") != url or not key.is_file() or key.stat().st_size != meta.get("size"):
            return None
        return key, meta

    def writer(self, url: str, content_type: str) -> _Writer | None:
        try:
            self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._sweep_parts()
            return _Writer(self, url, content_type)
        except OSError:
            return None  # a cache that cannot be written is no reason to fail a download


    def _sweep_parts(self) -> None:
        """Remove what killed writers left: parts no process has written to for STALE_PART_S."""
        stale = time.time() - STALE_PART_S
        for part in self.root.glob(".part-*"):
            try:
                if part.lstat().st_mtime < stale:
                    part.unlink()
            except OSError:
                pass  # another process swept it first


async def serve_cached(send: Callable[[object], Awaitable[None]], path: Path, meta: dict) -> int:
    """Answer a request with a cached file, as the upstream would have; returns bytes sent."""
    await send(h11.Response(status_code=200, headers=[
        ("content-type", meta.get("content_type") or "application/octet-stream"),
        ("content-length", str(meta["size"])), ("x-reclaim-package-cache", "hit")]))
    sent = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            sent += len(chunk)
            await send(h11.Data(data=chunk))
    await send(h11.EndOfMessage())
    return sent


class _Writer:
    """Collects one download; installs it only when it arrived whole."""

    def __init__(self, cache: PackageCache, url: str, content_type: str):
        self.cache, self.url, self.content_type = cache, url, content_type
        fd, name = tempfile.mkstemp(dir=cache.root, prefix=".part-")
        self.fh, self.tmp, self.size, self.ok = os.fdopen(fd, "wb"), Path(name), 0, True

    def write(self, chunk: bytes) -> None:
        if not self.ok:
            return
        self.size += len(chunk)
        if self.size > self.cache.max_bytes:
            self.ok = False
            return
        try:
            self.fh.write(chunk)
        except OSError:
            self.ok = False

    def finish(self, expected: int | None) -> None:
        """Install when the body was whole (its length as announced); else drop it."""
        try:
            self.fh.close()
            if self.ok and (expected is None or expected == self.size):
                key = self.cache.key(self.url)
                os.replace(self.tmp, key)
                meta = {"url": self.url, "size": self.size, "content_type": self.content_type}
                fd, name = tempfile.mkstemp(dir=self.cache.root, prefix=".part-meta-")  # one per writer
                with os.fdopen(fd, "w") as out:
                    out.write(json.dumps(meta))
                os.replace(name, key.with_suffix(".json"))
        except OSError:
            pass
        finally:
            self.tmp.unlink(missing_ok=True)
