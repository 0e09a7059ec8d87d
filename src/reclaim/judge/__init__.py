"""Did the trial reproduce the result? Decided from the harness's record, checked in code."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Protocol

from reclaim.errors import UsageError
from reclaim.judge.config import JudgeConfig
from reclaim.judge.criteria import Acceptance, acceptance
from reclaim.judge.rules import RulesJudge
from reclaim.judge.verdict import Check, Citation, Verdict
from reclaim.spec import TaskSpec
from reclaim.store import Status


class Judge(Protocol):
    name: str
    version: str
    label: str
    """The name its verdicts are filed under (verdicts/<label>.json)."""
    offline: bool
    """It decides without calling out (the rules judge); else it needs an endpoint (the llm judge)."""

    @classmethod
    def from_config(cls, config: JudgeConfig) -> Judge:
        """The judge as configured; JudgeError (one line naming the option) when it cannot be."""
        ...

    def judge(self, spec: TaskSpec, trial_dir: Path, status: Status) -> Verdict: ...


JUDGES = {
    "rules": "reclaim.judge.rules:RulesJudge",
    "llm": "reclaim.judge.llm:LLMJudge",  # the openai client loads only when asked for
}
"""name -> "module:Class" of every judge."""


def judge_class(name: str) -> type[Judge]:
    if name not in JUDGES:
        raise UsageError(f"unknown judge '{name}'; choose one of {', '.join(JUDGES)}")
    module, _, cls = JUDGES[name].partition(":")
    return getattr(importlib.import_module(module), cls)


def make_judge(config: JudgeConfig | str) -> Judge:
    """A judge from its config (or just its name, for the rules judge)."""
    if isinstance(config, str):
        judge_class(config)  # an unknown name, said as such
        config = JudgeConfig(name=config)
    return judge_class(config.name).from_config(config)


from reclaim.judge.claim import Reading, holds, read_claim, same_result  # noqa: E402
from reclaim.judge.dependence import Finding, applicable, at_bound, qualifying  # noqa: E402
from reclaim.judge.evidence_originals import MaterialDiff, material_diffs  # noqa: E402
from reclaim.judge.flags import Flag, meaning  # noqa: E402
from reclaim.judge.provenance import MIN_SIGNIFICANT_DIGITS, alter_literals, checkable, find_literals, is_code  # noqa: E402
from reclaim.judge.scope import agent_sources  # noqa: E402

__all__ = [
    "JUDGES",
    "MIN_SIGNIFICANT_DIGITS",
    "Acceptance",
    "Check",
    "Citation",
    "Finding",
    "Flag",
    "Judge",
    "JudgeConfig",
    "MaterialDiff",
    "Reading",
    "RulesJudge",
    "Verdict",
    "acceptance",
    "agent_sources",
    "alter_literals",
    "applicable",
    "at_bound",
    "checkable",
    "find_literals",
    "holds",
    "is_code",
    "judge_class",
    "make_judge",
    "material_diffs",
    "meaning",
    "qualifying",
    "read_claim",
    "same_result",
]
