"""HTTP for curation: polite (a minimum interval per host), patient (retries with backoff on 429
and 5xx, honouring Retry-After), and remembered (every answer kept on disk, so a rerun makes no
request it made before; ``offline`` answers from that cache alone).

The cache is keyed by method, URL and parameters, and holds status, content type and body; only
answers worth keeping (2xx, 404, 410) are stored, never a 429 or a 5xx."""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel

from reclaim.errors import CurateError

KEPT = {200, 203, 204, 206, 404, 410}
RETRIED = {429, 500, 502, 503, 504}


class FetchError(CurateError):
    """A request that failed after its retries, or that the cache cannot answer offline."""


class Answer(BaseModel):
    url: str
    status: int
    content_type: str = ""
    body: bytes = b""
    from_cache: bool = False

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    # shadows pydantic's deprecated v1 BaseModel.json() on purpose: the body parsed, as httpx's Response.json()
    def json(self) -> Any:  # type: ignore[override]
        return json.loads(self.body)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


def default_cache() -> Path:
    base = os.environ.get("RECLAIM_CURATE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "reclaim", "curate")
    return Path(base)


class Fetcher:
    """GET with a per-host pace, retries and an on-disk cache. ``requests`` counts what went out."""

    def __init__(self, cache: Path | None = None, *, offline: bool = False, min_interval: float = 1.0,
                 retries: int = 5, backoff: float = 1.0, timeout: float = 30.0,
                 headers: dict[str, str] | None = None, sleep: Callable[[float], None] = time.sleep):
        self.cache = Path(cache) if cache is not None else default_cache()
        self.offline = offline
        self.min_interval = min_interval
        self.retries = retries
        self.backoff = backoff
        self.sleep = sleep
        self.requests = 0
        self._last: dict[str, float] = {}
        self._lock = threading.Lock()
        self._client = httpx.Client(timeout=timeout, follow_redirects=True,
                                    headers={"User-Agent": "reclaim-curate (benchmark curation)", **(headers or {})})

    def close(self) -> None:
        self._client.close()

    def _key(self, url: str, params: dict | None) -> Path:
        raw = json.dumps(["GET", url, sorted((params or {}).items())], default=str)
        h = hashlib.sha256(raw.encode()).hexdigest()
        return self.cache / h[:2] / h

    def _pace(self, url: str) -> None:
        host = urlsplit(url).netloc
        with self._lock:
            wait = self._last.get(host, 0.0) + self.min_interval - time.monotonic()
            if wait > 0:
                self.sleep(wait)
            self._last[host] = time.monotonic()

    def get(self, url: str, params: dict | None = None) -> Answer:
        key = self._key(url, params)
        meta = key.with_suffix(".json")
        if meta.is_file():
            info = json.loads(meta.read_text())
            return Answer(url=url, status=info["status"], content_type=info.get("content_type", ""),
                          body=key.with_suffix(".body").read_bytes(), from_cache=True)
        if self.offline:
            raise FetchError(f"{url}: not in the curation cache ({self.cache}) and --offline was given; "
                             "run once online to fill it")
        last = ""
        for attempt in range(self.retries + 1):
            self._pace(url)
            self.requests += 1
            try:
                r = self._client.get(url, params=params)
            except httpx.HTTPError as e:
                last = f"{type(e).__name__}: {e}"
            else:
                if r.status_code not in RETRIED:
                    answer = Answer(url=url, status=r.status_code, content_type=r.headers.get("content-type", ""),
                                    body=r.content)
                    if r.status_code in KEPT:
                        self._store(key, answer)
                    return answer
                last = f"HTTP {r.status_code}"
                after = r.headers.get("retry-after", "")
                if after.isdigit():
                    self.sleep(min(float(after), 120.0))
                    continue
            if attempt < self.retries:
                self.sleep(self.backoff * 2 ** attempt)
        raise FetchError(f"{url}: {last} after {self.retries + 1} tries")

    def _store(self, key: Path, answer: Answer) -> None:
        key.parent.mkdir(parents=True, exist_ok=True)
        tmp = key.with_suffix(f".tmp{os.getpid()}")
        tmp.write_bytes(answer.body)
        os.replace(tmp, key.with_suffix(".body"))
        tmp.write_text(json.dumps({"url": answer.url, "status": answer.status, "content_type": answer.content_type}))
        os.replace(tmp, key.with_suffix(".json"))  # last: a cache entry is whole or absent
