"""What every spec model shares: strictness, finite numbers, levels and directions."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

Finite = Annotated[float, Field(allow_inf_nan=False)]


class Strict(BaseModel):
    """Base for spec models: unknown keys are errors, not silently dropped. An infinite bound
    (``max_better: .inf``, ``bounds: [0, .inf]``) is written to spec.json as Infinity, so the
    spec a trial ran under reads back as it was (JSON's null would read as 'not given')."""

    model_config = ConfigDict(extra="forbid", frozen=True, ser_json_inf_nan="constants")


class Level(str, Enum):
    """How much the authors released, from easiest to hardest to reproduce."""

    run = "run"
    retrain = "retrain"
    reimplement = "reimplement"

    @property
    def rank(self) -> int:
        return _LEVEL_ORDER.index(self)


_LEVEL_ORDER = [Level.run, Level.retrain, Level.reimplement]


class Direction(str, Enum):
    """Which side of the target counts as reproducing it."""

    higher_is_better = "higher_is_better"
    lower_is_better = "lower_is_better"
    match = "match"

    def __str__(self) -> str:  # as written in task.yaml, in messages too
        return self.value
