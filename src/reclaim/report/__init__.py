"""What people read: rates per level and agent with Wilson intervals, in four formats."""

from reclaim.report.aggregate import Report, build_report, wilson
from reclaim.report.claims import read_metrics
from reclaim.report.of_run import (
    NoVerdicts,
    report_of,
)
from reclaim.report.reasons import read_reasons
from reclaim.report.render import FORMATS, render
from reclaim.report.story import NotATrial, Story, budget_lines, reruns, trial_story

__all__ = ["FORMATS", "NoVerdicts", "NotATrial", "Report", "Story", "budget_lines", "build_report", "read_metrics",
           "read_reasons", "render", "report_of", "reruns", "trial_story", "wilson"]
