"""The success criteria, computed in code: never left to a model's arithmetic."""

from __future__ import annotations

import math
from dataclasses import dataclass

from reclaim.spec import PLAUSIBLE_TOLERANCES, Criteria, Direction, Metric, Target, Tolerance


@dataclass(frozen=True)
class Acceptance:
    low: float
    high: float
    rule: str
    tol: float
    plausible_low: float = -math.inf
    """Past these, on the better side of a one-sided target, a value is implausibly good."""
    plausible_high: float = math.inf

    @property
    def range(self) -> tuple[float, float]:
        """The accepted values, plausibility included."""
        return max(self.low, self.plausible_low), min(self.high, self.plausible_high)

    def accepts(self, value: float) -> bool:
        return (math.isfinite(value) and self.low <= value <= self.high
                and self.plausible_low <= value <= self.plausible_high)

    def implausible(self, value: float) -> bool:
        """Better than the paper by more than the task finds plausible (a one-sided target)."""
        return math.isfinite(value) and not self.plausible_low <= value <= self.plausible_high

    def why_not(self, value: float) -> str:
        """Why ``value`` is not accepted, in words ('' when it is)."""
        if self.accepts(value):
            return ""
        if self.implausible(value):
            bound = self.plausible_high if value > self.plausible_high else self.plausible_low
            return (f"{value!r} is better than the paper by more than is plausible (bound {bound:g}): "
                    "the rules alone do not accept it")
        return f"{value!r} misses {self.rule}"


def acceptance(target: Target | Metric, criteria: Criteria | None = None) -> Acceptance:
    """The range of values that reproduce one number of the target.

    A tolerance is the larger of abs_tol and rel_tol x |target|. It widens the target on the
    losing side. On the better side of a one-sided target a value is accepted up to
    ``max_better`` past the paper's (default: PLAUSIBLE_TOLERANCES tolerances; none when the
    tolerance is 0): beating a paper by far more than its own spread is a claim to check, not a
    reproduction. ``direction: match`` and intervals are two-sided already.
    """
    if criteria is not None:
        c: Tolerance = criteria
    elif isinstance(target, Metric):
        c = target.criteria
    else:
        raise TypeError("acceptance(Target) needs the task's criteria")
    if c.interval is not None:
        lo, hi = c.interval
        return Acceptance(lo, hi, f"value in [{lo:g}, {hi:g}]", (hi - lo) / 2)
    t = target.value
    if t is None:
        raise TypeError("acceptance(Target) of several metrics: take each of spec.metrics()")
    if isinstance(t, str):
        raise TypeError("a value pending is not yet read from the paper: nothing can be accepted against it")
    tol = max(c.abs_tol or 0.0, (c.rel_tol or 0.0) * abs(t))
    if target.direction == Direction.match:
        return Acceptance(t - tol, t + tol, f"|value - {t:g}| <= {tol:g}", tol)
    better = c.max_better if c.max_better is not None else (PLAUSIBLE_TOLERANCES * tol if tol > 0 else math.inf)
    low_b, high_b = getattr(target, "bounds", None) or (-math.inf, math.inf)
    if target.direction == Direction.higher_is_better:
        edge = min(t + better, high_b)  # nothing past the metric's own bound is plausible
        return Acceptance(t - tol, math.inf, f"value >= {t:g} - {tol:g}{_better_words(edge - t, t >= high_b)}",
                          tol, plausible_high=edge)
    edge = max(t - better, low_b)
    return Acceptance(-math.inf, t + tol, f"value <= {t:g} + {tol:g}{_better_words(t - edge, t <= low_b)}",
                      tol, plausible_low=edge)


def _better_words(better: float, at_bound: bool) -> str:
    if at_bound:
        return " (the paper's value is the metric's best: nothing is better)"
    return "" if math.isinf(better) else f" (and plausibly at most {better:g} better)"


def consistent(a: float, b: float, tol: float) -> bool:
    """Two runs of the same code agree: within the criteria's tolerance (or a hair, if it is 0)."""
    return abs(a - b) <= max(tol, 1e-9 * max(abs(a), abs(b), 1.0))
