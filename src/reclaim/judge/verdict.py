"""verdict.json: the judge's decision, with the evidence it rests on."""

from __future__ import annotations

from pydantic import BaseModel, Field

from reclaim.store.models import Outcome


class Citation(BaseModel):
    event_id: int = Field(description="Id of a trace event.")
    why: str


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
    criteria_met: bool | None = None
    citations: list[Citation] = Field(default_factory=list)
    flags: list[str] = Field(default_factory=list)
    rationale: str
