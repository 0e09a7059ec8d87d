"""The report as one self-contained HTML page (`reclaim report --format html`), and the trial
pages it opens (`reclaim view` serves the same pages from a run's folder).

Every style, script and chart is in the page: charts are matplotlib's SVG inline, templates are
jinja2's (autoescaped: an agent's bytes are text, never markup), and nothing is fetched at view
time. Trial pages are packed into the file gzip'd and unpacked by the browser when a matrix cell
is clicked, so a 1,200-trial summary stays small and opens at once."""

from __future__ import annotations

import base64
import gzip
import time
from collections import Counter
from functools import cache
from importlib import resources
from pathlib import Path

from reclaim.judge.flags import meaning
from reclaim.report.aggregate import GROUPS, LEVELS, Report
from reclaim.report.figures import BEST_NOTE, best_agent
from reclaim.report.html.causes import group_causes
from reclaim.report.html.charts import OUTCOME_COLOURS, BudgetChart, BudgetPoint, budget_chart, rates_chart
from reclaim.report.html.trialdata import trial_page
from reclaim.report.story import NotATrial
from reclaim.store import RunDir, TrialRecord, trial_id
from reclaim.words import plural


@cache
def environment():
    import jinja2

    env = jinja2.Environment(loader=jinja2.PackageLoader("reclaim.report.html", "templates"),
                             autoescape=True, trim_blocks=True, lstrip_blocks=True)
    env.globals.update(pct=lambda x: "—" if x is None else f"{100 * x:.0f} %",
                       ci=lambda row: "—" if row.rate is None else f"[{100 * row.ci_low:.0f}, {100 * row.ci_high:.0f}]",
                       best_agent=best_agent, best_note=BEST_NOTE)
    return env


def asset(name: str) -> str:
    return resources.files("reclaim.report.html").joinpath("templates", name).read_text(encoding="utf-8")


def _when(ts: float | None) -> str:
    return "—" if not ts else time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


def trial_fragment(trial_dir: Path) -> str:
    """One trial's page as an HTML fragment (what a matrix cell opens)."""
    return environment().get_template("trial.html.j2").render(p=trial_page(trial_dir))


def _pack(html: str) -> str:
    return base64.b64encode(gzip.compress(html.encode("utf-8"), compresslevel=6, mtime=0)).decode("ascii")


def summary_html(rd: RunDir, report: Report, records: list[TrialRecord], *, embed_trials: bool = True,
                 trial_base: str | None = None) -> str:
    """The summary page of a run. ``embed_trials``: carry every trial page (one file to share);
    else ``trial_base`` is the URL prefix the page fetches them from (reclaim view)."""
    spec = rd.spec()
    agents = list(dict.fromkeys(t.agent for t in report.trials)) or list(spec.agents)
    by_cell: dict[tuple[str, str], list] = {}
    level_of: dict[str, str] = {}
    for t in report.trials:
        by_cell.setdefault((t.task, t.agent), []).append(
            {"id": trial_id(t.task, t.agent, t.seed), "outcome": t.outcome, "reason": t.reason, "seed": t.seed})
        level_of[t.task] = t.level
    tasks = sorted(level_of, key=lambda task: (LEVELS.index(level_of[task]) if level_of[task] in LEVELS else 9, task))
    matrix = [(task, level_of[task], [sorted(by_cell.get((task, a), []), key=lambda c: c["seed"]) for a in agents])
              for task in tasks]
    budget_charts = _budget_charts(report, [r for r in records if r.done])
    flags = [(f, meaning(f), n) for f, n in Counter(f for t in report.trials for f in t.flags).most_common()]
    causes = group_causes(report.trials)
    seen = {t.outcome for t in report.trials}
    starts = [r.started for r in records if r.started]
    ends = [r.finished for r in records if r.finished]
    tot = report.totals
    totals_line = (f"{plural(tot.trials, 'trial')} of {tot.planned} · elapsed {tot.elapsed_s:.1f} s · summed trial "
                   f"time {tot.wall_s:.1f} s · GPU-hours {tot.gpu_hours_allocated:.3f} allocated · model "
                   f"{tot.model_tokens} tokens ${tot.model_usd:.4f}")
    packed = []
    if embed_trials:
        for r in records:
            try:
                packed.append((r.trial_id, _pack(trial_fragment(rd.trial_dir(r.trial_id)))))
            except NotATrial:
                continue
    return environment().get_template("summary.html.j2").render(
        r=report, spec=spec, agents=agents, judge=report.judge + _judge_version(spec),
        levels=[(lv, report.levels[lv]) for lv in GROUPS if lv in report.levels], matrix=matrix,
        colours=[o for o in OUTCOME_COLOURS if o in seen], rates_svg=rates_chart(report),
        budget_charts=budget_charts, flags=flags, causes=causes,
        reasons=len({(t.outcome, t.reason) for t in report.trials}), totals_line=totals_line,
        started=_when(min(starts, default=None)), ended=_when(max(ends, default=None)), packed_trials=packed,
        trial_base=trial_base, css=asset("style.css"), js=asset("app.js"))


def _budget_charts(report: Report, records: list[TrialRecord]) -> list[BudgetChart]:
    """Agent wall time (in seconds where every trial used under two minutes), GPU-hours where a
    budget gave any, and model spend where there was any."""
    outcome = {trial_id(t.task, t.agent, t.seed): t.outcome for t in report.trials}

    def points(used, budget) -> list[BudgetPoint]:
        return [BudgetPoint(r.trial_id, r.agent, budget(r), used(r), outcome.get(r.trial_id, "")) for r in records]

    short = all(r.budget.agent_wall_s < 120 for r in records)
    scale, unit = (1.0, "s") if short else (1 / 60, "minutes")
    out = [budget_chart(points(lambda r: r.budget.agent_wall_s * scale, lambda r: r.budget.wall_limit_s * scale),
                        unit, "Agent wall time")]
    if any(r.budget.gpu_hours_limit for r in records):
        out.append(budget_chart(points(lambda r: r.budget.gpu_hours_allocated, lambda r: r.budget.gpu_hours_limit),
                                "GPU-hours", "GPU-hours allocated"))
    if any(r.budget.model_usd for r in records):
        out.append(budget_chart(points(lambda r: r.budget.model_usd, lambda r: 0.0), "USD",
                                "Model spend (no budget line)"))
    return out


def _judge_version(spec) -> str:
    cfg = spec.judge_config or {}
    bits = [str(cfg[k]) for k in ("model", "version") if cfg.get(k)]
    return f" ({', '.join(bits)})" if bits else ""
