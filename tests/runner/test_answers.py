"""A release without its answers (issue 32, item 2): in every re-run the paper, TASK.md and the
release's texts show another value in each target's place. A program that copies the number
from them gives the wrong one and is disqualified; one that reads its settings from the paper
still reproduces."""

from __future__ import annotations

import json
import random

import pytest

from conftest import run_suite, write_agent
from reclaim.runner.answers import Answers
from reclaim.spec import TaskSpec
from reclaim.suites import resolve_suite

SPEC = {
    "id": "t", "level": "run",
    "paper": {"title": "T", "venue": "v", "year": 2025, "authors": ["A"], "text": "paper.md"},
    "target": {"claim": "c", "metrics": {
        "acc": {"value": 0.8731, "direction": "higher_is_better", "rel_tol": 0.02, "bounds": [0, 1]},
        "rmse": {"value": 2.7271, "direction": "lower_is_better", "rel_tol": 0.02},
        "errors": {"value": 0, "direction": "lower_is_better", "abs_tol": 0, "bounds": [0, 1000]}}},
    "budget": {"wall_minutes": 5, "gpu_hours": 0},
}


@pytest.fixture
def answers():
    return Answers.for_task(TaskSpec.model_validate(SPEC), random.Random(1))


def test_every_written_form_of_a_target_shows_another_value_on_the_losing_side(answers):
    (acc, acc_shown), (rmse, rmse_shown) = answers.shown["acc"], answers.shown["rmse"]
    assert acc_shown < acc * 0.9 and 0 < acc_shown < 1 and rmse_shown > rmse * 1.1
    assert "errors" not in answers.shown  # at its bound: shown as it is (a perturbation's task)
    text = "accuracy 0.8731 (87.31 %), rounded 0.873 or 87.3; RMSE 2.7271, 2.727, 2.73; lr 0.01, 30 epochs, 2025"
    out = answers.text(text)
    for form in ("0.8731", "87.31", "0.873", "87.3", "2.7271", "2.727", "2.73"):
        assert form not in out.replace("0.01", ""), (form, out)
    assert "lr 0.01, 30 epochs, 2025" in out  # the settings are not targets: they stay
    assert answers.text("nothing of it here: 0.5, 12") is None


def test_notebook_outputs_are_stripped_and_python_comments_altered_code_kept(answers):
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["We get **0.8731**.\n"]},
        {"cell_type": "code", "metadata": {}, "execution_count": 3, "source": ["print(run())\n"],
         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["0.8731\n"]}]}]}
    out = json.loads(answers.file("notebooks/demo.ipynb", json.dumps(nb).encode()))
    assert out["cells"][1]["outputs"] == [] and out["cells"][1]["execution_count"] is None
    assert "0.8731" not in json.dumps(out) and out["cells"][1]["source"] == ["print(run())\n"]
    program = "x = 2.7271  # the paper: 2.7271\nprint('2.7271')\n"
    got = answers.file("code/run.py", program.encode()).decode()
    assert got.startswith("x = 2.7271  # the paper: ") and "print('2.7271')" in got  # code as it was
    assert answers.file("results/table.csv", b"model,rmse\nours,2.7271\n") is not None
    assert answers.file("data/train.csv", b"x,y\n2.7271,1\n") is None  # data is computed with: kept


def test_a_notebook_loses_its_outputs_where_every_target_is_at_a_bound():
    """DAGMA's example notebook prints {'fdr': 0.0, 'tpr': 1.0, 'shd': 0}: no value can be shown
    in place of a bound, but the output cell a copier reads is gone all the same."""
    bound = {**SPEC, "target": {"claim": "c", "metrics": {
        "shd": {"value": 0, "direction": "lower_is_better", "abs_tol": 0, "bounds": [0, 1000]},
        "tpr": {"value": 1.0, "direction": "higher_is_better", "abs_tol": 0, "bounds": [0, 1]}}}}
    none = Answers.for_task(TaskSpec.model_validate(bound), random.Random(1))
    assert none.shown == {}
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": ["print(acc)\n"],
         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["{'tpr': 1.0, 'shd': 0}\n"]}]}]}
    out = json.loads(none.file("examples/demo.ipynb", json.dumps(nb).encode()))
    assert out["cells"][0]["outputs"] == [] and out["cells"][0]["source"] == ["print(acc)\n"]
    assert none.file("README.md", b"shd 0, tpr 1.0") is None  # texts: nothing to alter


COPIER = r"""
cat > reproduce.sh <<'EOF'
#!/bin/bash
# the paper's table, last row: whatever the paper says there
v=$(grep -F 'ours, released' paper.md | grep -oE '[0-9]+\.[0-9]{3,}' | tail -1)
echo "{\"test_rmse\": $v}" > results.json
EOF
bash reproduce.sh
"""

FROM_THE_PAPER = r"""
cat > reproduce.sh <<'EOF'
#!/bin/bash
# the penalty the paper chose, read from the paper; the fit and the evaluation computed here
set -euo pipefail
lam=$(grep -oE 'residual is λ = [0-9.]+' paper.md | grep -oE '[0-9.]+$')
mkdir -p out
python3 - "$lam" <<'PY'
import sys
import numpy as np
sys.path.insert(0, "code")
from train import load, ridge
lam = float(sys.argv[1])
names, X, y = load("data/train.csv")
mean, scale = X.mean(axis=0), X.std(axis=0)
coef = ridge((X - mean) / scale, y - y.mean(), lam)
np.savez("out/model.npz", coef=coef, intercept=np.array(y.mean()), mean=mean, scale=scale,
         lam=np.array(lam), bands=np.array(names))
PY
python3 code/evaluate.py --weights out/model.npz --data data/test.csv --out out/metrics.json
python3 -c "import json; m = json.load(open('out/metrics.json'))
json.dump({'test_rmse': m['rmse']}, open('results.json', 'w'))"
EOF
bash reproduce.sh
"""


@pytest.fixture(scope="module")
def trials(tmp_path_factory, sandbox_name):
    tmp = tmp_path_factory.mktemp("answers")
    agents = [f"copier=command:{write_agent(tmp / 'copier.sh', COPIER)}",
              f"paper_settings=command:{write_agent(tmp / 'settings.sh', FROM_THE_PAPER)}"]
    rd, records = run_suite(resolve_suite("demo"), tmp / "runs", agents, sandbox_name, tasks=["run-ridge-nir"])
    return {r.agent: (r, rd.trial_dir(r.trial_id)) for r in records}


def test_a_number_copied_from_the_paper_is_the_altered_one_and_disqualified(trials):
    record, tdir = trials["copier"]
    verdict = json.loads((tdir / "verdict.json").read_text())
    assert record.outcome.value == "disqualified" and "reads_paper" in verdict["flags"], verdict["rationale"]
    assert "the value its texts showed in place of the paper's 2.7271" in verdict["rationale"]
    shown = (tdir / "reexec" / "workspace" / "paper.md").read_text()
    assert "2.7271" not in shown and "2.727" not in shown  # the agent's own paper.md said it; this one does not
    assert "λ = 30" in shown  # the settings stay


def test_a_program_that_reads_its_settings_from_the_paper_reproduces(trials):
    record, tdir = trials["paper_settings"]
    verdict = json.loads((tdir / "verdict.json").read_text())
    assert record.outcome.value == "reproduced", verdict["rationale"]
