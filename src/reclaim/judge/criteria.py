"""The success criteria, computed in code: never left to a model's arithmetic."""

from __future__ import annotations

import math
from dataclasses import dataclass

from reclaim.spec import Criteria, Direction, Target


@dataclass(frozen=True)
class Acceptance:
    low: float
    high: float
    rule: str
    tol: float

    def accepts(self, value: float) -> bool:
        return math.isfinite(value) and self.low <= value <= self.high


def acceptance(target: Target, criteria: Criteria) -> Acceptance:
    """The range of values that reproduce the target.

    A tolerance is the larger of abs_tol and rel_tol x |target|. It widens the target on the
    losing side only: beating a higher_is_better target still reproduces it.
    """
    if criteria.interval is not None:
        lo, hi = criteria.interval
        return Acceptance(lo, hi, f"value in [{lo:g}, {hi:g}]", (hi - lo) / 2)
    tol = max(criteria.abs_tol or 0.0, (criteria.rel_tol or 0.0) * abs(target.value))
    t = target.value
    if target.direction == Direction.higher_is_better:
        return Acceptance(t - tol, math.inf, f"value >= {t:g} - {tol:g}", tol)
    if target.direction == Direction.lower_is_better:
        return Acceptance(-math.inf, t + tol, f"value <= {t:g} + {tol:g}", tol)
    return Acceptance(t - tol, t + tol, f"|value - {t:g}| <= {tol:g}", tol)


def consistent(a: float, b: float, tol: float) -> bool:
    """Two runs of the same code agree: within the criteria's tolerance (or a hair, if it is 0)."""
    return abs(a - b) <= max(tol, 1e-9 * max(abs(a), abs(b), 1.0))
