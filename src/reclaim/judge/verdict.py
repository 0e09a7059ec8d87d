"""verdict.json: the judge's decision, with the evidence it rests on."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, Field

from reclaim.judge.dependence import Finding
from reclaim.spec import Direction
from reclaim.store import Outcome, ScanScope, Versioned


class Citation(BaseModel):
    """A trace event the verdict rests on."""

    event_id: int = Field(description="Id of a trace event.")
    why: str = Field(description="What the event shows, in words.")


class Check(BaseModel):
    """One thing code verified about a judge model's answer."""

    name: str = Field(description="The check, e.g. citations_exist, agrees_with_reexecution.")
    passed: bool = Field(description="Whether the answer passed it.")
    detail: str = Field("", description="What was found, where it failed.")


class TrainingSummary(BaseModel):
    """Evaluate mode: what vouches for the artefacts the re-run evaluation used (judge/training.py)."""

    ok: bool = Field(description="Recorded training of a plausible cost made every evaluated artefact.")
    why: str = Field(description="The finding in words.")
    artefacts: list[str] = Field(default_factory=list, description="The trained artefacts found (the first 50).")
    writers: list[int] = Field(default_factory=list, description="The recorded commands that wrote them (event ids).")
    cpu_hours: float | None = Field(None, description="CPU-hours the recorded training used (cgroup).")
    gpu_hours: float | None = Field(None, description="GPU-hours it used (NVML samples).")


class MetricVerdict(BaseModel):
    """One number of the claim: what the paper says, what was measured, whether it holds."""

    name: str = Field(description="The metric's name in results.json.")
    target: float = Field(description="The paper's value.")
    direction: Direction = Field(description="higher_is_better, lower_is_better or match.")
    required: bool = Field(True, description="Whether the claim needs it to hold (target.require).")
    tolerance: str = Field("", description="The acceptance rule, in words.")
    accept_low: float | None = Field(None, description="The lowest value accepted; None: no bound.")
    accept_high: float | None = Field(None, description="The highest value accepted; None: no bound.")
    measured: float | None = Field(None, description="The value the fresh re-execution computed.")
    agent_value: float | None = Field(None, description="The value in the agent's own results.json.")
    met: bool | None = Field(None, description="Whether the measured value satisfies the criteria; None: not reached.")
    why: str = Field("", description="Why it does not hold ('' when it does, or was not reached).")


class Verdict(Versioned):
    """verdict.json (and verdicts/<judge label>.json)."""

    FORMAT: ClassVar[int] = 2
    """1: before format_version (direction and training untyped); 2: typed, versioned."""

    judge: str = Field(description="The judge's name, or label for the llm judge (llm-<model>).")
    judge_version: str = Field(description="The judge's rule or prompt version: verdicts of one version compare.")
    outcome: Outcome = Field(description="reproduced, not_reproduced, budget_exhausted, disqualified or error.")
    metric: str = Field(description="The claim's primary metric (target.primary).")
    target: float = Field(description="The paper's primary number.")
    direction: Direction = Field(description="The primary metric's direction.")
    measured: float | None = Field(None, description="The value the fresh re-execution computed.")
    agent_value: float | None = Field(None, description="The value in the agent's own results.json.")
    tolerance: str = Field("", description="The acceptance rule used, in words.")
    accept_low: float | None = Field(None, description="The lowest primary value accepted; None: no bound.")
    accept_high: float | None = Field(None, description="The highest primary value accepted; None: no bound.")
    criteria_met: bool | None = Field(None, description="Whether the whole claim (every required number) holds.")
    metrics: list[MetricVerdict] = Field(
        default_factory=list, description="Every number of the claim; the fields above are the primary one's.")
    reexec_mode: str = Field("full", description="What the verdict rests on: full (reproduce.sh re-run whole) "
                             "or evaluate (the evaluation re-run on artefacts of recorded training).")
    training: TrainingSummary | None = Field(None, description="Evaluate mode: the artefacts, the commands that "
                                             "made them, their metered cost, and whether that vouches for them.")
    scope: ScanScope | None = Field(None, description="What the literal and provenance checks read of the agent's "
                                    "files, and what they left out and why (the re-execution's record of it).")
    dependence: list[Finding] = Field(default_factory=list, description="The checks of what the number depends on "
                                      "(judge/dependence.py): each one's name, whether it applied and what it found.")
    citations: list[Citation] = Field(default_factory=list, description="The trace events the verdict rests on.")
    flags: list[str] = Field(default_factory=list, description="Findings beside the outcome: the harness's are "
                             "judge/flags.py's Flag (meanings in docs/records.md); a judge model may add its own.")
    rationale: str = Field(description="Why, in words: the deciding finding first.")
    # the llm judge's record: what the model said, what code checked, what it cost
    model: str | None = Field(None, description="The judge model (llm judge).")
    model_outcome: str | None = Field(None, description="The majority of the model's answers.")
    agreement: str | None = Field(None, description="How many answers agreed, e.g. '2/3'.")
    samples: list[dict] = Field(default_factory=list, description="Every raw answer, parsed or not.")
    checks: list[Check] = Field(default_factory=list, description="What code verified of the deciding answer.")
    tokens_in: int = Field(0, description="Prompt tokens the judge model used.")
    tokens_out: int = Field(0, description="Completion tokens the judge model used.")
    cost_usd: float | None = Field(None, description="What the judge's calls cost, by the price table.")
    cache_hit: bool = Field(False, description="The verdict came from the judge cache: no call was made.")
    evidence_tokens: int | None = Field(None, description="The evidence bundle's size in tokens.")
    mentions: list[str] = Field(default_factory=list, description="Where the agent's programs mention the value "
                                "without being its source (the re-run with it changed there computed the same).")
