"""Did the trial reproduce the result? Decided from the harness's record, checked in code."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from reclaim.judge.criteria import Acceptance, acceptance
from reclaim.judge.rules import RulesJudge
from reclaim.judge.verdict import Citation, Verdict
from reclaim.spec import TaskSpec
from reclaim.store.models import Status


class Judge(Protocol):
    name: str
    version: str

    def judge(self, spec: TaskSpec, trial_dir: Path, status: Status) -> Verdict: ...


JUDGES: dict[str, type] = {"rules": RulesJudge}


def make_judge(name: str) -> Judge:
    if name not in JUDGES:
        raise ValueError(f"unknown judge '{name}'; choose one of {', '.join(JUDGES)}")
    return JUDGES[name]()


__all__ = ["JUDGES", "Acceptance", "Citation", "Judge", "RulesJudge", "Verdict", "acceptance", "make_judge"]
