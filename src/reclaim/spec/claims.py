"""What a paper claims: one number or several, each with how close is close enough."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from enum import Enum
from typing import Literal

from pydantic import Field, model_validator

from reclaim.spec.base import Direction, Finite, Strict

METRIC_NAME = r"^[A-Za-z_][A-Za-z0-9_.\-]*$"
PENDING = "pending"
"""A value not yet read from the paper: the task names where it stands (``where``), and stays
``review: pending`` until someone reads it there; it can be validated, never run."""
Value = Finite | Literal["pending"]
PLAUSIBLE_TOLERANCES = 4.0
"""Default for how far past the paper's value, on its better side, a one-sided target still
accepts a value: this many tolerances. Beyond it the rules alone do not accept."""


class Tolerance(Strict):
    """How close is close enough, for one number."""

    abs_tol: Finite | None = Field(default=None, ge=0, description="Absolute tolerance.")
    rel_tol: Finite | None = Field(default=None, ge=0, description="Relative tolerance (0.05 = 5%).")
    interval: tuple[Finite, Finite] | None = Field(
        default=None, description="[low, high]: the measured value must fall inside."
    )
    max_better: float | None = Field(
        default=None, ge=0,
        description="A one-sided target: how far past the paper's value, on its better side, a value "
        f"is still plausible (default: {PLAUSIBLE_TOLERANCES:g} tolerances; .inf: no bound).")

    @model_validator(mode="after")
    def _one_kind(self) -> Tolerance:
        tol = self.abs_tol is not None or self.rel_tol is not None
        if tol and self.interval is not None:
            raise ValueError("give either a tolerance (abs_tol/rel_tol) or an interval, not both")
        if self.interval is not None and self.interval[0] > self.interval[1]:
            raise ValueError("interval must be [low, high] with low <= high")
        if self.interval is not None and self.max_better is not None:
            raise ValueError("max_better bounds a tolerance; an interval is bounded already")
        return self

    @property
    def given(self) -> bool:
        return self.abs_tol is not None or self.rel_tol is not None or self.interval is not None


class MetricTarget(Tolerance):
    """One number of a claim. Tolerances left out are the task's ``criteria``."""

    value: Value = Field(description="The value the paper reports, or 'pending' where it is not yet read "
                         "from the paper (say where it stands in 'where').")
    direction: Direction = Field(description="higher_is_better, lower_is_better or match.")
    where: str = Field(default="", description="Where in the paper, e.g. 'Table 2, row 3'.")
    bounds: tuple[float, float] | None = Field(
        default=None, description="The values the metric can take, e.g. [0, 1] for a rate, [0, .inf] for a count "
        "or an error: nothing past them is plausible, and a paper's value at a bound cannot be beaten.")


class SourceKind(str, Enum):
    paper = "paper"
    authors = "authors"


class TargetSource(Strict):
    """Where the target's numbers were read: the paper itself (its abstract, a table or figure), or
    its authors' own report of the paper's result (their repository's README or results file, their
    project page). Never a third-party summary."""

    kind: SourceKind = Field(description="paper, or authors (their repository or project page).")
    where: str = Field(default="", description="Where there: 'abstract', 'Table 2, row X, column Y', "
                       "'README, table Results', a results file's path.")
    url: str = Field(pattern=r"^https?://\S+$", description="The page or file the numbers were read from.")
    quote: str = Field(min_length=1, description="The text as printed there, with every number of the target: "
                       "tasks validate checks that each value is in it.")


