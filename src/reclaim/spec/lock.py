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


Problem = tuple[str, str, str]  # (field, message, fix)


def _resolve(fields: tuple[str, str], url: str, pinned: str | None, locked: LockedFile | None,
             locked_pin: str | None) -> tuple[str | None, Problem | None]:
    """One pinned thing against its lock entry: the pin to use (the task's, else the lock's) and a
    problem where the lock was made for something else or contradicts the task's own pin."""
    if locked is None:
        return pinned, None
    if locked.url != url or locked_pin is None:
        return pinned, (fields[0], f"suite.lock was made for {locked.url}, not {url}",
                        "run reclaim materials lock again")
    if pinned is None or pinned == locked_pin:
        return locked_pin, None
    return pinned, (fields[1], f"the task pins {pinned[:12]}…, suite.lock says {locked_pin[:12]}…",
                    "correct the pin, or run reclaim materials lock again")


def apply_lock(spec: TaskSpec, lock: SuiteLock | None) -> tuple[TaskSpec, list[Problem]]:
    """The spec with every pin it leaves out (an HTTP file's or the paper's sha256, a Hub revision) taken
    from the lock, and the problems: a lock entry made for another URL, a pin the lock contradicts."""
    if lock is None:
        return spec, []
    problems: list[Problem] = []
    materials = spec.materials
    for kind, ref in spec.materials.refs().items():
        locked = lock.files.get(lock_key(spec.id, kind))
        field = f"materials.{kind}"
        if ref.hub is not None:
            rev, problem = _resolve((f"{field}.hub.repo", f"{field}.hub.revision"),
                                    hub_url(ref.hub.kind, ref.hub.repo), ref.hub.revision, locked,
                                    locked.revision if locked else None)
            ref = ref.model_copy(update={"hub": ref.hub.model_copy(update={"revision": rev})})
        elif ref.http is not None:
            sha, problem = _resolve((f"{field}.http.url", f"{field}.http.sha256"), ref.http.url, ref.http.sha256,
                                    locked, locked.sha256 if locked else None)
            ref = ref.model_copy(update={"http": ref.http.model_copy(update={"sha256": sha})})
        else:
            continue
        problems += [problem] if problem else []
        materials = materials.model_copy(update={kind: ref})
    paper = spec.paper
    if paper.pdf_url is not None:
        locked = lock.files.get(lock_key(spec.id, PAPER_KEY))
        sha, problem = _resolve(("paper.pdf", "paper.pdf_sha256"), paper.pdf_url, paper.pdf_sha256, locked,
                                locked.sha256 if locked else None)
        paper = paper.model_copy(update={"pdf_sha256": sha})
        problems += [problem] if problem else []
    return spec.model_copy(update={"materials": materials, "paper": paper}), problems
