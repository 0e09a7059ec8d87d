"""Named failpoints: faults injected where the harness names them, for tests and fault drills.

``RECLAIM_FAILPOINTS`` lists points, comma-separated. ``judge`` raises an injected fault there
(a harness failure by design, recorded with where it happened); ``judge:kill`` kills the whole
harness process with SIGKILL there, the way an operator, the OOM killer or a lost node would, so
that a drill can show that ``reclaim run --resume`` makes the run whole from that point.

Points: the trial phases (``prepare``, ``agent``, ``reexecute``, ``judge``, ``seal``, each at its
start), ``sealing`` (a trial's records written, its seal and trial.json not yet), ``index`` (a
finished trial not yet in the run's index), ``plan`` (a run's plan written, no trial started) and
``report`` (every trial finished, the report not yet shown). The variable is read from the
harness's own environment, which no sandbox can set.
"""

from __future__ import annotations

import os
import signal

from reclaim.errors import TrialError

FAILPOINTS = "RECLAIM_FAILPOINTS"
POINTS = ("plan", "prepare", "agent", "reexecute", "judge", "seal", "sealing", "index", "report")
ACTIONS = ("fail", "kill")


class InjectedFault(TrialError):
    """A fault injected at a named failpoint (RECLAIM_FAILPOINTS): a harness failure by design."""


def armed(name: str) -> str | None:
    """The action armed at point ``name`` (fail or kill), or None."""
    assert name in POINTS, name
    for item in os.environ.get(FAILPOINTS, "").split(","):
        point, _, action = item.strip().partition(":")
        if point == name:
            if (action or "fail") not in ACTIONS:
                raise InjectedFault(f"{FAILPOINTS}: '{item}' has an unknown action; use {name} or {name}:kill")
            return action or "fail"
    return None


def failpoint(name: str) -> None:
    """At point ``name``: raise InjectedFault, or SIGKILL this process, where the drill asks for it."""
    action = armed(name)
    if action == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if action == "fail":
        raise InjectedFault(f"a fault injected at failpoint '{name}' ({FAILPOINTS})")
