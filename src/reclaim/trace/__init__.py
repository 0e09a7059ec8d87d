"""The trial's record: harness-observed events, appended and flushed as they happen."""

from reclaim.trace.events import (
    BudgetEvent,
    CommandFinished,
    CommandStarted,
    Event,
    FileChange,
    ModelCall,
    NetworkRequest,
    Note,
    Phase,
    ProgramExec,
    ShellCommand,
    TrialFinished,
    TrialStarted,
    WithheldFound,
)
from reclaim.trace.log import TraceCorrupt, TraceWriter, read_trace

__all__ = [
    "BudgetEvent",
    "CommandFinished",
    "CommandStarted",
    "Event",
    "FileChange",
    "ModelCall",
    "NetworkRequest",
    "Note",
    "Phase",
    "ProgramExec",
    "ShellCommand",
    "TraceCorrupt",
    "TraceWriter",
    "TrialFinished",
    "TrialStarted",
    "WithheldFound",
    "read_trace",
]
