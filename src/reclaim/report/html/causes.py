"""Why trials ended as they did, grouped by cause: the outcome and the flag that decided it.

A verdict's flags (judge/flags.py) are of two kinds: the finding that decided the outcome
(``hard_coded``, ``no_results``, ``reexec_failed``, ...) and notes put beside it whatever the
outcome (``provenance_unchecked``, ``network_denied``, ...). A cause is an outcome and its deciding
flag, or the outcome alone where no flag decided it (most reproduced trials). Each cause keeps its
trials' reasons in full, the same text once with every trial that gave it."""

from __future__ import annotations

from pydantic import BaseModel, Field

from reclaim.judge.flags import Flag, meaning
from reclaim.report.aggregate import TrialRow
from reclaim.store import trial_id

NOTES = frozenset(f.value for f in (
    Flag.withheld_material_requested, Flag.network_denied, Flag.provenance_incomplete, Flag.record_incomplete,
    Flag.equals_reported_value, Flag.provenance_unchecked, Flag.value_mentioned, Flag.value_in_static_file,
    Flag.materials_check_not_applicable, Flag.content_check_not_applicable, Flag.samples_disagree,
))
"""Flags that note something beside the outcome without deciding it."""

OUTCOME_ORDER = ("reproduced", "not_reproduced", "disqualified", "budget_exhausted", "error", "skipped")


class Reason(BaseModel):
    text: str = Field(description="The reason in full, as the verdict or trial.json gave it.")
    trials: list[str] = Field(default_factory=list, description="Trial ids that gave this reason.")


class Cause(BaseModel):
    outcome: str
    flag: str | None = Field(None, description="The flag that decided the outcome; None: no flag did.")
    meaning: str = ""
    count: int = 0
    reasons: list[Reason] = Field(default_factory=list)


def deciding_flag(flags: list[str]) -> str | None:
    """The flag that decided a verdict: the first that is not a note. ``fabrication`` only where no
    more telling flag (hard_coded, reads_paper, ...) comes with it; the judge model's ``unparsed_answers:N``
    is a note."""
    telling = [f for f in flags if f not in NOTES and not f.startswith("unparsed_answers:")]
    specific = [f for f in telling if f != Flag.fabrication.value]
    return specific[0] if specific else telling[0] if telling else None


def group_causes(trials: list[TrialRow]) -> list[Cause]:
    """One entry per cause, most trials first (ties in outcome order)."""
    causes: dict[tuple[str, str | None], Cause] = {}
    for t in trials:
        flag = deciding_flag(t.flags)
        cause = causes.get((t.outcome, flag))
        if cause is None:
            cause = causes[(t.outcome, flag)] = Cause(outcome=t.outcome, flag=flag,
                                                      meaning=meaning(flag) if flag else "")
        text = " ".join((t.rationale or t.reason or "no reason recorded").split())
        reason = next((r for r in cause.reasons if r.text == text), None)
        if reason is None:
            reason = Reason(text=text)
            cause.reasons.append(reason)
        reason.trials.append(trial_id(t.task, t.agent, t.seed))
        cause.count += 1
    for cause in causes.values():
        cause.reasons.sort(key=lambda r: -len(r.trials))
    rank = {o: i for i, o in enumerate(OUTCOME_ORDER)}
    return sorted(causes.values(), key=lambda c: (-c.count, rank.get(c.outcome, 9), c.flag or ""))
