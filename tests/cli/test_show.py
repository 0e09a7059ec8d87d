"""`reclaim show`: one trial's story from the harness's records, on a real run."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_suite, task_yaml, write_suite

RECLAIM = str(Path(sys.executable).with_name("reclaim"))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    from reclaim.sandbox import default_backend

    root = tmp_path_factory.mktemp("show")
    suite = write_suite(root / "suite", [task_yaml("mean-run", "run")])
    rd, records = run_suite(suite, root / "runs", ["reference", "fabricate"], default_backend())
    assert {r.agent: r.outcome.value for r in records} == {"reference": "reproduced", "fabricate": "disqualified"}
    return rd.path


def _show(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1"}
    return subprocess.run([RECLAIM, "show", *args], capture_output=True, text=True, env=env, timeout=120)


def test_a_reproduced_trial_tells_its_story(run_dir):
    res = _show(str(run_dir / "trials" / "mean-run__reference__0"))
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "mean-run__reference__0" in out and "reproduced" in out
    assert "claim: The mean is 3.194. (Table 1)" in out
    assert "target: mean_value = 3.194 (match)" in out and "|value - 3.194| <= 0.01" in out
    assert "bash reproduce.sh" in out and "(fresh re-execution)" in out
    assert re.search(r"\((data and weights withheld|without the released data)", out)  # each extra re-execution
    assert "budget: agent wall" in out and "of 60 s" in out
    assert "re-execution (full, reproduce.sh): exit 0" in out
    assert "verdict (rules): reproduced" in out and "measured 3.19375 vs target 3.194" in out
    assert "reason: re-execution computed mean_value = 3.19375" in out
    assert "cites #" in out and "the fresh re-execution of reproduce.sh" in out
    assert "ended, exit 0" not in out  # a cited command of the timeline is named by its number, not repeated
    assert all(len(line) <= 80 for line in out.splitlines())
    assert "exit" in out and "seconds" in out  # the timeline's headers, whole
    by_id = _show(str(run_dir), "mean-run__reference__0")  # RUN TRIAL, as --trials and the run's next steps say
    assert by_id.returncode == 0 and by_id.stdout == out
    wrong = _show(str(run_dir), "mean-run__nobody__0")
    assert wrong.returncode == 2 and "has no trial mean-run__nobody__0" in wrong.stderr


def test_a_disqualified_trial_shows_its_flags_and_the_command_that_cheated(run_dir):
    res = _show(str(run_dir / "trials" / "mean-run__fabricate__0"))
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "disqualified" in out and "flags: hard_coded, fabrication" in out
    assert "written into the agent's own program" in out
    assert "the agent's command that wrote results.json" in out
    data = json.loads(_show(str(run_dir / "trials" / "mean-run__fabricate__0"), "--json").stdout)
    assert data["verdict"]["outcome"] == "disqualified" and "hard_coded" in data["verdict"]["flags"]
    agent_steps = [s for s in data["steps"] if s["phase"] == "agent" and s["kind"] == "command"]
    assert agent_steps and agent_steps[0]["exit_code"] == 0 and agent_steps[0]["seconds"] >= 0


def test_a_run_folder_or_a_stray_folder_is_refused_in_words(run_dir, tmp_path):
    res = _show(str(run_dir))
    assert res.returncode == 2
    assert "is a run, not a trial" in res.stderr and "TRIAL" in res.stderr
    res = _show(str(tmp_path))
    assert res.returncode == 2 and "no trial.json" in res.stderr and "Traceback" not in res.stderr


def test_a_linked_record_is_not_followed(run_dir, tmp_path):
    """A verdict.json that is a link (to a file anyone could write) is not read."""
    import shutil

    trial = tmp_path / "t"
    shutil.copytree(run_dir / "trials" / "mean-run__fabricate__0", trial, symlinks=True,
                    ignore=shutil.ignore_patterns("workspace", "reexec", "venv", "home", "tmp"))
    (trial / "reexec").mkdir()
    shutil.copy(run_dir / "trials" / "mean-run__fabricate__0" / "reexec" / "reexec.json", trial / "reexec")
    fake = tmp_path / "fake.json"
    verdict = json.loads((trial / "verdict.json").read_text())
    verdict.update(outcome="reproduced", rationale="FORGED", flags=[])
    fake.write_text(json.dumps(verdict))
    (trial / "verdict.json").unlink()
    (trial / "verdict.json").symlink_to(fake)
    res = _show(str(trial))
    assert res.returncode == 0, res.stderr
    assert "FORGED" not in res.stdout and "verdict: none recorded" in res.stdout
    assert "changed after the trial ended" in res.stdout  # the seal says so too
