"""The report's charts, drawn by matplotlib and kept as inline SVG: text stays text (no font is
embedded or fetched), so a page holds them whole and works offline."""

from __future__ import annotations

import io
import re

from reclaim.report.aggregate import LEVELS, Report

OUTCOME_COLOURS = {
    "reproduced": "#2e7d32", "not_reproduced": "#c62828", "disqualified": "#6a1b9a",
    "budget_exhausted": "#ef6c00", "error": "#757575", "skipped": "#bdbdbd",
}


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


def rates_chart(report: Report) -> str:
    """Success rate per level and agent, with its 95 % interval; agents with no counted trial left out."""
    agents = sorted({a for block in report.levels.values() for a in block.agents})
    levels = [lv for lv in LEVELS if lv in report.levels]
    fig = _figure(max(4.0, 1.2 + 0.5 * len(agents) * len(levels)), 2.6)
    ax = fig.subplots()
    width = 0.8 / max(1, len(agents))
    from matplotlib import colormaps

    palette = colormaps["tab10"]
    for i, agent in enumerate(agents):
        xs, ys, lo, hi = [], [], [], []
        for j, level in enumerate(levels):
            row = report.levels[level].agents.get(agent)
            if row is None or row.rate is None or row.ci_low is None or row.ci_high is None:
                continue  # (the interval is there wherever the rate is)
            xs.append(j - 0.4 + width * (i + 0.5))
            ys.append(100 * row.rate)
            lo.append(max(0.0, 100 * (row.rate - row.ci_low)))  # rounding can put the rate just outside
            hi.append(max(0.0, 100 * (row.ci_high - row.rate)))
        if xs:
            ax.bar(xs, ys, width * 0.9, yerr=[lo, hi], capsize=2, label=agent, color=palette(i % 10))
    ax.set_xticks(range(len(levels)), levels)
    ax.set_ylim(0, 100)
    ax.set_ylabel("reproduced (%)")
    ax.set_title("Success rate per level, 95 % Wilson intervals")
    if agents:
        ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.spines[["top", "right"]].set_visible(False)
    return _svg(fig)


def budget_chart(points: list[tuple[str, float, float, str]], unit: str, title: str) -> str:
    """Used against budget, one dot per trial: (trial id, budget, used, outcome)."""
    fig = _figure(4.2, 3.0)
    ax = fig.subplots()
    for outcome, colour in OUTCOME_COLOURS.items():
        mine = [(b, u) for _, b, u, o in points if o == outcome]
        if mine:
            ax.scatter([b for b, _ in mine], [u for _, u in mine], s=12, color=colour, label=outcome, alpha=0.8)
    top = max([max(b, u) for _, b, u, _ in points] or [1.0]) * 1.05
    ax.plot([0, top], [0, top], color="#999", linewidth=0.8, linestyle="--")  # the budget line
    ax.set_xlim(0, top)
    ax.set_ylim(0, top)
    ax.set_xlabel(f"budget ({unit})")
    ax.set_ylabel(f"used ({unit})")
    ax.set_title(title)
    if points:
        ax.legend(fontsize=7, frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    return _svg(fig)
