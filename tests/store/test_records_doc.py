"""docs/records.md documents every field of the records a trial leaves and every flag, with the
meaning the code gives it: a field or flag added to the code and not to the page fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reclaim.budget import Limit
from reclaim.judge.dependence import Finding
from reclaim.judge.flags import Flag
from reclaim.judge.verdict import MetricVerdict, TrainingSummary, Verdict
from reclaim.store.models import BudgetUse, ReexecRecord, ScanScope, TrialRecord

DOC = (Path(__file__).resolve().parents[2] / "docs" / "records.md").read_text()
MODELS = [TrialRecord, BudgetUse, Limit, Verdict, MetricVerdict, Finding, TrainingSummary, ReexecRecord, ScanScope]


def _section(model) -> str:
    m = re.search(rf"^## .*`{model.__name__}`.*$", DOC, re.M)
    assert m, f"docs/records.md has no section for {model.__name__}"
    end = DOC.find("\n## ", m.end())
    return DOC[m.end(): end if end != -1 else None]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_every_field_is_described_in_code_and_on_the_page(model):
    section = _section(model)
    for name, field in model.model_fields.items():
        assert field.description, f"{model.__name__}.{name} has no description"
        assert f"| `{name}` | {field.description.replace('|', '/')} |" in section, f"{model.__name__}.{name}"


def test_every_flag_is_on_the_page_with_its_meaning():
    for f in Flag:
        assert f"| `{f.value}` | {f.meaning} |" in DOC, f.value
