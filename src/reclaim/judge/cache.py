"""Verdicts cached by what decided them: re-judging an unchanged trial costs nothing."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from reclaim.judge.verdict import Verdict
from reclaim.store import read_model, write_model


def cache_dir(configured: str | None) -> Path:
    if configured:
        return Path(configured)
    if "RECLAIM_CACHE_DIR" in os.environ:
        return Path(os.environ["RECLAIM_CACHE_DIR"])
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "reclaim" / "judge"


def cache_key(evidence_json: str, model: str | None, prompt_version: str, samples: int) -> str:
    blob = json.dumps([evidence_json, model, prompt_version, samples])
    return hashlib.sha256(blob.encode()).hexdigest()


class VerdictCache:
    def __init__(self, root: Path):
        self.root = root

    def get(self, key: str) -> Verdict | None:
        return read_model(self.root / key[:2] / f"{key}.json", Verdict)

    def put(self, key: str, verdict: Verdict) -> None:
        try:
            write_model(self.root / key[:2] / f"{key}.json", verdict)
        except OSError:
            pass  # a cache that cannot be written only costs money, never a verdict
