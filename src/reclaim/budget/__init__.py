"""Budgets: the wall clock a trial may use, which limit stopped it, and the named stop when one runs out."""

from __future__ import annotations

import time
from enum import Enum

from pydantic import BaseModel, Field


class LimitKind(str, Enum):
    """The budget that can stop a trial."""

    wall = "wall"
    gpu_hours = "gpu_hours"
    disk = "disk"
    model_tokens = "model_tokens"
    money_usd = "money_usd"


_WORDS = {LimitKind.wall: ("wall-clock", "s"), LimitKind.gpu_hours: ("GPU-hour", "GPU-hours"),
          LimitKind.disk: ("disk", "GiB"), LimitKind.model_tokens: ("model-token", "tokens"),
          LimitKind.money_usd: ("model-money", "USD")}


class Limit(BaseModel):
    """Which budget stopped a trial, what it allowed, and what had been used (trial.json's ``limit``)."""

    kind: LimitKind = Field(description="wall, gpu_hours, disk, model_tokens or money_usd.")
    value: float | None = Field(None, description="The budget, in the kind's unit (s, GPU-hours, GiB, tokens, USD).")
    used: float | None = Field(None, description="What had been used when it stopped, in the same unit.")

    def words(self) -> str:
        """'its wall-clock budget (300 s; 300.4 used)'."""
        name, unit = _WORDS[self.kind]
        amounts = "; ".join(x for x in (f"{self.value:g} {unit}" if self.value is not None else "",
                                        f"{self.used:.4g} used" if self.used is not None else "") if x)
        return f"its {name} budget" + (f" ({amounts})" if amounts else "")


class BudgetExhausted(Exception):
    """The trial used up a budget; what it did so far is kept and judged as such. ``limit`` says
    which, where the place that raised it knows (the lifecycle fills it in otherwise)."""

    def __init__(self, message: str, limit: Limit | None = None):
        super().__init__(message)
        self.limit = limit


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



_LAZY = {  # imported on first use: the records (store) need only Limit, not the meters and their libraries
    "Capacity": "reclaim.budget.capacity",
    "MAX_MIN_FREE_BYTES": "reclaim.budget.disk",
    "DiskGuard": "reclaim.budget.disk",
    "free_bytes": "reclaim.budget.disk",
    "kept_free": "reclaim.budget.disk",
    "DRIVER_INSIDE": "reclaim.budget.driver",
    "placement": "reclaim.budget.driver",
    "Allocator": "reclaim.budget.gpus",
    "Gpu": "reclaim.budget.gpus",
    "GpuBackend": "reclaim.budget.gpus",
    "GpuError": "reclaim.budget.gpus",
    "discover": "reclaim.budget.gpus",
    "Limits": "reclaim.budget.limits",
    "BudgetMonitor": "reclaim.budget.monitor",
    "cost": "reclaim.budget.prices",
    "load_prices": "reclaim.budget.prices",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'reclaim.budget' has no attribute '{name}'")


__all__ = ["DRIVER_INSIDE", "MAX_MIN_FREE_BYTES", "Allocator", "BudgetExhausted", "BudgetMonitor", "Capacity",
           "Deadline", "DiskGuard", "Gpu", "GpuBackend", "GpuError", "Limit", "LimitKind", "Limits", "cost", "discover",
           "free_bytes", "kept_free", "load_prices", "placement"]
