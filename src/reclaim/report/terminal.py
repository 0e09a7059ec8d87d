"""The report in the terminal: tables that read at 80 columns, and the trials one under another.

Nothing is cut: a column whose text does not fit wraps at whole words, agent labels and flags stay
whole, and a trial's reason takes its own lines under the trial, wrapped at the console's width."""

from __future__ import annotations

from itertools import groupby

from rich import box
from rich.console import Console, ConsoleOptions, Group, JustifyMethod, RenderResult
from rich.markup import escape
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from reclaim.report.aggregate import Report, TrialRow
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
from reclaim.store import trial_id
from reclaim.words import plural

OUTCOME_STYLE = {"reproduced": "green", "not_reproduced": "yellow", "budget_exhausted": "magenta",
                 "disqualified": "red", "error": "bold red"}
INDENT = 2
"""Where a trial's reason and flags start, under its line."""


def _table(title: str | None = None, caption: str | None = None) -> Table:
    return Table(title=title, caption=caption, title_justify="left", caption_justify="left", box=box.SIMPLE_HEAD,
                 pad_edge=False, highlight=False)


def _col(t: Table, name: str, justify: JustifyMethod = "left", wrap: bool = False) -> None:
    """A column whose header is never cut: short ones keep their width; ``wrap``: text that may take
    several lines, broken between words only."""
    t.add_column(name, justify=justify, no_wrap=not wrap, min_width=len(name))


def _rates(r: Report) -> Table:
    scale = f", budgets ×{r.budget_scale:g}" if r.budget_scale != 1 else ""
    main = _table(f"reclaim — run {r.run_id} ({r.suite} {r.suite_version}, judge {r.judge}, "
                  f"sandbox {r.sandbox}{scale})")
    errors = any(row.errors for *_, row in level_rows(r))  # a column of zeros says nothing: the totals do
    columns: list[tuple[str, JustifyMethod]] = [
        ("level", "left"), ("agent", "left"), ("trials", "right"), ("reproduced", "right"), ("rate", "right"),
        ("95 % CI", "left")]
    if errors:
        columns.append(("errors", "right"))
    for col, just in columns:
        _col(main, col, just)
    for level, block, agent, row in level_rows(r):
        style = "bold green" if agent == block.best_agent else ("dim" if row.baseline else "")
        cells = [level, escape(agent_name(agent, row.baseline)), str(row.trials), str(row.reproduced),
                 pct(row.rate), ci(row.ci_low, row.ci_high)] + ([str(row.errors)] if errors else [])
        main.add_row(*cells, style=style)
    return main


def _per_level(r: Report) -> Table:
    per = _table("per level")
    for col in ("level", "papers", "best agent", "reproduced by any agent"):
        _col(per, col, wrap=col == "best agent")
    for level, block in r.levels.items():
        per.add_row(level, str(block.papers), escape(best_agent(block)), pct(block.any_agent_rate))
    return per