class Target(Strict):
    """What the paper claims: one number (``metric``, ``value``, ``direction``) or several
    (``metrics``), all of which must hold unless ``require`` names which."""

    claim: str = Field(min_length=1, description="The claim, in the paper's words.")
    metric: str | None = Field(
        default=None, pattern=METRIC_NAME, description="Key the agent must write in results.json.")
    value: Value | None = Field(default=None, description="The value the paper reports, or 'pending' where it "
                                "is not yet read from the paper (say where it stands in 'where').")
    direction: Direction | None = Field(default=None, description="higher_is_better, lower_is_better or match.")
    where: str = Field(default="", description="Where in the paper, e.g. 'Table 2, row 3'.")
    bounds: tuple[float, float] | None = Field(
        default=None, description="The values the metric can take, e.g. [0, 1] for a rate, [0, .inf] for a count "
        "or an error: nothing past them is plausible, and a paper's value at a bound cannot be beaten.")
    metrics: dict[str, MetricTarget] = Field(
        default_factory=dict, description="Several numbers of one claim: key in results.json -> "
        "value, direction and (optionally) its own tolerance.")
    require: list[str] | None = Field(
        default=None, description="The metrics that must hold (default: all); the others are reported.")
    source: TargetSource | None = Field(
        default=None, description="Where the numbers were read, quoted (the paper, or its authors' own report).")

    @model_validator(mode="after")
    def _one_form(self) -> Target:
        single = [k for k in ("metric", "value", "direction") if getattr(self, k) is not None]
        if self.metrics:
            if single:
                raise ValueError(f"give either metric/value/direction or metrics, not both (got {', '.join(single)})")
            bad = [k for k in self.metrics if not re.match(METRIC_NAME, k)]
            if bad:
                raise ValueError(f"metric name(s) {bad} are not valid results.json keys (letters, digits, _ . -)")
            if self.require is not None:
                unknown = [k for k in self.require if k not in self.metrics]
                if unknown or not self.require:
                    raise ValueError(f"require names metrics not in metrics: {unknown}" if unknown
                                     else "require must name at least one metric")
        else:
            if len(single) != 3:
                missing = [k for k in ("metric", "value", "direction") if getattr(self, k) is None]
                raise ValueError(f"give metric, value and direction (missing {', '.join(missing)}), or metrics")
            if self.require is not None:
                raise ValueError("require is only read with metrics")
        named = {"": (self.value, self.bounds)}
        named |= {f"metrics.{k}.": (m.value, m.bounds) for k, m in self.metrics.items()}
        for prefix, (value, bounds) in named.items():
            if isinstance(value, str):  # pending
                continue
            if bounds is not None and not bounds[0] <= (value if value is not None else bounds[0]) <= bounds[1]:
                raise ValueError(f"the {prefix}value {value} lies outside its {prefix}bounds {list(bounds)}")
        return self

    @property
    def primary(self) -> str:
        """The metric a one-number summary shows: the only one, or the first required."""
        if self.metric is not None:
            return self.metric
        return (self.require or list(self.metrics))[0]


class Criteria(Tolerance):
    """How close is close enough. Tolerances widen the target on the losing side only,
    unless the direction is ``match``; past the better side, ``max_better`` bounds what is
    plausible. With ``target.metrics`` these are the defaults of metrics that give none."""

    notes: str = Field(default="", description="Free text for the judge.")


@dataclass(frozen=True)
class Metric:
    """One number a task checks, with the tolerance that applies to it."""

    name: str
    value: float
    direction: Direction
    criteria: Tolerance
    where: str = ""
    required: bool = True
    bounds: tuple[float, float] | None = None
    """The values the metric can take (target.bounds)."""
    pending: bool = False
    """The value is not yet read from the paper (value: pending); ``value`` is then NaN."""


_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][-+]?\d+)?")


def quoted(value: float, quote: str) -> bool:
    """Is ``value`` printed in ``quote`` (as a number, or as a percentage of it: 0.871 as 87.1 %)?"""
    found = []
    for m in _NUMBER.finditer(quote):
        text = m.group().replace(",", "")
        if text and text not in "+-":
            try:
                found.append(float(text))
            except ValueError:
                continue
    return any(math.isclose(x, v, rel_tol=1e-9, abs_tol=1e-12)
               for x in found for v in (value, value * 100, value / 100))
