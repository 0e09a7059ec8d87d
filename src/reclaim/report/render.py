"""The report as a terminal table, Markdown, JSON or CSV."""

from __future__ import annotations

import csv
import io

from rich.console import Console, Group, JustifyMethod
from rich.markup import escape
from rich.table import Table

from reclaim.errors import UsageError
from reclaim.report.aggregate import Report, Totals, TrialRow
from reclaim.words import plural

FORMATS = ("table", "markdown", "json", "csv")
NONE = "—"
"""Shown for a rate or interval of an agent with no counted trial: there is no figure."""


def _pct(x: float | None) -> str:
    return NONE if x is None else f"{100 * x:.0f} %"


def _ci(lo: float | None, hi: float | None) -> str:
    return NONE if lo is None or hi is None else f"[{100 * lo:.0f}, {100 * hi:.0f}]"


def _attempts(t: Totals) -> str:
    cut = f", {t.interrupted} interrupted" if t.interrupted else ""  # a killed or preempted attempt, run again
    return (f"in {plural(t.attempts, 'attempt')} ({plural(t.retries, 'retry', 'retries')}, "
            f"{plural(t.error_attempts, 'harness error')}{cut})")


def _time(t: Totals) -> str:
    """The run's elapsed time and the trials' summed time, apart: they differ when trials overlap."""
    return (f"elapsed {t.elapsed_s:.1f} s, trials {t.wall_s:.1f} s summed "
            f"(agents {t.agent_wall_s:.1f} s of {t.budget_wall_s:.0f} s budgeted)")


def _agent(name: str, baseline: bool) -> str:
    return f"{name} (baseline)" if baseline else name


def _value(x: float | None) -> str:
    return NONE if x is None else f"{x:.6g}"


def _versus(t: TrialRow) -> str:
    """'3.194 vs 3.194 mean_value': measured against target, with the metric."""
    return f"{_value(t.measured)} vs {_value(t.target)}" + (f" {t.metric}" if t.metric else "")


def _flags(t: TrialRow) -> str:
    return ", ".join(t.flags)


CSV_TRIAL = ["task", "seed", "outcome", "measured", "target", "metric", "wall_s", "flags", "rationale"]
"""The CSV's per-trial columns (row = trial), after the per-agent ones (row = agent); blank where n/a."""


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
                "errors", "best_agent", "any_agent_rate", "row", "baseline", *CSV_TRIAL])
    f4 = lambda x: "" if x is None else f"{x:.4f}"  # noqa: E731
    for level, block, agent, row in _level_rows(r):
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
    for level, _, agent, row in _level_rows(r):
        out.append(f"| {level} | {_agent(agent, row.baseline)} | {row.trials} | {row.reproduced} | "
                   f"{_pct(row.rate)} | {_ci(row.ci_low, row.ci_high)} | {row.errors} |")
    out += ["", "| level | papers | best agent | reproduced by any agent |", "|---|---:|---|---:|"]
    for level, block in r.levels.items():
        out.append(f"| {level} | {block.papers} | {block.best_agent or NONE} | {_pct(block.any_agent_rate)} |")
    out += ["", BEST_NOTE]
    if r.claims:
        out += ["", f"Per number of each claim of several numbers ({CLAIMS_NOTE}):", "",
                "| task | number | target | agent | trials | held | rate | 95 % CI |",
                "|---|---|---:|---|---:|---:|---:|---|"]
        for c, m, agent, row in _claim_rows(r):
            out.append(f"| {c.task} | {_number(m)} | {m.target:g} | {agent} | {row.trials} | {row.held} | "
                       f"{_pct(row.rate)} | {_ci(row.ci_low, row.ci_high)} |")
    if trials:
        out += ["", "Trials:", "", "| task | level | agent | seed | outcome | measured vs target | reason | flags |",
                "|---|---|---|---:|---|---|---|---|"]
        for t in r.trials:
            out.append(f"| {t.task} | {t.level} | {t.agent} | {t.seed} | {t.outcome} | {_md(_versus(t))} | "
                       f"{_md(t.reason)} | {_flags(t)} |")
    tot = r.totals
    out += ["", f"**Totals**: {tot.trials} of {plural(tot.planned, 'trial')} {_attempts(tot)}; {_time(tot)}; "
            f"GPU-hours allocated {tot.gpu_hours_allocated:.3f}, busy {tot.gpu_hours_busy:.3f}; GPU energy "
            f"{tot.energy_wh:.1f} Wh; CPU {tot.cpu_s:.1f} s; model {plural(tot.model_tokens, 'token')}, "
            f"${tot.model_usd:.4f}.", "",
            "Outcomes: " + ", ".join(f"{k} {v}" for k, v in tot.outcomes.items()) + "."]
    if skipped := _skipped(r):
        out += ["", "Skipped (left out of the rates):", *[f"- {line}" for line in skipped]]
    return "\n".join(out) + "\n"


