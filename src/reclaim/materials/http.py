"""A file over HTTP(S), pinned by sha256: streamed, resumed with Range, verified, unpacked."""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

import httpx

from reclaim.materials.sources import Transient, no_such_host, problem, with_retries
from reclaim.materials.unpack import archive_kind, unpack

BACKOFF_VAR = "RECLAIM_FETCH_BACKOFF_S"
CHUNK = 1 << 20
TIMEOUT = httpx.Timeout(30.0, read=120.0)


def backoff_s() -> float:
    return float(os.environ.get(BACKOFF_VAR) or 1.0)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(CHUNK):
            h.update(block)
    return h.hexdigest()


class HttpFetcher:
    """``sha256=None`` only for immutable addresses (an arXiv version); the key says which."""

    kind = "http"

    def __init__(self, url: str, sha256: str | None, where: str, downloads: Path, *,
                 name: str | None = None, unpack: bool | None = None, field: str = "http",
                 url_field: str | None = None, sha_field: str | None = None, key: str | None = None):
        self.url, self.sha256, self.where, self.downloads = url, sha256, where, downloads
        self.field = field
        self.url_field = url_field or f"{field}.url"
        self.sha_field = sha_field or f"{field}.sha256"
        self.name = name or unquote(urlparse(url).path.rstrip("/").rsplit("/", 1)[-1]) or "download"
        if "/" in self.name or self.name in (".", "..") or "\0" in self.name:
            raise problem(where, f"{field}.name", f"'{self.name}' is not a plain file name",
                          "give a name without '/' (e.g. data.tar.gz)")
        self.unpack = unpack if unpack is not None else archive_kind(self.name) is not None
        self._key = key or f"http:{sha256}:{'unpack' if self.unpack else self.name}"
        if sha256 is None and key is None:
            raise problem(where, self.sha_field, "no sha256 given, and the suite's lock gives none",
                          "pin the file's sha256, or run reclaim materials lock SUITE where the network reaches it "
                          "(it records every file's sha256 in suite.lock)")

    def key(self) -> str:
        return self._key

    def describe(self) -> str:
        return self.url

    def fetch(self, dest: Path, scratch: Path) -> int:
        self.downloads.mkdir(parents=True, exist_ok=True)
        stem = self.sha256 or hashlib.sha256(self._key.encode()).hexdigest()
        part = self.downloads / f"{stem}.part"
        with open(self.downloads / f"{stem}.lock", "a") as lock:  # another key may share the file
            fcntl.flock(lock, fcntl.LOCK_EX)
            got = [0]
            with httpx.Client(timeout=TIMEOUT, follow_redirects=True) as client:
                try:
                    with_retries(lambda: self._download(client, part, got), base_s=backoff_s())
                except Transient as e:
                    raise problem(self.where, self.url_field, f"{self.url} could not be fetched: {e}",
                                  "check the URL and the network, then fetch again (the download resumes)") from None
            if self.sha256 is not None:
                actual = sha256_file(part)
                if actual != self.sha256:
                    part.unlink()
                    raise problem(self.where, self.sha_field,
                                  f"{self.url} has sha256 {actual}, not the pinned {self.sha256}",
                                  "if the file changed upstream on purpose, check it and pin the new sha256; "
                                  "otherwise point the URL at a copy of the original")
            if self.unpack:
                unpack(part, dest, self.where, f"{self.field}.unpack")
                part.unlink()
            else:
                os.rename(part, dest / self.name)
                os.chmod(dest / self.name, 0o644)
        return got[0]

    def _download(self, client: httpx.Client, part: Path, got: list[int]) -> None:
        offset = part.stat().st_size if part.exists() else 0
        headers = {"Range": f"bytes={offset}-", "Accept-Encoding": "identity"} if offset else \
            {"Accept-Encoding": "identity"}
        try:
            with client.stream("GET", self.url, headers=headers) as r:
                if r.status_code == 416 and offset:  # nothing left to send: the file is complete
                    return
                if r.status_code == 429 or r.status_code >= 500:
                    raise Transient(f"HTTP {r.status_code}")
                if r.status_code not in (200, 206):
                    raise problem(self.where, self.url_field, f"{self.url} answered HTTP {r.status_code}",
                                  "check the URL, or add a mirror that still serves the file")
                mode = "ab"
                if r.status_code == 206:
                    m = re.match(r"bytes (\d+)-", r.headers.get("Content-Range", ""))
                    if not m or int(m.group(1)) != offset:
                        part.unlink(missing_ok=True)
                        raise Transient("the server resumed at another offset")
                else:  # 200: the server ignores Range, or there was nothing to resume
                    mode = "wb"
                with open(part, mode) as fh:
                    for block in r.iter_bytes():  # as it arrives: a drop keeps what came
                        fh.write(block)
                        got[0] += len(block)
        except httpx.TransportError as e:
            if no_such_host(e):
                raise problem(self.where, self.url_field, f"{self.url} could not be fetched: {e}",
                              "check the URL's host and the network") from None
            raise Transient(str(e)) from e
