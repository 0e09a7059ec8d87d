"""A report's figures in words, shared by the terminal table and the Markdown: rates, intervals,
agent labels, the best agent of a level, and the order trials are read in."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from reclaim.report.aggregate import LEVELS, LevelBlock, Report, Totals, TrialRow
from reclaim.words import plural

NONE = "—"
"""Shown for a rate or interval of an agent with no counted trial: there is no figure."""
BASELINES_ONLY = "baselines only"
NONE_REPRODUCED = "none reproduced"
BEST_NOTE = ("best agent: the evaluated agent with the highest rate (ties: more counted trials, then the "
             "name). Baselines (reference, nop, fabricate, ...) bound the scale and are never best: "
             f"'{BASELINES_ONLY}' where a level ran no other agent; '{NONE_REPRODUCED}' where no evaluated "
             "agent reproduced a paper.")
CLAIMS_NOTE = ("a number holds where the re-execution's value meets its criteria; a disqualified trial holds "
               "none; (reported): not required for the claim")


def pct(x: float | None) -> str:
    return NONE if x is None else f"{100 * x:.0f} %"


def ci(lo: float | None, hi: float | None) -> str:
    return NONE if lo is None or hi is None else f"[{100 * lo:.0f}, {100 * hi:.0f}]"


def agent_name(name: str, baseline: bool) -> str:
    return f"{name} (baseline)" if baseline else name


def best_agent(block: LevelBlock) -> str:
    """The level's best agent, or why there is none in words (never a bare dash a reader must puzzle over)."""
    if block.best_agent:
        return block.best_agent
    return NONE_REPRODUCED if any(not row.baseline for row in block.agents.values()) else BASELINES_ONLY


def value(x: float | None) -> str:
    return NONE if x is None else f"{x:.6g}"


def versus(t: TrialRow) -> str:
    """'3.194 vs 3.194 mean_value': measured against target, with the metric."""
    return f"{value(t.measured)} vs {value(t.target)}" + (f" {t.metric}" if t.metric else "")


def flags(t: TrialRow) -> str:
    return ", ".join(t.flags)


def why(t: TrialRow) -> str:
    """A trial's whole reason, never cut (the verdict's rationale, else its one-line reason)."""
    return " ".join((t.rationale or t.reason).split())


def in_level_order(trials: Iterable[TrialRow]) -> list[TrialRow]:
    """Trials as a reader goes through them: run, retrain, reimplement; then task, agent, seed."""
    rank = {level: i for i, level in enumerate(LEVELS)}
    return sorted(trials, key=lambda t: (rank.get(t.level, len(LEVELS)), t.level, t.task, t.agent, t.seed))


def attempts(t: Totals) -> str:
    cut = f", {t.interrupted} interrupted" if t.interrupted else ""  # a killed or preempted attempt, run again
    return (f"in {plural(t.attempts, 'attempt')} ({plural(t.retries, 'retry', 'retries')}, "
            f"{plural(t.error_attempts, 'harness error')}{cut})")


def times(t: Totals) -> str:
    """The run's elapsed time and the trials' summed time, apart: they differ when trials overlap."""
    return (f"elapsed {t.elapsed_s:.1f} s, trials {t.wall_s:.1f} s summed "
            f"(agents {t.agent_wall_s:.1f} s of {t.budget_wall_s:.0f} s budgeted)")


def skipped(r: Report) -> list[str]:
    """Each skipped trial with why: left out of the rates, so listed where they are read."""
    return [f"{t.task}__{t.agent}__{t.seed}: {t.note or 'skipped'}" for t in r.trials if t.outcome == "skipped"]


def level_rows(r: Report) -> Iterator:
    for level, block in r.levels.items():
        for agent, row in block.agents.items():
            yield level, block, agent, row


def claim_rows(r: Report) -> Iterator:
    for c in r.claims:
        for m in c.metrics:
            for agent, row in m.agents.items():
                yield c, m, agent, row


def number(m) -> str:
    return f"{m.name}{'' if m.required else ' (reported)'}"
