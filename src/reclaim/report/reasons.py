"""Why each trial ended as it did: the verdict's reason and flags, read from the harness's records.

The verdict a report's outcome comes from (verdict.json, or verdicts/<judge>.json for a judge run
again) is written by the judge, outside the agent's reach and sealed in trial.json; a trial that
ended in error or was skipped has its reason in trial.json itself."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reclaim.store import VERDICT_JSON, VERDICTS, Outcome, RunDir, TrialRecord


class VerdictReason(BaseModel):
    """The part of a verdict (judge/verdict.py) a report shows; other keys are ignored."""

    model_config = ConfigDict(extra="ignore")
    outcome: str | None = None
    metric: str = ""
    rationale: str = ""
    flags: list[str] = Field(default_factory=list)


def one_line(text: str, width: int = 160) -> str:
    """The first line of a rationale, cut to ``width`` characters with an ellipsis."""
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1].rstrip() + "…"


def read_reasons(rd: RunDir, records: list[TrialRecord], judge: str | None = None,
                 outcomes: dict[str, Outcome] | None = None) -> dict[str, VerdictReason]:
    """trial id -> its reason, from the verdict its report outcome comes from (``outcomes``: of
    another judge, read from verdicts/<judge>.json), or trial.json's error or note."""
    out = {}
    for r in records:
        if not r.done:
            continue
        outcome = (outcomes or {}).get(r.trial_id, r.outcome)
        if Outcome(outcome) in (Outcome.error, Outcome.skipped) or (outcomes and r.trial_id not in outcomes):
            out[r.trial_id] = VerdictReason(outcome=Outcome(outcome).value, rationale=r.error or r.note or "")
            continue
        name = f"{VERDICTS}/{judge}.json" if outcomes else VERDICT_JSON
        path = rd.trial_dir(r.trial_id) / name
        try:
            if path.is_symlink():
                continue
            out[r.trial_id] = VerdictReason.model_validate_json(path.read_bytes())
        except (OSError, ValidationError, ValueError):
            continue
    return out
