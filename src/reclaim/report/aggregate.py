"""From trial records to the figures people read: rates per level and agent, with intervals."""

from __future__ import annotations

import math
from collections import Counter, defaultdict

from pydantic import BaseModel, Field

from reclaim.report.claims import ClaimBlock, TrialMetric, claim_blocks
from reclaim.report.reasons import VerdictReason, one_line
from reclaim.store import Outcome, RunSpec, TrialRecord, agent_label

SCHEMA_VERSION = 3
"""2: ``claims`` (held rates per number of multi-number claims) and ``trials[].metrics``.
3: ``trials[].metric/reason/rationale/flags``, ``totals.elapsed_s``, ``levels[].baselines`` and
``agents[].baseline``; ``rate``/``ci_low``/``ci_high`` are null for an agent with no counted trials;
``best_agent`` is chosen among evaluated agents only (never a baseline)."""
BASELINES = frozenset({"reference", "nop", "fabricate", "copy-paper", "overclaim", "partial"})
"""Built-in agents that bound a benchmark (the ceiling, the floor, the cheats): listed apart."""
LEVELS = ("run", "retrain", "reimplement")
HARDER = " (posed harder)"
"""A level's group for tasks posed harder than their release gives (a reimplement task whose authors
released code): rated apart, since published per-level figures count levels by what was released."""
GROUPS = tuple(g for lv in LEVELS for g in (lv, lv + HARDER) if g != "run" + HARDER)
"""The report's level blocks, in order: each level as released, then its tasks posed harder."""


def group_of(level: str, released_level: str | None) -> str:
    """The block a trial is rated in: its level, or its level posed harder than released."""
    return level if released_level in (None, level) else level + HARDER
NOT_COUNTED = (Outcome.error, Outcome.skipped)
"""Left out of every rate: the harness's failures, and trials the agent does not apply to."""


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95 % Wilson score interval for a binomial proportion; (0, 1) when n is 0."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


class AgentRow(BaseModel):
    trials: int = Field(description="Trials that counted: every outcome except error and skipped.")
    reproduced: int
    rate: float | None = Field(description="reproduced / trials; null where no trial counted.")
    ci_low: float | None
    ci_high: float | None
    baseline: bool = Field(False, description="A built-in baseline (reference, nop, fabricate, copy-paper, "
                                              "overclaim, partial), not an evaluated agent.")
    errors: int = Field(0, description="Harness errors, left out of the rate.")
    skipped: int = Field(0, description="Trials the agent did not apply to (TrialRow.note), left out of the rate.")


class LevelBlock(BaseModel):
    papers: int
    agents: dict[str, AgentRow]
    best_agent: str | None = Field(description="The evaluated agent (never a baseline) with the highest rate; "
                                               "ties go to more counted trials, then the name; null where none "
                                               "reproduced anything.")
    baselines: list[str] = Field(default_factory=list, description="The agents of this level that are baselines.")
    any_agent_rate: float = Field(description="Share of papers reproduced by at least one agent.")


class TrialRow(BaseModel):
    task: str
    level: str
    released_level: str | None = Field(None, description="The level its release gives, where posed harder.")
    agent: str
    seed: int
    outcome: str
    measured: float | None
    target: float | None
    wall_s: float | None
    attempts: int = Field(1, description="Finished attempts: 1, plus each harness error that was run again.")
    error_attempts: int = Field(0, description="Attempts that ended in a harness error, this one included.")
    interrupted: int = Field(0, description="Attempts cut short (the harness killed, a job preempted, a node "
                                            "lost) and run again from the start; not counted in attempts.")
    note: str | None = Field(None, description="Why a skipped trial did not apply to its task.")
    metric: str = Field("", description="The claim's (primary) metric, as the judge read it.")
    reason: str = Field("", description="The rationale on one line, at most 160 characters.")
    rationale: str = Field("", description="The verdict's rationale in full; for an error or a skipped "
                                           "trial, the harness's error or note.")
    flags: list[str] = Field(default_factory=list, description="The verdict's flags, e.g. hard_coded.")
    metrics: list[TrialMetric] = Field(
        default_factory=list, description="A claim of several numbers: each one measured, and whether it held.")


