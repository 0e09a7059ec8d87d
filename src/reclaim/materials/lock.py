"""Making a suite's lock: every file a task fetches over HTTP read once, its sha256 recorded in
suite.lock (spec/lock.py), so that later fetches, here or on a cluster, must match it."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable

import httpx

import reclaim
from reclaim.materials.http import TIMEOUT, backoff_s
from reclaim.materials.sources import Transient, with_retries
from reclaim.spec import Suite
from reclaim.spec.lock import LockedFile, SuiteLock, lock_key


def sha256_of_url(url: str) -> str:
    """Stream the file once and hash it; Transient on a 429, a 5xx or a dropped connection."""
    def once() -> str:
        h = hashlib.sha256()
        try:
            with httpx.Client(timeout=TIMEOUT, follow_redirects=True) as client, \
                    client.stream("GET", url, headers={"Accept-Encoding": "identity"}) as r:
                if r.status_code == 429 or r.status_code >= 500:
                    raise Transient(f"HTTP {r.status_code}")
                if r.status_code != 200:
                    raise ValueError(f"{url} answered HTTP {r.status_code}")
                for block in r.iter_bytes(1 << 20):
                    h.update(block)
        except httpx.TransportError as e:
            raise Transient(str(e) or type(e).__name__) from None
        return h.hexdigest()

    return with_retries(once, base_s=backoff_s())


def make_lock(suite: Suite, progress: Callable[[str, str, str], None] = lambda key, url, sha: None
              ) -> tuple[SuiteLock, list[str]]:
    """The lock of every HTTP file of the suite, and what could not be locked (one line each). A
    file the task pins is read too: the lock says what the server gives now, and a pin it
    contradicts is reported."""
    files: dict[str, LockedFile] = {}
    failures = []
    for task in suite.tasks:
        for kind, ref in task.spec.materials.refs().items():
            if ref.http is None:
                continue
            key = lock_key(task.id, kind)
            try:
                sha = sha256_of_url(ref.http.url)
            except (Transient, ValueError) as e:
                failures.append(f"{key}: {ref.http.url} could not be read: {e}")
                continue
            if ref.http.sha256 is not None and ref.http.sha256 != sha:
                failures.append(f"{key}: {ref.http.url} has sha256 {sha}, not the pinned {ref.http.sha256}")
                continue
            files[key] = LockedFile(url=ref.http.url, sha256=sha)
            progress(key, ref.http.url, sha)
    return SuiteLock(locked_at=time.time(), reclaim_version=reclaim.__version__, files=files), failures
