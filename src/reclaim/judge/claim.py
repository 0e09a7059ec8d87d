"""A claim's numbers read from a results.json and held against the task: the one place that
says when several numbers count as "the result" (every required one) and when two runs gave
"the same result" (every required number agrees)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reclaim.judge.criteria import Acceptance, acceptance, consistent
from reclaim.judge.results import read_metrics
from reclaim.spec import Metric, TaskSpec
from reclaim.store import RESULTS


@dataclass(frozen=True)
class Reading:
    """The claim's numbers in one results.json: name -> value (None where unusable, with why)."""

    values: dict[str, float | None]
    why: dict[str, str]

    def missing(self, spec: TaskSpec) -> list[str]:
        """Required numbers that are absent or unusable."""
        return [m.name for m in spec.metrics() if m.required and self.values.get(m.name) is None]

    def present(self) -> dict[str, float]:
        return {k: v for k, v in self.values.items() if v is not None}


def read_claim(root: Path, spec: TaskSpec, rel: str = RESULTS) -> Reading:
    got = read_metrics(root, rel, [m.name for m in spec.metrics()])
    return Reading({k: v for k, (v, _) in got.items()}, {k: w for k, (_, w) in got.items()})


def acceptances(spec: TaskSpec) -> dict[str, Acceptance]:
    return {m.name: acceptance(m) for m in spec.metrics()}


def holds(spec: TaskSpec, reading: Reading) -> bool:
    """Every required number is present and accepted."""
    accs = acceptances(spec)
    return all((v := reading.values.get(m.name)) is not None and accs[m.name].accepts(v)
               for m in spec.metrics() if m.required)


def same_result(spec: TaskSpec, a: Reading, b: Reading, names: list[str] | None = None) -> bool:
    """Two runs agree: every required number (or each of ``names``) present in both and
    consistent within its tolerance."""
    accs = acceptances(spec)
    want = names if names is not None else [m.name for m in spec.metrics() if m.required]
    return all((x := a.values.get(n)) is not None and (y := b.values.get(n)) is not None
               and consistent(x, y, accs[n].tol) for n in want)


def metric(spec: TaskSpec, name: str) -> Metric:
    return next(m for m in spec.metrics() if m.name == name)
