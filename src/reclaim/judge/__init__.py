"""Did the trial reproduce the result? Decided from the harness's record, checked in code."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from reclaim.judge.config import JudgeConfig
from reclaim.judge.criteria import Acceptance, acceptance
from reclaim.judge.rules import RulesJudge
from reclaim.judge.verdict import Check, Citation, Verdict
from reclaim.spec import TaskSpec
from reclaim.store.models import Status


class Judge(Protocol):
    name: str
    version: str
    label: str
    """The name its verdicts are filed under (verdicts/<label>.json)."""

    def judge(self, spec: TaskSpec, trial_dir: Path, status: Status) -> Verdict: ...


JUDGES = ("rules", "llm")


def make_judge(config: JudgeConfig | str) -> Judge:
    """A judge from its config (or just its name, for the rules judge)."""
    if isinstance(config, str):
        if config not in JUDGES:
            raise ValueError(f"unknown judge '{config}'; choose one of {', '.join(JUDGES)}")
        config = JudgeConfig(name=config)
    if config.name == "llm":
        from reclaim.judge.llm import (
            LLMJudge,  # the openai client loads only when asked for
        )

        return LLMJudge(config)
    return RulesJudge()


__all__ = ["JUDGES", "Acceptance", "Check", "Citation", "Judge", "JudgeConfig", "RulesJudge", "Verdict",
           "acceptance", "make_judge"]
