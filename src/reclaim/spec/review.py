"""What a review's status means: a draft is validated and listed, never run; an accepted task was
checked, by a reference that reproduced its target here (verified.yaml), or, where it needs what no
machine of the curators had, by a checklist that says what that is and what its verifier must run."""

from __future__ import annotations

from reclaim.spec.models import TaskSpec

NEEDS_HARDWARE = "needs_hardware"
"""review.checklist key: what verifying the task needs that no machine here has (e.g. '1x A100 80 GB, 3 h')."""
VERIFIER_MUST_RUN = "verifier_must_run"
"""review.checklist key: the command a verifier with that hardware runs, and what it must print."""
UNVERIFIED_KEYS = (NEEDS_HARDWARE, VERIFIER_MUST_RUN)


def review_status(spec: TaskSpec) -> str:
    """accepted, pending or rejected; a task with no review block (a hand-written suite) is accepted."""
    return spec.review.status if spec.review is not None else "accepted"


def is_draft(spec: TaskSpec) -> bool:
    """Validated and listed, never run by a whole-suite run: not accepted, or a value not yet read."""
    return review_status(spec) != "accepted" or bool(spec.pending_values())


def acceptance_problem(spec: TaskSpec) -> str | None:
    """Why ``review: accepted`` is not earned, or None: accepted means a reference exists and either
    reproduced here (verified.yaml) or the checklist names the hardware and the verifier's command."""
    if spec.review is None or spec.review.status != "accepted":
        return None
    if spec.reference is None:
        return ("review: accepted with reference: null: nothing shows the target can be reached. Write "
                "reference/reproduce.sh (the authors' command, writing results.json) and record it with reclaim "
                "tasks validate --with-reference --record, or set review.status: pending")
    if spec.verified is not None:
        return None
    missing = [k for k in UNVERIFIED_KEYS if not spec.review.checklist.get(k, "").strip()]
    if not missing:
        return None
    return (f"review: accepted, but its reference was never recorded here (no verified.yaml) and review.checklist "
            f"lacks {' and '.join(missing)}. Record it (reclaim tasks validate --with-reference --record), or, "
            f"where it needs what no machine here has, say what in review.checklist.{NEEDS_HARDWARE} and the "
            f"command a verifier runs, with what it must print, in review.checklist.{VERIFIER_MUST_RUN}")
