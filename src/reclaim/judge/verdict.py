"""verdict.json: the judge's decision, with the evidence it rests on."""

from __future__ import annotations

from pydantic import BaseModel, Field

from reclaim.store.models import Outcome, ScanScope


class Citation(BaseModel):
    event_id: int = Field(description="Id of a trace event.")
    why: str


class Check(BaseModel):
    """One thing code verified about a judge model's answer."""

    name: str
    passed: bool
    detail: str = ""


class MetricVerdict(BaseModel):
    """One number of the claim: what the paper says, what was measured, whether it holds."""

    name: str
    target: float
    direction: str
    required: bool = True
    tolerance: str = Field("", description="The acceptance rule, in words.")
    accept_low: float | None = None
    accept_high: float | None = None
    measured: float | None = None
    agent_value: float | None = None
    met: bool | None = None
    why: str = Field("", description="Why it does not hold ('' when it does, or was not reached).")


class Verdict(BaseModel):
    judge: str
    judge_version: str
    outcome: Outcome
    metric: str
    target: float
    direction: str
    measured: float | None = Field(None, description="The value the fresh re-execution computed.")
    agent_value: float | None = Field(None, description="The value in the agent's own results.json.")
    tolerance: str = Field("", description="The acceptance rule used, in words.")
    accept_low: float | None = None
    accept_high: float | None = None
    criteria_met: bool | None = Field(None, description="Whether the whole claim (every required number) holds.")
    metrics: list[MetricVerdict] = Field(
        default_factory=list, description="Every number of the claim; the fields above are the primary one's.")
    reexec_mode: str = Field("full", description="What the verdict rests on: full (reproduce.sh re-run whole) "
                             "or evaluate (the evaluation re-run on artefacts of recorded training).")
    training: dict | None = Field(None, description="Evaluate mode: the artefacts, the commands that made them, "
                                  "their metered cost, and whether that vouches for them.")
    scope: ScanScope | None = Field(None, description="What the literal and provenance checks read of the agent's "
                                    "files, and what they left out and why (the re-execution's record of it).")
    citations: list[Citation] = Field(default_factory=list)
    flags: list[str] = Field(default_factory=list)
    rationale: str
    # the llm judge's record: what the model said, what code checked, what it cost
    model: str | None = None
    model_outcome: str | None = Field(None, description="The majority of the model's answers.")
    agreement: str | None = Field(None, description="How many answers agreed, e.g. '2/3'.")
    samples: list[dict] = Field(default_factory=list, description="Every raw answer, parsed or not.")
    checks: list[Check] = Field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = None
    cache_hit: bool = False
    evidence_tokens: int | None = None
