"""A dependency the authors release as a wheel, installed into the workspace as their README says
(pip install --target .deps code/vendor/*.whl), is theirs, not the agent's: its tables are not
the agent's literals. The gold set's retrain-vendored-smoother had its honest agents disqualified
for the paper's number in the wheel's z-table (.deps/tinysmooth/tables.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import run_suite
from reclaim.store import Outcome

GOLD = Path(__file__).resolve().parents[2] / "scripts" / "gold_suite"
TASK = "retrain-vendored-smoother"


def _suite(tmp_path: Path) -> Path:
    suite = tmp_path / "suite"
    shutil.copytree(GOLD / TASK, suite / TASK)
    (suite / "suite.yaml").write_text(f"name: wheel\nversion: '1'\ntasks: [{TASK}]\n")
    return suite


def test_a_released_wheel_installed_into_the_workspace_is_not_the_agents_code(tmp_path, bwrap_only):
    rd, (rec,) = run_suite(_suite(tmp_path), tmp_path / "runs", ["reference"], "bwrap")
    verdict = json.loads((rd.trial_dir(rec.trial_id) / "verdict.json").read_text())
    assert rec.outcome == Outcome.reproduced, verdict["rationale"]


def test_the_same_files_edited_by_the_agent_are_its_own(tmp_path, bwrap_only):
    """The release vouches only for files as its wheel has them: once the agent changes the
    installed table (which holds the paper's number), the file is the agent's and is read."""
    suite = _suite(tmp_path)
    ref = suite / TASK / "reference" / "reproduce.sh"
    text = ref.read_text()
    ref.write_text(text.replace("mkdir -p ref_out", "mkdir -p ref_out\n"
                                "printf '\\nOVERRIDE = 1\\n' >> .deps/tinysmooth/tables.py", 1))
    rd, (rec,) = run_suite(suite, tmp_path / "runs", ["reference"], "bwrap")
    verdict = json.loads((rd.trial_dir(rec.trial_id) / "verdict.json").read_text())
    # read as the agent's: the paper's number in its table is found, and the re-run with that number
    # changed there computes the same r2: the table mentions it, it is not where the result comes from
    assert rec.outcome == Outcome.reproduced, verdict["rationale"]
    assert "value_mentioned" in verdict["flags"] and ".deps/tinysmooth/tables.py" in verdict["rationale"]
