"""Budgets: the wall clock a trial may use, and the named stop when it runs out."""

from __future__ import annotations

import time


class BudgetExhausted(Exception):
    """The trial used up its budget; what it did so far is kept and judged as such."""


class Deadline:
    """A wall-clock budget that starts when created."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.start = time.monotonic()

        self.ended_at: float | None = None

    def end(self) -> None:
        """End the budget now (a disk or other hard limit was hit): no further command starts."""
        if self.ended_at is None:
            self.ended_at = self.elapsed

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.start

    @property
    def ended(self) -> bool:
        return self.ended_at is not None

    @property
    def remaining(self) -> float:
        return 0.0 if self.ended_at is not None else max(0.0, self.seconds - self.elapsed)

    @property
    def expired(self) -> bool:
        return self.remaining <= 0.0

    def timeout(self, requested: float | None = None) -> float:
        """The timeout for the next command: what it asked for, capped by what is left."""
        return self.remaining if requested is None else min(requested, self.remaining)


__all__ = ["BudgetExhausted", "Deadline"]
