"""Making a suite's lock: every file a task fetches over HTTP read once, its sha256 recorded in
suite.lock (spec/lock.py), so that later fetches, here or on a cluster, must match it."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import reclaim
from reclaim.materials.errors import MaterialsError
from reclaim.materials.http import HttpFetcher, sha256_file
from reclaim.spec import Suite
from reclaim.spec.lock import LockedFile, SuiteLock, lock_key


def sha256_of_url(url: str, where: str) -> str:
    """Download the file once, as a fetch does (retries, resumption, redirects), and hash it."""
    with tempfile.TemporaryDirectory(prefix="reclaim-lock-") as tmp:
        fetcher = HttpFetcher(url, None, where, Path(tmp) / "downloads", name="file", unpack=False,
                              key=f"lock:{url}")
        (Path(tmp) / "out").mkdir()
        fetcher.fetch(Path(tmp) / "out", Path(tmp))
        return sha256_file(Path(tmp) / "out" / "file")


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
                sha = sha256_of_url(ref.http.url, f"{task.dir / 'task.yaml'}: materials.{kind}")
            except MaterialsError as e:
                failures.append(f"{key}: {e}")
                continue
            if ref.http.sha256 is not None and ref.http.sha256 != sha:
                failures.append(f"{key}: {ref.http.url} has sha256 {sha}, not the pinned {ref.http.sha256}")
                continue
            files[key] = LockedFile(url=ref.http.url, sha256=sha)
            progress(key, ref.http.url, sha)
    return SuiteLock(locked_at=time.time(), reclaim_version=reclaim.__version__, files=files), failures