BEST_NOTE = (f"Best agent: the evaluated agent with the highest rate (ties: more counted trials, then the "
             f"name); baselines are never best. {NONE}: no counted trial, or none reproduced.")


def _table(title: str | None = None, caption: str | None = None) -> Table:
    return Table(title=title, caption=caption, title_justify="left", caption_justify="left")


def _col(t: Table, name: str, justify: JustifyMethod = "left", fold: bool = False) -> None:
    """A column whose header is never cut: short ones keep their width, long text folds."""
    if fold:
        t.add_column(name, justify=justify, overflow="fold", min_width=min(len(name), 10))
    else:
        t.add_column(name, justify=justify, no_wrap=True, min_width=len(name))


def trials_table(r: Report) -> Table:
    """Every trial: who, how it ended, measured vs target, and why (the verdict's reason and flags)."""
    table = _table("trials")
    _col(table, "trial", fold=True)
    _col(table, "outcome")
    _col(table, "measured vs target", fold=True)
    _col(table, "reason", fold=True)
    table.columns[0].max_width, table.columns[2].max_width = 24, 18
    table.columns[3].ratio = 1  # the rest of the width goes to the reason
    for t in r.trials:
        why = t.reason + (f" [flags: {_flags(t)}]" if t.flags else "")
        table.add_row(escape(f"{t.task} · {t.level} · {t.agent} · seed {t.seed}"), t.outcome,
                      escape(_versus(t)), escape(why))
    return table


def to_rich(r: Report, trials: bool = False) -> Group:
    scale = f", budgets ×{r.budget_scale:g}" if r.budget_scale != 1 else ""
    main = _table(f"reclaim — run {r.run_id} ({r.suite} {r.suite_version}, judge {r.judge}, "
                  f"sandbox {r.sandbox}{scale})")
    columns: list[tuple[str, JustifyMethod]] = [
        ("level", "left"), ("agent", "left"), ("trials", "right"), ("reproduced", "right"), ("rate", "right"),
        ("95 % CI", "left"), ("errors", "right")]
    for col, just in columns:
        _col(main, col, just, fold=col == "agent")
    for level, block, agent, row in _level_rows(r):
        style = "bold green" if agent == block.best_agent else ("dim" if row.baseline else "")
        main.add_row(level, escape(_agent(agent, row.baseline)), str(row.trials), str(row.reproduced),
                     _pct(row.rate), _ci(row.ci_low, row.ci_high), str(row.errors), style=style)
    per = _table("per level", caption=BEST_NOTE)
    for col in ("level", "papers", "best agent", "reproduced by any agent"):
        _col(per, col, fold=col == "best agent")
    for level, block in r.levels.items():
        per.add_row(level, str(block.papers), escape(block.best_agent or NONE), _pct(block.any_agent_rate))
    parts = [main, per]
    if r.claims:
        numbers = _table("per number of each claim", caption=CLAIMS_NOTE)
        columns = [("task", "left"), ("number", "left"), ("target", "right"), ("agent", "left"),
                   ("trials", "right"), ("held", "right"), ("rate", "right"), ("95 % CI", "left")]
        for col, just in columns:
            _col(numbers, col, just, fold=col in ("task", "number", "agent"))
        for c, m, agent, row in _claim_rows(r):
            numbers.add_row(escape(c.task), escape(_number(m)), f"{m.target:g}", escape(agent), str(row.trials),
                            str(row.held), _pct(row.rate), _ci(row.ci_low, row.ci_high))
        parts.append(numbers)
    if trials:
        parts.append(trials_table(r))
    t = r.totals
    summary = (f"{t.trials} of {plural(t.planned, 'trial')} {_attempts(t)} · {_time(t)} · GPU-hours "
               f"{t.gpu_hours_allocated:.3f} allocated, {t.gpu_hours_busy:.3f} busy · CPU {t.cpu_s:.1f} s · "
               f"model {plural(t.model_tokens, 'token')} ${t.model_usd:.4f}\n"
               "outcomes: " + " · ".join(f"{k} {v}" for k, v in t.outcomes.items()))
    if skipped := _skipped(r):
        summary += "\nskipped (left out of the rates):\n" + "\n".join(f"  {escape(line)}" for line in skipped)
    return Group(*parts, summary)


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
