"""What a run asks of a Slurm cluster."""

from __future__ import annotations

from pydantic import BaseModel, Field


class SlurmOptions(BaseModel):
    partition: str | None = Field(None, description="Partition (--partition).")
    account: str | None = Field(None, description="Account to charge (--account).")
    margin_min: int = Field(10, ge=0, description="Minutes added to a trial's budget for --time.")
    max_requeues: int = Field(3, ge=0, description="Resubmissions of a trial Slurm killed.")
    poll_s: float = Field(2.0, gt=0, description="How often job states are checked.")
