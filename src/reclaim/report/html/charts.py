"""The report's charts, drawn by matplotlib and kept as inline SVG: text stays text (no font is
embedded or fetched), so a page holds them whole and works offline.

Every mark a test or a reader looks for carries an SVG id (matplotlib's gid): ``bar-L-A`` and
``zero-L-A`` (level L, agent A, by index), ``rates-legend``, ``marks-<outcome>``, ``budget-legend``."""

from __future__ import annotations

import io
import math
import re
from typing import NamedTuple

from reclaim.report.aggregate import GROUPS, Report

OUTCOME_COLOURS = {
    "reproduced": "#2e7d32", "not_reproduced": "#c62828", "disqualified": "#6a1b9a",
    "budget_exhausted": "#ef6c00", "error": "#757575", "skipped": "#bdbdbd",
}
AGENT_COLOURS = ("#1f77b4", "#17becf", "#bcbd22", "#0b3c5d", "#76b7b2", "#4e79a7", "#2a9d8f", "#5c6f91",
                 "#aec7e8", "#3d5a80")
"""Agents' colours: blues, teals and an olive, none near an outcome's hue (green, red, purple, orange) nor
a grey, so a bar never reads as an outcome beside the grid that colours outcomes."""


def _figure(width: float, height: float):
    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    matplotlib.rcParams.update({"svg.fonttype": "none", "font.family": "sans-serif", "font.size": 9,
                                "svg.hashsalt": "reclaim"})  # the same report gives the same bytes
    return Figure(figsize=(width, height))


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    text = text[text.index("<svg"):]  # no XML prolog or doctype inside HTML
    return re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)


ZERO_HEIGHT = 2.0  # percent: a 0 % rate is drawn as a thin outlined bar, so it shows


def rates_chart(report: Report) -> str:
    """Success rate per level and agent, each bar labelled, with its 95 % interval; a 0 % rate a thin
    outlined bar at zero; agents with no counted trial left out, and so out of the legend."""
    agents = sorted({a for block in report.levels.values() for a in block.agents})
    levels = [lv for lv in GROUPS if lv in report.levels]
    fig = _figure(max(4.6, 1.8 + 0.55 * len(agents) * len(levels)), 3.0)
    ax = fig.subplots()
    width = 0.8 / max(1, len(agents))
    drawn = []
    for i, agent in enumerate(agents):
        xs, ys, lo, hi, where = [], [], [], [], []
        for j, level in enumerate(levels):
            row = report.levels[level].agents.get(agent)
            if row is None or row.rate is None or row.ci_low is None or row.ci_high is None:
                continue  # (the interval is there wherever the rate is)
            xs.append(j - 0.4 + width * (i + 0.5))
            ys.append(100 * row.rate)
            lo.append(max(0.0, 100 * (row.rate - row.ci_low)))  # rounding can put the rate just outside
            hi.append(max(0.0, 100 * (row.ci_high - row.rate)))
            where.append(j)
        if not xs:
            continue
        colour = AGENT_COLOURS[i % len(AGENT_COLOURS)]
        bars = ax.bar(xs, [max(y, ZERO_HEIGHT) for y in ys], width * 0.9, label=agent, color=colour,
                      edgecolor=colour, linewidth=0.6)
        for patch, y, j in zip(bars.patches, ys, where, strict=True):
            zero = round(y) == 0 and y < ZERO_HEIGHT
            if zero:
                patch.set_edgecolor("#222")
            patch.set_gid(f"{'zero' if zero else 'bar'}-{j}-{i}")
        ax.errorbar(xs, ys, yerr=[lo, hi], fmt="none", ecolor="#333", elinewidth=0.8, capsize=2)
        for x, y, j in zip(xs, ys, where, strict=True):
            ax.text(x, max(y, ZERO_HEIGHT) + 1.5, f"{y:.0f} %", ha="center", va="bottom", fontsize=7,
                    gid=f"label-{j}-{i}", bbox={"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none",
                                                "alpha": 0.85})
        drawn.append(agent)
    ax.set_xticks(range(len(levels)), levels)
    ax.set_xlim(-0.5, len(levels) - 0.5)
    ax.set_ylim(0, 112)
    ax.set_yticks(range(0, 101, 20))
    ax.set_ylabel("reproduced (%)")
    ax.set_title("Success rate per level, 95 % Wilson intervals")
    if drawn:
        ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0)).set_gid("rates-legend")
    ax.spines[["top", "right"]].set_visible(False)
    return _svg(fig)


class BudgetPoint(NamedTuple):
    trial: str
    agent: str
    budget: float  # 0: no budget (model spend)
    used: float
    outcome: str


class BudgetChart(NamedTuple):
    svg: str
    note: str  # the spread in words: "all 36 trials used 0.3 s of a budget of 60 s" where they are one


def _num(x: float) -> str:
    return f"{x:.3g}"


DOT_IN = 0.075  # a dot's width and the least distance between two, in inches


