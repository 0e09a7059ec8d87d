"""The report as a terminal table (report/terminal.py), Markdown, JSON or CSV."""

from __future__ import annotations

import csv
import io

from rich.console import Console

from reclaim.errors import UsageError
from reclaim.report.aggregate import Report
from reclaim.report.figures import (
    BEST_NOTE,
    CLAIMS_NOTE,
    agent_name,
    attempts,
    best_agent,
    ci,
    claim_rows,
    flags,
    in_level_order,
    level_rows,
    number,
    pct,
    skipped,
    times,
    versus,
    why,
)
from reclaim.report.terminal import to_rich
from reclaim.words import plural

FORMATS = ("table", "markdown", "json", "csv")

CSV_TRIAL = ["task", "seed", "outcome", "measured", "target", "metric", "wall_s", "flags", "rationale"]
"""The CSV's per-trial columns (row = trial), after the per-agent ones (row = agent); blank where n/a."""


def to_json(r: Report) -> str:
    """Reports without multi-number claims keep the keys of schema 1: empty ``claims`` and
    ``trials[].metrics`` are left out."""
    exclude: dict = {"trials": {i: {"metrics"} for i, t in enumerate(r.trials) if not t.metrics}}
    if not r.claims:
        exclude["claims"] = True
    return r.model_dump_json(indent=2, exclude=exclude)


def to_csv(r: Report) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["run_id", "level", "agent", "trials", "reproduced", "rate", "ci_low", "ci_high",
                "errors", "best_agent", "any_agent_rate", "row", "baseline", *CSV_TRIAL])
    f4 = lambda x: "" if x is None else f"{x:.4f}"  # noqa: E731
    for level, block, agent, row in level_rows(r):
        w.writerow([r.run_id, level, agent, row.trials, row.reproduced, f4(row.rate), f4(row.ci_low),
                    f4(row.ci_high), row.errors, block.best_agent or "", f"{block.any_agent_rate:.4f}",
                    "agent", int(row.baseline)] + [""] * len(CSV_TRIAL))
    for t in r.trials:
        w.writerow([r.run_id, t.level, t.agent] + [""] * 8 + ["trial", ""] +
                   [t.task, t.seed, t.outcome, "" if t.measured is None else t.measured,
                    "" if t.target is None else t.target, t.metric, "" if t.wall_s is None else t.wall_s,
                    " ".join(t.flags), t.rationale])
    return buf.getvalue()


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(r: Report, trials: bool = False) -> str:
    out = [f"# reclaim report — run {r.run_id}", "",
           f"Suite **{r.suite}** {r.suite_version}; judge `{r.judge}`; sandbox `{r.sandbox}`"
           + (f"; budgets scaled ×{r.budget_scale:g}" if r.budget_scale != 1 else "") + ".", "",
           "| level | agent | trials | reproduced | rate | 95 % CI | errors |",
           "|---|---|---:|---:|---:|---|---:|"]
    for level, _, agent, row in level_rows(r):
        out.append(f"| {level} | {agent_name(agent, row.baseline)} | {row.trials} | {row.reproduced} | "
                   f"{pct(row.rate)} | {ci(row.ci_low, row.ci_high)} | {row.errors} |")
    out += ["", "| level | papers | best agent | reproduced by any agent |", "|---|---:|---|---:|"]
    for level, block in r.levels.items():
        out.append(f"| {level} | {block.papers} | {best_agent(block)} | {pct(block.any_agent_rate)} |")
    out += ["", BEST_NOTE]
    if r.claims:
        out += ["", f"Per number of each claim of several numbers ({CLAIMS_NOTE}):", "",
                "| task | number | target | agent | trials | held | rate | 95 % CI |",
                "|---|---|---:|---|---:|---:|---:|---|"]
        for c, m, agent, row in claim_rows(r):
            out.append(f"| {c.task} | {number(m)} | {m.target:g} | {agent} | {row.trials} | {row.held} | "
                       f"{pct(row.rate)} | {ci(row.ci_low, row.ci_high)} |")
    if trials:
        out += ["", "Trials, in level order:", "",
                "| task | level | agent | seed | outcome | measured vs target | reason | flags |",
                "|---|---|---|---:|---|---|---|---|"]
        for t in in_level_order(r.trials):
            out.append(f"| {t.task} | {t.level} | {t.agent} | {t.seed} | {t.outcome} | {_md(versus(t))} | "
                       f"{_md(why(t))} | {flags(t)} |")
    tot = r.totals
    out += ["", f"**Totals**: {tot.trials} of {plural(tot.planned, 'trial')} {attempts(tot)}; {times(tot)}; "
            f"GPU-hours allocated {tot.gpu_hours_allocated:.3f}, busy {tot.gpu_hours_busy:.3f}; GPU energy "
            f"{tot.energy_wh:.1f} Wh; CPU {tot.cpu_s:.1f} s; model {plural(tot.model_tokens, 'token')}, "
            f"${tot.model_usd:.4f}.", "",
            "Outcomes: " + ", ".join(f"{k} {v}" for k, v in tot.outcomes.items()) + "."]
    if lines := skipped(r):
        out += ["", "Skipped (left out of the rates):", *[f"- {line}" for line in lines]]
    return "\n".join(out) + "\n"


def render(r: Report, fmt: str, console: Console | None = None, trials: bool = False) -> str | None:
    """Return the text for markdown/json/csv; print the table to ``console``. ``trials``: add the
    per-trial section to the table and markdown (JSON and CSV always have it)."""
    if fmt == "json":
        return to_json(r)
    if fmt == "csv":
        return to_csv(r)
    if fmt == "markdown":
        return to_markdown(r, trials)
    if fmt == "table":
        (console or Console()).print(to_rich(r, trials))
        return None
    raise UsageError(f"unknown format '{fmt}'; choose one of {', '.join(FORMATS)}")
