"""The report as a terminal table, Markdown, JSON or CSV."""

from __future__ import annotations

import csv
import io

from rich.console import Console, Group
from rich.markup import escape
from rich.table import Table

from reclaim.report.aggregate import Report, Totals

FORMATS = ("table", "markdown", "json", "csv")


def _pct(x: float) -> str:
    return f"{100 * x:.0f} %"


def _ci(lo: float, hi: float) -> str:
    return f"[{100 * lo:.0f}, {100 * hi:.0f}]"


def _attempts(t: Totals) -> str:
    return f"in {t.attempts} attempts ({t.retries} retries, {t.error_attempts} harness errors)"


def _skipped(r: Report) -> list[str]:
    """Each skipped trial with why: left out of the rates, so listed where they are read."""
    return [f"{t.task}__{t.agent}__{t.seed}: {t.note or 'skipped'}" for t in r.trials if t.outcome == "skipped"]


def _level_rows(r: Report):
    for level, block in r.levels.items():
        for agent, row in block.agents.items():
            yield level, block, agent, row


def _claim_rows(r: Report):
    for c in r.claims:
        for m in c.metrics:
            for agent, row in m.agents.items():
                yield c, m, agent, row


def _number(m) -> str:
    return f"{m.name}{'' if m.required else ' (reported)'}"


CLAIMS_NOTE = ("a number holds where the re-execution's value meets its criteria; a disqualified trial holds "
               "none; (reported): not required for the claim")


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
                "errors", "best_agent", "any_agent_rate"])
    for level, block, agent, row in _level_rows(r):
        w.writerow([r.run_id, level, agent, row.trials, row.reproduced, f"{row.rate:.4f}",
                    f"{row.ci_low:.4f}", f"{row.ci_high:.4f}", row.errors, block.best_agent or "",
                    f"{block.any_agent_rate:.4f}"])
    return buf.getvalue()


def to_markdown(r: Report) -> str:
    out = [f"# reclaim report — run {r.run_id}", "",
           f"Suite **{r.suite}** {r.suite_version}; judge `{r.judge}`; sandbox `{r.sandbox}`"
           + (f"; budgets scaled ×{r.budget_scale:g}" if r.budget_scale != 1 else "") + ".", "",
           "| level | agent | trials | reproduced | rate | 95 % CI | errors |",
           "|---|---|---:|---:|---:|---|---:|"]
    for level, _, agent, row in _level_rows(r):
        out.append(f"| {level} | {agent} | {row.trials} | {row.reproduced} | {_pct(row.rate)} | "
                   f"{_ci(row.ci_low, row.ci_high)} | {row.errors} |")
    out += ["", "| level | papers | best agent | reproduced by any agent |", "|---|---:|---|---:|"]
    for level, block in r.levels.items():
        out.append(f"| {level} | {block.papers} | {block.best_agent or '—'} | {_pct(block.any_agent_rate)} |")
    if r.claims:
        out += ["", f"Per number of each claim of several numbers ({CLAIMS_NOTE}):", "",
                "| task | number | target | agent | trials | held | rate | 95 % CI |",
                "|---|---|---:|---|---:|---:|---:|---|"]
        for c, m, agent, row in _claim_rows(r):
            out.append(f"| {c.task} | {_number(m)} | {m.target:g} | {agent} | {row.trials} | {row.held} | "
                       f"{_pct(row.rate)} | {_ci(row.ci_low, row.ci_high)} |")
    t = r.totals
    out += ["", f"**Totals**: {t.trials} of {t.planned} trials {_attempts(t)}; wall {t.wall_s:.1f} s "
            f"(agents {t.agent_wall_s:.1f} s of {t.budget_wall_s:.0f} s budgeted); GPU-hours allocated "
            f"{t.gpu_hours_allocated:.3f}, busy {t.gpu_hours_busy:.3f}; GPU energy {t.energy_wh:.1f} Wh; "
            f"CPU {t.cpu_s:.1f} s; model {t.model_tokens} tokens, ${t.model_usd:.4f}.", "",
            "Outcomes: " + ", ".join(f"{k} {v}" for k, v in t.outcomes.items()) + "."]
    if skipped := _skipped(r):
        out += ["", "Skipped (left out of the rates):", *[f"- {line}" for line in skipped]]
    return "\n".join(out) + "\n"


def to_rich(r: Report) -> Group:
    scale = f", budgets ×{r.budget_scale:g}" if r.budget_scale != 1 else ""
    main = Table(title=f"reclaim — run {r.run_id} ({r.suite} {r.suite_version}, judge {r.judge}, "
                       f"sandbox {r.sandbox}{scale})")
    for col, just in [("level", "left"), ("agent", "left"), ("trials", "right"), ("reproduced", "right"),
                      ("rate", "right"), ("95 % CI", "left"), ("errors", "right")]:
        main.add_column(col, justify=just)
    for level, block, agent, row in _level_rows(r):
        style = "bold green" if agent == block.best_agent else ""
        main.add_row(level, agent, str(row.trials), str(row.reproduced), _pct(row.rate),
                     _ci(row.ci_low, row.ci_high), str(row.errors), style=style)
    per = Table(title="per level")
    for col in ("level", "papers", "best agent", "reproduced by any agent"):
        per.add_column(col)
    for level, block in r.levels.items():
        per.add_row(level, str(block.papers), block.best_agent or "—", _pct(block.any_agent_rate))
    parts = [main, per]
    if r.claims:
        numbers = Table(title="per number of each claim", caption=CLAIMS_NOTE)
        for col, just in [("task", "left"), ("number", "left"), ("target", "right"), ("agent", "left"),
                          ("trials", "right"), ("held", "right"), ("rate", "right"), ("95 % CI", "left")]:
            numbers.add_column(col, justify=just)
        for c, m, agent, row in _claim_rows(r):
            numbers.add_row(escape(c.task), escape(_number(m)), f"{m.target:g}", escape(agent), str(row.trials),
                            str(row.held), _pct(row.rate), _ci(row.ci_low, row.ci_high))
        parts.append(numbers)
    t = r.totals
    summary = (f"{t.trials} of {t.planned} trials {_attempts(t)} · wall {t.wall_s:.1f} s "
               f"(agents {t.agent_wall_s:.1f} s of {t.budget_wall_s:.0f} s budgeted) · GPU-hours "
               f"{t.gpu_hours_allocated:.3f} allocated, {t.gpu_hours_busy:.3f} busy · CPU {t.cpu_s:.1f} s · "
               f"model {t.model_tokens} tokens ${t.model_usd:.4f}\n"
               "outcomes: " + " · ".join(f"{k} {v}" for k, v in t.outcomes.items()))
    if skipped := _skipped(r):
        summary += "\nskipped (left out of the rates):\n" + "\n".join(f"  {escape(line)}" for line in skipped)
    return Group(*parts, summary)


def render(r: Report, fmt: str, console: Console | None = None) -> str | None:
    """Return the text for markdown/json/csv; print the table to ``console``."""
    if fmt == "json":
        return to_json(r)
    if fmt == "csv":
        return to_csv(r)
    if fmt == "markdown":
        return to_markdown(r)
    if fmt == "table":
        (console or Console()).print(to_rich(r))
        return None
    raise ValueError(f"unknown format '{fmt}'; choose one of {', '.join(FORMATS)}")
