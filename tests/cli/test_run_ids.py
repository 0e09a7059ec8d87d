"""A run named by its id, exactly as `reclaim runs` prints it, wherever a run folder is taken."""

from __future__ import annotations

import json
import subprocess
import sys

RECLAIM = [sys.executable, "-m", "reclaim.cli"]


def test_report_judge_and_resume_take_the_run_id_that_runs_lists(tmp_path, sandbox_name):
    made = subprocess.run(RECLAIM + ["run", "--task", "run-ridge-nir", "--agent", "nop", "--sandbox", sandbox_name],
                          cwd=tmp_path, capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    assert "1 task × 1 agent × 1 seed," in " ".join(made.stdout.split())  # no "1 seeds"
    listed = subprocess.run(RECLAIM + ["runs"], cwd=tmp_path, capture_output=True, text=True).stdout
    (run_id,) = [p.name for p in (tmp_path / "runs").iterdir() if (p / "run.json").is_file()]
    assert run_id in listed
    report = subprocess.run(RECLAIM + ["report", run_id, "--format", "json"], cwd=tmp_path, capture_output=True,
                            text=True)
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["run_id"] == run_id
    judged = subprocess.run(RECLAIM + ["judge", run_id], cwd=tmp_path, capture_output=True, text=True)
    assert judged.returncode == 0, judged.stderr
    resumed = subprocess.run(RECLAIM + ["run", "--resume", run_id], cwd=tmp_path, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert "is complete (1 trial, all finished): nothing to run" in " ".join(resumed.stdout.split())
    unknown = subprocess.run(RECLAIM + ["report", "20990101-000000-0000"], cwd=tmp_path, capture_output=True,
                             text=True)
    assert unknown.returncode != 0 and "Traceback" not in unknown.stderr and "20990101-000000-0000" in unknown.stderr
