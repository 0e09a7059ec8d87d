"""A suite's lock: the sha256 of every file a task fetches over HTTP, recorded once where the
network reaches it (reclaim materials lock), so a curator can pose data on a server they cannot
download from, and every later fetch must match what was locked.

    suite.lock   JSON: {format_version, locked_at, reclaim_version,
                        files: {"<task>/<kind>": {url, sha256} or {url, revision}}}

where <kind> is a material's (code, data, weights) or ``paper``: the paper's PDF, a proceedings
URL or an arXiv version (arXiv serves a version's PDF again after it rebuilds it; the lock says
which bytes the suite was posed from).

A task's own ``http.sha256`` wins where it gives one; the lock must then agree with it. Runs
record the lock's digest (run.json ``suite_lock``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import Field, ValidationError, model_validator

from reclaim.spec.base import Strict
from reclaim.spec.models import TaskSpec

LOCK_FILE = "suite.lock"
LOCK_FORMAT = 1


class LockedFile(Strict):
    url: str = Field(description="The URL the file was fetched from when it was locked (hf://models/ORG/NAME or "
                     "hf://datasets/ORG/NAME for a Hub repository).")
    sha256: str | None = Field(None, pattern=r"^[0-9a-f]{64}$", description="A file's sha256 then.")
    revision: str | None = Field(None, pattern=r"^[0-9a-f]{40}$",
                                 description="A Hub repository's commit then (the head of its default branch).")

    @model_validator(mode="after")
    def _one_pin(self) -> LockedFile:
        if (self.sha256 is None) == (self.revision is None):
            raise ValueError("a locked entry gives a sha256 (a file) or a revision (a Hub repository)")
        return self


def hub_url(kind: str, repo: str) -> str:
    return f"hf://{kind}s/{repo}"


class SuiteLock(Strict):
    format_version: int = Field(LOCK_FORMAT, description="The lock's format.")
    locked_at: float = Field(description="When it was written (Unix time).")
    reclaim_version: str = Field(description="The reclaim that wrote it.")
    files: dict[str, LockedFile] = Field(default_factory=dict, description="'<task>/<kind>' -> the locked file.")


PAPER_KEY = "paper"
"""The lock's key for a task's paper PDF (beside its materials' 'code', 'data', 'weights')."""


def lock_key(task_id: str, kind: str) -> str:
    return f"{task_id}/{kind}"


def read_lock(suite_dir: Path) -> SuiteLock | None:
    """The suite's lock, or None where it has none; ValueError (with the fix) where it is unreadable."""
    path = Path(suite_dir) / LOCK_FILE
    if not path.is_file():
        return None
    try:
        return SuiteLock.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, ValidationError) as e:
        raise ValueError(f"not a lock this reclaim can read ({str(e).splitlines()[0]})") from None


def lock_digest(suite_dir: Path) -> str | None:
    path = Path(suite_dir) / LOCK_FILE
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def write_lock(suite_dir: Path, lock: SuiteLock) -> Path:
    path = Path(suite_dir) / LOCK_FILE
    path.write_text(lock.model_dump_json(indent=2, exclude_none=True) + "\n", encoding="utf-8")
    return path


def _hub(materials, kind: str, ref, locked: LockedFile | None):
    """A Hub repository's revision from the lock, where the task leaves it out."""
    field = f"materials.{kind}.hub"
    if locked is None or locked.revision is None:
        return materials, []
    if locked.url != hub_url(ref.hub.kind, ref.hub.repo):
        return materials, [(f"{field}.repo", f"suite.lock was made for {locked.url}, not this repository",
                            "run reclaim materials lock again")]
    if ref.hub.revision is None:
        hub = ref.hub.model_copy(update={"revision": locked.revision})
        return materials.model_copy(update={kind: ref.model_copy(update={"hub": hub})}), []
    if ref.hub.revision != locked.revision:
        return materials, [(f"{field}.revision", f"the task pins {ref.hub.revision[:12]}…, suite.lock says "
                            f"{locked.revision[:12]}…", "correct the pin, or run reclaim materials lock again")]
    return materials, []


def apply_lock(spec: TaskSpec, lock: SuiteLock | None) -> tuple[TaskSpec, list[tuple[str, str, str]]]:
    """The spec with every HTTP file's sha256 that it leaves out taken from the lock, and the
    problems as (field, message, fix): a locked URL that is not the task's, a pin the lock contradicts."""
    problems: list[tuple[str, str, str]] = []
    materials = spec.materials
    for kind, ref in spec.materials.refs().items():
        if ref.hub is not None and lock is not None:
            materials, found = _hub(materials, kind, ref, lock.files.get(lock_key(spec.id, kind)))
            problems += found
        if ref.http is None or lock is None:
            continue
        locked = lock.files.get(lock_key(spec.id, kind))
        field = f"materials.{kind}.http"
        if locked is None:
            continue
        if locked.url != ref.http.url or locked.sha256 is None:
            problems.append((f"{field}.url", f"suite.lock was made for {locked.url}, not this URL",
                             "run reclaim materials lock again"))
        elif ref.http.sha256 is None:
            http = ref.http.model_copy(update={"sha256": locked.sha256})
            materials = materials.model_copy(update={kind: ref.model_copy(update={"http": http})})
        elif ref.http.sha256 != locked.sha256:
            problems.append((f"{field}.sha256", f"the task pins {ref.http.sha256[:12]}…, suite.lock says "
                             f"{locked.sha256[:12]}…", "correct the pin, or run reclaim materials lock again"))
    paper = spec.paper
    locked = lock.files.get(lock_key(spec.id, PAPER_KEY)) if lock is not None else None
    if locked is not None and paper.pdf_url is not None:
        if locked.url != paper.pdf_url or locked.sha256 is None:
            problems.append(("paper.pdf", f"suite.lock was made for {locked.url}, not {paper.pdf_url}",
                             "run reclaim materials lock again"))
        elif paper.pdf_sha256 is None:
            paper = paper.model_copy(update={"pdf_sha256": locked.sha256})
        elif paper.pdf_sha256 != locked.sha256:
            problems.append(("paper.pdf_sha256", f"the task pins {paper.pdf_sha256[:12]}…, suite.lock says "
                             f"{locked.sha256[:12]}…", "correct the pin, or run reclaim materials lock again"))
    return spec.model_copy(update={"materials": materials, "paper": paper}), problems
