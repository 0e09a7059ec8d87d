"""Write docs/records.md's tables from the models: every field of the records a trial leaves, with
its description, and every flag with its meaning (tests/store/test_records_doc.py checks the page).

    .venv/bin/python scripts/records_doc.py
"""

from __future__ import annotations

from pathlib import Path

from reclaim.budget import Limit
from reclaim.judge.dependence import Finding
from reclaim.judge.flags import Flag
from reclaim.judge.verdict import MetricVerdict, TrainingSummary, Verdict
from reclaim.store.models import BudgetUse, ReexecRecord, ScanScope, TrialRecord

DOC = Path(__file__).resolve().parents[1] / "docs" / "records.md"
SECTIONS = [("trial.json (`TrialRecord`)", TrialRecord), ("`budget` (`BudgetUse`)", BudgetUse),
            ("`limit` (`Limit`)", Limit), ("verdict.json (`Verdict`)", Verdict),
            ("`metrics[]` (`MetricVerdict`)", MetricVerdict), ("`dependence[]` (`Finding`)", Finding),
            ("`training` (`TrainingSummary`)", TrainingSummary), ("reexec/reexec.json (`ReexecRecord`)", ReexecRecord),
            ("`scope` (`ScanScope`)", ScanScope)]
FLAGS = """## Flags

A flag is a finding of the harness's beside a verdict's outcome (`src/reclaim/judge/flags.py`,
read by `tasks validate`, `reclaim show` and the reports). An LLM judge's model may add flags in
its own words; they are kept as given (`unparsed_answers:N` counts answers that could not be read).

| flag | meaning |
|---|---|"""


def table(model) -> str:
    rows = ["| field | meaning |", "|---|---|"]
    rows += [f"| `{name}` | {(f.description or '').replace('|', '/')} |" for name, f in model.model_fields.items()]
    return "\n".join(rows)


def main() -> None:
    text = DOC.read_text()
    intro = text[:text.index("## trial.json")]
    out = [intro.rstrip("\n") + "\n"]
    out += [f"## {title}\n\n{table(model)}\n" for title, model in SECTIONS]
    out += [FLAGS, *(f"| `{f.value}` | {f.meaning} |" for f in Flag)]
    DOC.write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
