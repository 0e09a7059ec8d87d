"""A suite at a glance: its tasks per level, area and budget band, their GPU-hours, and how many a
reviewer accepted, a reference verified, a laptop can run. What `tasks list` and `run --dry-run`
print under their tables, and a curator reads to balance a suite."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from reclaim.spec.base import Level
from reclaim.spec.load import Task

CPU_TAG = "cpu"
BANDS = ((0.0, "CPU only"), (1.0, "up to 1 GPU-h"), (10.0, "1-10 GPU-h"), (100.0, "10-100 GPU-h"),
         (float("inf"), "over 100 GPU-h"))


def band(gpu_hours: float) -> str:
    """The budget band of a task's GPU-hours."""
    return next(name for top, name in BANDS if gpu_hours <= top)


def status(task: Task) -> str:
    """In a word or two: reviewed or not, verified or not, its value read or not."""
    sp = task.spec
    if sp.pending_values():
        return "value pending"
    review = sp.review.status if sp.review is not None else "accepted"
    if review != "accepted":
        return f"review {review}"
    return "verified" if sp.verified is not None else "unverified"


@dataclass
class LevelLine:
    tasks: int = 0
    gpu_hours: float = 0.0
    verified: int = 0
    accepted: int = 0
    pending: int = 0
    harder: int = 0
    cpu: int = 0


@dataclass
class Overview:
    levels: dict[Level, LevelLine] = field(default_factory=dict)
    areas: Counter = field(default_factory=Counter)
    bands: Counter = field(default_factory=Counter)

    def lines(self) -> list[str]:
        out = []
        for level, n in self.levels.items():
            harder = f", {n.harder} posed harder than released (rated apart)" if n.harder else ""
            pending = f", {n.pending} value{'s' * (n.pending != 1)} pending" if n.pending else ""
            out.append(f"{level.value}: {n.tasks} task{'s' * (n.tasks != 1)}, {n.gpu_hours:g} GPU-h in all, "
                       f"{n.accepted} accepted, {n.verified} verified{pending}, {n.cpu} tagged cpu{harder}")
        if self.areas and len(self.areas) > 1:
            out.append("areas: " + ", ".join(f"{a} {k}" for a, k in sorted(self.areas.items(),
                                                                            key=lambda x: (-x[1], x[0]))))
        if len(self.bands) > 1:
            out.append("budgets: " + ", ".join(f"{name} {self.bands[name]}" for _, name in BANDS
                                               if self.bands[name]))
        return out


def overview(tasks: list[Task]) -> Overview:
    o = Overview()
    for level in Level:
        if any(t.spec.level == level for t in tasks):
            o.levels[level] = LevelLine()
    for t in tasks:
        sp = t.spec
        line = o.levels[sp.level]
        line.tasks += 1
        line.gpu_hours += sp.budget.gpu_hours
        line.verified += sp.verified is not None
        line.accepted += status(t) in ("verified", "unverified")
        line.pending += bool(sp.pending_values())
        line.harder += sp.posed_harder()
        line.cpu += CPU_TAG in sp.tags
        if sp.area:
            o.areas[sp.area] += 1
        o.bands[band(sp.budget.gpu_hours)] += 1
    return o