class ClaimsSection:
    """A table per task whose claim has several numbers, the task in its title. A number's name is never
    cut: where the names do not fit beside the other columns, each number gets a line of its own (its
    name and target) with its agents' rows under it."""

    COLUMNS: tuple[tuple[str, JustifyMethod], ...] = (
        ("agent", "left"), ("trials", "right"), ("held", "right"), ("rate", "right"), ("95 % CI", "left"))

    def __init__(self, r: Report) -> None:
        self.groups = [(task, list(rows)) for task, rows in groupby(claim_rows(r), key=lambda row: row[0].task)]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for task, rows in self.groups:
            name_w = max(len(number(m)) for _, m, _, _ in rows)
            target_w = max(len(f"{m.target:g}") for _, m, _, _ in rows)
            cells = [self._cells(agent, row) for _, _, agent, row in rows]
            rest = [max(len(h), *(len(c[i]) for c in cells)) for i, (h, _) in enumerate(self.COLUMNS)]
            if name_w + max(target_w, 6) + sum(rest) + 2 * (len(rest) + 1) <= options.max_width:
                yield self._flat(task, rows)
            else:
                yield from self._stacked(task, rows)
        if self.groups:
            yield Text(CLAIMS_NOTE)

    @staticmethod
    def _cells(agent: str, row) -> list[str]:
        return [agent, str(row.trials), str(row.held), pct(row.rate), ci(row.ci_low, row.ci_high)]

    def _flat(self, task: str, rows: list) -> Table:
        t = _table(f"per number of each claim: {task}")
        columns: list[tuple[str, JustifyMethod]] = [("number", "left"), ("target", "right"), *self.COLUMNS]
        for col, just in columns:
            _col(t, col, just)
        for _, m, agent, row in rows:
            t.add_row(escape(number(m)), f"{m.target:g}", *map(escape, self._cells(agent, row)))
        return t

    def _stacked(self, task: str, rows: list) -> RenderResult:
        yield Text(f"per number of each claim: {task}", style="italic")
        for m, grouped in groupby(rows, key=lambda row: row[1]):
            yield Text(f"{number(m)} (target {m.target:g})", style="bold")
            t = _table()
            for col, just in self.COLUMNS:
                _col(t, col, just)
            for _, _, agent, row in grouped:
                t.add_row(*map(escape, self._cells(agent, row)))
            yield Padding(t, (0, 0, 0, INDENT))


def _head(t: TrialRow, width: int) -> tuple[Text, str]:
    """'TRIAL · outcome · measured vs target', and what did not fit on that line (the figures, then
    put before the reason): a line is never broken inside a part."""
    head = Text(trial_id(t.task, t.agent, t.seed), style="bold")
    head.append(" · ").append(t.outcome, style=OUTCOME_STYLE.get(t.outcome, ""))
    figures = versus(t)
    if head.cell_len + 3 + len(figures) <= width:
        return head.append(f" · {figures}"), ""
    return head, f"{figures}: "


class TrialsSection:
    """Every trial in level order (run, retrain, reimplement; then task, agent, seed): its id, outcome
    and figures on one line, its whole reason and its flags on the lines under it."""

    def __init__(self, trials: list[TrialRow]) -> None:
        self.trials = in_level_order(trials)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text("\ntrials, in level order: TRIAL · outcome · measured vs target, then the reason and flags "
                   "(a trial's whole story: reclaim show RUN TRIAL)", style="bold")
        for level, rows in groupby(self.trials, key=lambda t: t.level):
            mine = list(rows)
            yield Text(f"\n{level} ({plural(len(mine), 'trial')})", style="bold underline")
            for t in mine:
                head, rest = _head(t, options.max_width)
                yield head
                reason = Text(rest + why(t))
                if t.flags:  # flags (identifiers) after the reason, never broken inside one
                    reason.append(f"{' ' if reason else ''}[flags: {flags(t)}]", style="cyan")
                if reason:
                    yield Padding(reason, (0, 0, 0, INDENT))


def to_rich(r: Report, trials: bool = False) -> Group:
    parts: list = [_rates(r), _per_level(r), Text(BEST_NOTE), ClaimsSection(r)]
    if trials:
        parts.append(TrialsSection(r.trials))
    t = r.totals
    summary = (f"{t.trials} of {plural(t.planned, 'trial')} {attempts(t)} · {times(t)} · GPU-hours "
               f"{t.gpu_hours_allocated:.3f} allocated, {t.gpu_hours_busy:.3f} busy · CPU {t.cpu_s:.1f} s · "
               f"model {plural(t.model_tokens, 'token')} ${t.model_usd:.4f}\n"
               "outcomes: " + " · ".join(f"{k} {v}" for k, v in t.outcomes.items()))
    if lines := skipped(r):
        summary += "\nskipped (left out of the rates):\n" + "\n".join(f"  {escape(line)}" for line in lines)
    return Group(*parts, "\n" + summary if trials else summary)
