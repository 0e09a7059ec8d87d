"""What people read: rates per level and agent with Wilson intervals, in four formats."""

from reclaim.report.aggregate import Report, build_report, wilson
from reclaim.report.claims import read_metrics
from reclaim.report.of_run import report_of
from reclaim.report.reasons import read_reasons
from reclaim.report.render import FORMATS, render

__all__ = ["FORMATS", "Report", "build_report", "read_metrics", "read_reasons", "render", "report_of", "wilson"]
