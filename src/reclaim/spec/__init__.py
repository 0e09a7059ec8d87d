"""Task specs: what a paper claims, what was released, and how a result is judged."""

from reclaim.spec.load import (
    Problem,
    SpecError,
    Suite,
    Task,
    content_hash,
    load_suite,
    load_task,
)
from reclaim.spec.models import (
    Budget,
    Criteria,
    Direction,
    Environment,
    GitSource,
    HttpSource,
    HubSource,
    Level,
    MaterialRef,
    Materials,
    Metric,
    MetricTarget,
    Network,
    NetworkPolicy,
    Paper,
    ReexecMode,
    Reexecution,
    Reference,
    SuiteMeta,
    Target,
    TaskSpec,
    Tolerance,
)

__all__ = [
    "Budget", "Criteria", "Direction", "Environment", "GitSource", "HttpSource", "HubSource", "Level",
    "Metric", "MetricTarget", "Network", "NetworkPolicy", "Materials", "MaterialRef", "Paper", "Problem",
    "Reexecution", "ReexecMode", "Tolerance",
    "Reference", "SpecError", "Suite", "SuiteMeta", "Target", "Task", "TaskSpec", "content_hash",
    "load_suite", "load_task",
]