class Totals(BaseModel):
    trials: int = Field(description="Finished trials in the report.")
    planned: int = Field(description="Trials the run asked for; more than trials while it is unfinished.")
    wall_s: float = Field(description="Sum of trial wall times, harness included (trials run side by side "
                                      "count each).")
    elapsed_s: float = Field(0.0, description="Wall time of the run: first trial start to last trial end.")
    agent_wall_s: float
    budget_wall_s: float = Field(description="Sum of wall-clock budgets of all trials.")
    gpu_hours_allocated: float
    gpu_hours_busy: float = Field(0.0, description="From NVML samples, where GPUs were sampled.")
    energy_wh: float = 0.0
    cpu_s: float = Field(0.0, description="CPU time of the agents and re-executions, where metered.")
    model_tokens: int = 0
    model_usd: float = 0.0
    outcomes: dict[str, int]
    attempts: int = Field(0, description="Finished attempts of the trials in the report, retries included.")
    retries: int = Field(0, description="Attempts beyond each trial's first: harness errors run again.")
    error_attempts: int = Field(0, description="Attempts that ended in a harness error; the trials still in "
                                               "error are outcomes.error.")
    interrupted: int = Field(0, description="Attempts cut short and run again from the start (interrupted/).")


class Report(BaseModel):
    """The stable JSON report (``reclaim report --format json``); see README."""

    schema_version: int = SCHEMA_VERSION
    run_id: str
    suite: str
    suite_version: str
    judge: str
    sandbox: str
    budget_scale: float
    levels: dict[str, LevelBlock]
    totals: Totals
    trials: list[TrialRow]
    claims: list[ClaimBlock] = Field(default_factory=list,
                                     description="Tasks whose claim has several numbers: each number's held rate "
                                                 "per agent. Left out of the JSON where there are none.")


def baseline_labels(spec: RunSpec) -> set[str]:
    """The labels of a run's agents that are built-in baselines ('mine=command:...' is not one)."""
    out = set()
    for a in spec.agents:
        name, eq, rest = a.partition("=")
        if eq and ":" not in name:
            if rest.partition(":")[0] in BASELINES:
                out.add(name)
        elif a.partition(":")[0] in BASELINES:
            out.add(agent_label(a))
    return out


def _outcome(r: TrialRecord) -> Outcome:
    assert r.outcome is not None  # a report counts done records only
    return r.outcome


