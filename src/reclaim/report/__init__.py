"""What people read: rates per level and agent with Wilson intervals, in four formats."""

from reclaim.report.aggregate import Report, build_report, wilson
from reclaim.report.claims import read_metrics
from reclaim.report.of_run import (
    NoVerdicts,
    report_of,
)
from reclaim.report.reasons import read_reasons
from reclaim.report.render import FORMATS, render

# A trial's story (reclaim show, the HTML trial page) reads the judge's evidence: imported on first
# use, so `reclaim report` does not load the judge.
_LAZY = dict.fromkeys(("NotATrial", "Story", "budget_lines", "reruns", "trial_story"), "reclaim.report.story")


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'reclaim.report' has no attribute '{name}'")


__all__ = ["FORMATS", "NoVerdicts", "NotATrial", "Report", "Story", "budget_lines", "build_report", "read_metrics",
           "read_reasons", "render", "report_of", "reruns", "trial_story", "wilson"]