def _swarm(xs: list[float], row_in: float) -> list[float]:
    """Where in its row each dot sits (in rows, about the row's line): a beeswarm. ``xs`` are the
    dots' places across the axes in inches; each takes the place nearest the line where it touches
    no dot placed before it, so dots of one value stand side by side and the rest stay on the line."""
    step = DOT_IN / row_in
    slots = [0.0] + [sign * k * step for k in range(1, int(0.42 / step) + 1) for sign in (1, -1)]
    placed: list[tuple[float, float]] = []
    out = [0.0] * len(xs)
    for i in sorted(range(len(xs)), key=lambda i: xs[i]):
        free = [y for y in slots if all(math.hypot(x - xs[i], (py - y) * row_in) >= DOT_IN for x, py in placed)]
        out[i] = free[0] if free else slots[len(placed) % len(slots)]  # full: pile up, the caption counts them
        placed.append((xs[i], out[i]))
    return out


def _spread(points: list[BudgetPoint], unit: str, common: float | None, log: bool) -> str:
    used = [p.used for p in points]
    n, lo, hi = len(points), min(used), max(used)
    budgets = sorted(p.budget for p in points if p.budget > 0)
    of = (f" of a budget of {_num(common)} {unit}" if common else
          f" of budgets of {_num(budgets[0])} to {_num(budgets[-1])} {unit}" if budgets else "")
    if len({_num(u) for u in used}) == 1:
        return f"{f'all {n} trials' if n > 1 else 'the one trial'} used {_num(hi)} {unit}{of}"
    note = f"{n} trials used {_num(lo)} to {_num(hi)} {unit}{of}"
    if common:
        note += f" (at most {100 * hi / common:.0f} % of it)" if hi / common >= 0.01 else " (under 1 % of it)"
    if log:
        zeros = sum(1 for u in used if u <= 0)
        note += "; log scale" + (f", the {zeros} at 0 drawn at the left edge" if zeros else "")
    return note


def budget_chart(points: list[BudgetPoint], unit: str, title: str) -> BudgetChart:
    """Budget used, one dot per trial in its agent's row (jittered, coloured by outcome), against
    the budget (a dashed line where every trial had the same, a grey tick per trial where not); a
    log scale where the values span more than 50-fold, and the spread said in words beside it."""
    agents = list(dict.fromkeys(p.agent for p in points))
    budgets = {p.budget for p in points}
    common = next(iter(budgets)) if len(budgets) == 1 and next(iter(budgets)) > 0 else None
    positive = [p.used for p in points if p.used > 0]
    extent = positive + [p.budget for p in points if p.budget > 0]
    log = bool(positive) and max(extent) / min(positive) > 50
    floor = min(positive) / 3 if log else 0.0
    if log:
        lo, hi = floor / 1.5, max(extent) * 1.5
    else:
        lo, hi = 0.0, (max(extent or [0.0]) * 1.08) or 1.0
    fig = _figure(6.4, 1.0 + 0.55 * max(2, len(agents)))
    ax = fig.subplots()
    box = ax.get_position()
    width_in, row_in = box.width * 6.4, box.height * fig.get_figheight() / max(1, len(agents))

    def across(x: float) -> float:
        x = max(x, floor)
        share = (math.log(x / lo) / math.log(hi / lo)) if log else (x - lo) / (hi - lo)
        return share * width_in

    y: dict[str, float] = {}
    for agent in agents:
        mine = [p for p in points if p.agent == agent]
        y.update(zip([p.trial for p in mine], _swarm([across(p.used) for p in mine], row_in), strict=True))
    row = {a: i for i, a in enumerate(agents)}
    if common:
        ax.axvline(common, color="#888", linewidth=0.9, linestyle="--", label="budget", gid="budget-line")
    elif budgeted := [p for p in points if p.budget > 0]:
        ax.scatter([p.budget for p in budgeted], [row[p.agent] + y[p.trial] for p in budgeted], marker="|", s=40,
                   color="#999", linewidths=0.9, label="budget", gid="budget-ticks")
    for outcome, colour in OUTCOME_COLOURS.items():
        mine = [p for p in points if p.outcome == outcome]
        if mine:
            ax.scatter([max(p.used, floor) for p in mine], [row[p.agent] + y[p.trial] for p in mine], s=22,
                       color=colour, edgecolors="white", linewidths=0.4, label=outcome, zorder=3,
                       gid=f"marks-{outcome}")
    if log:
        ax.set_xscale("log")
    ax.set_xlim(lo, hi)
    ax.set_yticks(range(len(agents)), agents)
    ax.set_ylim(max(1, len(agents)) - 0.5, -0.5)  # the first agent on top
    ax.set_xlabel(f"used ({unit})")
    ax.set_title(title)
    if points:
        ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0)).set_gid("budget-legend")
    ax.spines[["top", "right"]].set_visible(False)
    ax.grid(axis="x", color="#eee", linewidth=0.6)
    ax.set_axisbelow(True)
    return BudgetChart(_svg(fig), _spread(points, unit, common, log) if points else "no trials")