def build_report(spec: RunSpec, records: list[TrialRecord], judge: str | None = None,
                 outcomes: dict[str, Outcome] | None = None, retried: list[TrialRecord] | None = None,
                 metrics: dict[str, list[TrialMetric]] | None = None,
                 reasons: dict[str, VerdictReason] | None = None,
                 interrupted: dict[str, int] | None = None) -> Report:
    """The report; with ``judge`` and ``outcomes`` (trial id -> outcome), as that judge saw it;
    ``retried``: the earlier attempts that ended in a harness error (RunDir.retried());
    ``interrupted``: trial id -> attempts cut short (RunDir.interrupted());
    ``metrics``: trial id -> the numbers of its claim, from the same judge's verdicts (read_metrics)."""
    metrics, reasons, interrupted = metrics or {}, reasons or {}, interrupted or {}
    records = sorted((r for r in records if r.done), key=lambda r: (r.task, r.agent, r.seed))
    if outcomes:
        records = [r.model_copy(update={"outcome": outcomes.get(r.trial_id, r.outcome)}) for r in records]
    agents = sorted({r.agent for r in records})
    base = baseline_labels(spec) if spec.agents else BASELINES
    levels: dict[str, LevelBlock] = {}
    for level in GROUPS:
        here = [r for r in records if group_of(r.level, r.released_level) == level]
        if not here:
            continue
        rows = {}
        for agent in agents:
            mine = [r for r in here if r.agent == agent]
            if not mine:
                continue
            counted = [r for r in mine if r.outcome not in NOT_COUNTED]
            k = sum(r.outcome == Outcome.reproduced for r in counted)
            lo, hi = wilson(k, len(counted))
            rows[agent] = AgentRow(trials=len(counted), reproduced=k, baseline=agent in base,
                                   rate=k / len(counted) if counted else None,
                                   ci_low=lo if counted else None, ci_high=hi if counted else None,
                                   errors=sum(r.outcome == Outcome.error for r in mine),
                                   skipped=sum(r.outcome == Outcome.skipped for r in mine))
        papers = sorted({r.task for r in here})
        by_paper: defaultdict[str, bool] = defaultdict(bool)
        for r in here:
            by_paper[r.task] |= r.outcome == Outcome.reproduced
        ranked = sorted(((a, row) for a, row in rows.items() if not row.baseline and row.rate),
                        key=lambda kv: (-(kv[1].rate or 0.0), -kv[1].trials, kv[0]))  # rate: set, by the filter
        best = ranked[0][0] if ranked else None
        rows = dict(sorted(rows.items(), key=lambda kv: (kv[1].baseline, kv[0])))
        levels[level] = LevelBlock(papers=len(papers), agents=rows, best_agent=best,
                                   baselines=[a for a, row in rows.items() if row.baseline],
                                   any_agent_rate=sum(by_paper.values()) / len(papers))
    counts = Counter(_outcome(r).value for r in records)
    earlier = Counter(r.trial_id for r in retried or () if r.done and r.outcome == Outcome.error)
    attempts = {r.trial_id: 1 + earlier[r.trial_id] for r in records}
    errored = {r.trial_id: earlier[r.trial_id] + (r.outcome == Outcome.error) for r in records}
    totals = Totals(
        trials=len(records),
        planned=len(spec.trial_keys()),
        wall_s=round(sum(r.timings.get("total_s", 0.0) for r in records), 3),
        elapsed_s=round(max((r.finished or r.started for r in records), default=0.0)
                        - min((r.started for r in records), default=0.0), 3),
        agent_wall_s=round(sum(r.budget.agent_wall_s for r in records), 3),
        budget_wall_s=round(sum(r.budget.wall_limit_s for r in records), 3),
        gpu_hours_allocated=sum(r.budget.gpu_hours_allocated for r in records),
        gpu_hours_busy=round(sum(r.budget.gpu_hours_busy or 0.0 for r in records), 6),
        energy_wh=round(sum(r.budget.energy_wh or 0.0 for r in records), 3),
        cpu_s=round(sum((r.budget.agent_cpu_s or 0.0) + (r.budget.reexec_cpu_s or 0.0) for r in records), 3),
        model_tokens=sum(r.budget.model_tokens for r in records),
        model_usd=round(sum(r.budget.model_usd for r in records), 6),
        outcomes={o.value: counts.get(o.value, 0) for o in Outcome},
        attempts=sum(attempts.values()), retries=sum(attempts.values()) - len(records),
        error_attempts=sum(errored.values()), interrupted=sum(interrupted.get(r.trial_id, 0) for r in records))
    trials = [TrialRow(task=r.task, level=r.level, released_level=r.released_level, agent=r.agent, seed=r.seed,
                       outcome=_outcome(r).value, measured=r.measured, target=r.target,
                       wall_s=r.timings.get("total_s"), attempts=attempts[r.trial_id],
                       error_attempts=errored[r.trial_id], interrupted=interrupted.get(r.trial_id, 0), note=r.note,
                       metrics=metrics.get(r.trial_id, []), **_why(reasons.get(r.trial_id), r))
              for r in records]
    claims = claim_blocks(records, metrics, lambda r: r.outcome not in NOT_COUNTED, wilson)
    return Report(run_id=spec.run_id, suite=spec.suite_name, suite_version=spec.suite_version,
                  judge=judge or spec.judge, sandbox=spec.sandbox, budget_scale=spec.budget_scale,
                  levels=levels, totals=totals, trials=trials, claims=claims)


def _why(v: VerdictReason | None, r: TrialRecord) -> dict:
    """A trial row's reason fields: from its verdict, else trial.json's error or note."""
    text = (v.rationale if v else "") or r.error or r.note or ""
    return {"metric": v.metric if v else "", "rationale": text, "reason": one_line(text),
            "flags": list(v.flags) if v else []}
