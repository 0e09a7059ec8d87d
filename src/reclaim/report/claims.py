"""Claims of several numbers in a report: which numbers held, per agent, and per trial.

The figures come from the verdict the report's outcomes come from (verdict.json, sealed in
trial.json, or verdicts/<judge>.json for a judge run again), never from the agent's files."""

from __future__ import annotations

import json
from collections.abc import Callable

from pydantic import BaseModel, Field, ValidationError

from reclaim.store import VERDICT_JSON, VERDICTS, Outcome, RunDir, TrialRecord


class TrialMetric(BaseModel):
    """One number of a trial's claim, as its judge filed it (Verdict.metrics)."""

    name: str
    target: float
    direction: str = ""
    required: bool = True
    measured: float | None = Field(None, description="The value the fresh re-execution computed.")
    held: bool = Field(description="The measured value met this number's criteria, and the trial was not "
                                   "disqualified (a disqualified trial holds none of its numbers).")


class MetricRate(BaseModel):
    trials: int = Field(description="Counted trials (every outcome except error and skipped) judged per number.")
    held: int
    rate: float
    ci_low: float
    ci_high: float


class MetricBlock(BaseModel):
    name: str
    target: float
    direction: str
    required: bool
    agents: dict[str, MetricRate]


class ClaimBlock(BaseModel):
    """A task whose claim has several numbers: each number's held rate per agent."""

    task: str
    level: str
    metrics: list[MetricBlock]


def held(met: bool | None, outcome: Outcome | str) -> bool:
    """A number holds where its criteria were met and the trial was not disqualified
    (judge/evaluate.py reads per-metric gold labels the same way)."""
    return met is True and Outcome(outcome) != Outcome.disqualified


def trial_metrics(verdict: dict, outcome: Outcome) -> list[TrialMetric]:
    """The numbers of one verdict (raw verdict JSON); [] where it has none (an older or llm verdict)."""
    out = []
    for m in verdict.get("metrics") or []:
        try:
            out.append(TrialMetric(**{k: m[k] for k in ("name", "target", "direction", "required", "measured")
                                      if k in m}, held=held(m.get("met"), outcome)))
        except (ValidationError, TypeError):
            return []
    return out


def read_metrics(rd: RunDir, records: list[TrialRecord], judge: str | None = None,
                 outcomes: dict[str, Outcome] | None = None) -> dict[str, list[TrialMetric]]:
    """trial id -> its numbers, from the run's verdict.json, or verdicts/<judge>.json where the
    report is of another judge (``outcomes`` given); counted trials of multi-number claims only."""
    out = {}
    for r in records:
        if not r.done:
            continue
        if outcomes:
            if r.trial_id not in outcomes:
                continue
            path, outcome = rd.trial_dir(r.trial_id) / VERDICTS / f"{judge}.json", outcomes[r.trial_id]
        else:
            assert r.outcome is not None  # r.done
            path, outcome = rd.trial_dir(r.trial_id) / VERDICT_JSON, r.outcome
        if Outcome(outcome) in (Outcome.error, Outcome.skipped):  # not counted; an altered verdict.json is an error
            continue
        try:
            verdict = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if len(ms := trial_metrics(verdict, outcome)) > 1:
            out[r.trial_id] = ms
    return out


def claim_blocks(records: list[TrialRecord], metrics: dict[str, list[TrialMetric]],
                 counted: Callable[[TrialRecord], bool],
                 wilson: Callable[[int, int], tuple[float, float]]) -> list[ClaimBlock]:
    """Per task with several numbers, per number, per agent: the share of counted trials where it held."""
    blocks = []
    for task in sorted({r.task for r in records if len(metrics.get(r.trial_id, ())) > 1}):
        mine = [r for r in records if r.task == task and r.trial_id in metrics and counted(r)]
        if not mine:
            continue
        first: dict[str, TrialMetric] = {}
        for r in mine:
            for m in metrics[r.trial_id]:
                first.setdefault(m.name, m)
        rows = []
        for name, spec in first.items():
            rates = {}
            for agent in sorted({r.agent for r in mine}):
                got = [m for r in mine if r.agent == agent for m in metrics[r.trial_id] if m.name == name]
                if not got:
                    continue
                k = sum(m.held for m in got)
                lo, hi = wilson(k, len(got))
                rates[agent] = MetricRate(trials=len(got), held=k, rate=k / len(got), ci_low=lo, ci_high=hi)
            rows.append(MetricBlock(name=name, target=spec.target, direction=spec.direction,
                                    required=spec.required, agents=rates))
        blocks.append(ClaimBlock(task=task, level=mine[0].level, metrics=rows))
    return blocks
