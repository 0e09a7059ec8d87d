"""Making a suite's lock: every file a task fetches over HTTP (its materials', its paper's PDF) read
once, its sha256 recorded in suite.lock (spec/lock.py), and every Hub repository it leaves unpinned
resolved to the commit its default branch points at, so that later fetches, here or on a cluster,
must match them."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import reclaim
from reclaim.materials.errors import MaterialsError
from reclaim.materials.http import HttpFetcher, sha256_file
from reclaim.materials.hub import HubFetcher
from reclaim.materials.paper import arxiv_url
from reclaim.spec import Suite, Task
from reclaim.spec.lock import PAPER_KEY, LockedFile, SuiteLock, hub_url, lock_key


def sha256_of_url(url: str, where: str) -> str:
    """Download the file once, as a fetch does (retries, resumption, redirects), and hash it."""
    with tempfile.TemporaryDirectory(prefix="reclaim-lock-") as tmp:
        fetcher = HttpFetcher(url, None, where, Path(tmp) / "downloads", name="file", unpack=False,
                              key=f"lock:{url}")
        (Path(tmp) / "out").mkdir()
        fetcher.fetch(Path(tmp) / "out", Path(tmp))
        return sha256_file(Path(tmp) / "out" / "file")


def _lockable(task: Task) -> list[tuple[str, str, str, str | None, str]]:
    """What a task fetches over HTTP: (lock key, URL, where it is fetched from, its pin, field)."""
    out = []
    for kind, ref in task.spec.materials.refs().items():
        if ref.http is not None:
            out.append((lock_key(task.id, kind), ref.http.url, ref.http.url, ref.http.sha256, f"materials.{kind}"))
    paper = task.spec.paper
    if (url := paper.pdf_url) is not None:
        fetch_from = arxiv_url(paper.arxiv) if paper.arxiv and not paper.pdf else url
        out.append((lock_key(task.id, PAPER_KEY), url, fetch_from, paper.pdf_sha256, "paper"))
    return out


def make_lock(suite: Suite, progress: Callable[[str, str, str], None] = lambda key, url, sha: None
              ) -> tuple[SuiteLock, list[str]]:
    """The lock of every HTTP file of the suite, and what could not be locked (one line each). A
    file the task pins is read too: the lock says what the server gives now, and a pin it
    contradicts is reported."""
    files: dict[str, LockedFile] = {}
    failures = []
    for task in suite.tasks:
        for kind, ref in task.spec.materials.refs().items():
            if ref.hub is None or ref.hub.revision is not None:
                continue
            key, url = lock_key(task.id, kind), hub_url(ref.hub.kind, ref.hub.repo)
            try:
                head = HubFetcher(ref.hub, f"{task.dir / 'task.yaml'}: materials.{kind}").head()
            except MaterialsError as e:
                failures.append(f"{key}: {e}")
                continue
            files[key] = LockedFile(url=url, revision=head)
            progress(key, url, head)
        for key, url, fetch_from, pinned, field in _lockable(task):
            try:
                sha = sha256_of_url(fetch_from, f"{task.dir / 'task.yaml'}: {field}")
            except MaterialsError as e:
                failures.append(f"{key}: {e}")
                continue
            if pinned is not None and pinned != sha:
                failures.append(f"{key}: {url} has sha256 {sha}, not the pinned {pinned}")
                continue
            files[key] = LockedFile(url=url, sha256=sha)
            progress(key, url, sha)
    return SuiteLock(locked_at=time.time(), reclaim_version=reclaim.__version__, files=files), failures
