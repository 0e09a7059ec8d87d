"""What is kept: trial directories (the truth) and a SQLite index rebuilt from them."""

from reclaim.store.files import (
    HASH_LIMIT,
    PROVIDED,
    RESULTS,
    RUN_JSON,
    SPEC_JSON,
    TRACE,
    TRIAL_JSON,
    VERDICT_JSON,
    VERDICTS,
    RunDir,
    checked_record,
    read_model,
    seal,
    sha256_file,
    trial_spec,
    write_model,
)
from reclaim.store.home import HOME_ENV, keep_records, runs_root
from reclaim.store.index import Index
from reclaim.store.models import (
    MAX_RETRIES,
    BudgetUse,
    Outcome,
    RunSpec,
    Status,
    TrialRecord,
    agent_label,
    suite_hash,
    trial_id,
)

__all__ = [
    "HASH_LIMIT", "HOME_ENV", "MAX_RETRIES", "PROVIDED", "RESULTS", "RUN_JSON", "SPEC_JSON", "TRACE", "VERDICTS", "TRIAL_JSON", "VERDICT_JSON", "BudgetUse", "Index",
    "Outcome", "RunDir", "RunSpec", "Status", "TrialRecord", "agent_label", "checked_record", "keep_records", "runs_root", "seal", "suite_hash", "read_model", "sha256_file", "trial_id",
    "trial_spec", "write_model",
]
