"""`reclaim runs` and `reclaim run --resume` as a user meets them: real runs, real processes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import task_yaml, write_suite
from reclaim.runner.run import RunOptions, plan_run

RECLAIM = [sys.executable, "-m", "reclaim.cli"]
HEADERS = ("run", "suite", "agents", "trials", "status", "judge")


def _reclaim(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    full = dict(os.environ)
    full.update(PYTHONPATH=os.pathsep.join(sys.path), **env)
    return subprocess.run(RECLAIM + args, cwd=cwd, env=full, capture_output=True, text=True)


def test_runs_of_a_folder_that_does_not_exist_creates_nothing(tmp_path):
    missing = tmp_path / "nonexistent"
    res = _reclaim(["runs", str(missing)], tmp_path)
    assert res.returncode == 2 and "does not exist" in res.stderr
    assert not missing.exists()
    res = _reclaim(["runs"], tmp_path)  # the default root, ./runs, absent too
    assert res.returncode == 2 and not (tmp_path / "runs").exists()
    (tmp_path / "empty").mkdir()
    res = _reclaim(["runs", str(tmp_path / "empty")], tmp_path)
    assert res.returncode == 0 and "no runs in" in res.stdout
    assert list((tmp_path / "empty").iterdir()) == []  # no index.sqlite made by reading


def test_runs_table_at_80_columns(tmp_path, sandbox_name):
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    res = _reclaim(["run", "--suite", str(suite), "--agent", "reference", "--agent", "nop", "--agent", "fabricate",
                    "--sandbox", sandbox_name, "--runs-root", str(tmp_path / "runs")], tmp_path)
    assert res.returncode == 0, res.stderr
    plan_run(RunOptions(suite=suite, agents=["nop"], sandbox=sandbox_name, runs_root=tmp_path / "runs"))  # unfinished
    out = _reclaim(["runs", str(tmp_path / "runs")], tmp_path, COLUMNS="80").stdout
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80
    header = next(line for line in lines if line.split()[:1] == ["run"])
    assert header.split() == list(HEADERS)  # every header whole; the date is the run id's start
    assert "…" not in out
    assert "3/3" in out and "finished" in out and "0/1" in out and "unfinished" in out and "mini@1" in out
    words = out.split()
    assert "judge" in words and "rules" in words  # not 'judg' / 'rule'
    assert {"reference,", "nop,", "fabricate"} <= set(words)  # never split mid-word ('referenc' / 'e')
    wide = _reclaim(["runs", str(tmp_path / "runs")], tmp_path, COLUMNS="120").stdout
    header = next(line for line in wide.splitlines() if line.split()[:1] == ["run"])
    assert header.split() == ["run", "date", *HEADERS[1:]]


def _planned(tmp_path: Path, sandbox_name: str) -> tuple[Path, Path]:
    """A run planned and not yet run (as after a kill before its first trial)."""
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    rd = plan_run(RunOptions(suite=suite, agents=["reference"], sandbox=sandbox_name, runs_root=tmp_path / "runs"))
    return suite, rd.path


def test_resume_after_the_suite_moved(tmp_path, sandbox_name):
    suite, run = _planned(tmp_path, sandbox_name)
    moved = tmp_path / "moved-suite"
    shutil.move(suite, moved)
    res = _reclaim(["run", "--resume", str(run)], tmp_path)
    assert res.returncode == 2 and "--suite NEWPATH" in " ".join(res.stderr.split())
    res = _reclaim(["run", "--resume", str(run), "--suite", str(moved), "--format", "json"], tmp_path)
    assert res.returncode == 0, res.stderr
    assert json.loads((run / "run.json").read_text())["suite_dir"] == str(moved.resolve())
    rec = json.loads((run / "trials" / "mean-run__reference__0" / "trial.json").read_text())
    assert rec["outcome"] == "reproduced"


def test_resume_refuses_a_suite_whose_task_changed(tmp_path, sandbox_name):
    suite, run = _planned(tmp_path, sandbox_name)
    copy = tmp_path / "copy"
    shutil.copytree(suite, copy)
    with open(copy / "mean-run" / "paper.md", "a") as fh:
        fh.write("\nA sentence added after the run began.\n")
    res = _reclaim(["run", "--resume", str(run), "--suite", str(copy)], tmp_path)
    said = " ".join(res.stderr.split())
    assert res.returncode == 2 and "task changed" in said and "mean-run" in said
    assert json.loads((run / "run.json").read_text())["suite_dir"] == str(suite.resolve())
    assert not (run / "trials").exists()


def test_resume_refuses_options_that_change_the_plan(tmp_path, sandbox_name):
    _, run = _planned(tmp_path, sandbox_name)
    res = _reclaim(["run", "--resume", str(run), "--agent", "nop", "--seeds", "3"], tmp_path)
    said = " ".join(res.stderr.split())
    assert res.returncode == 2
    assert "--agent, --seeds cannot be used with --resume" in said and "keeps its plan" in said
    assert not (run / "trials").exists()
    res = _reclaim(["run", "--resume", run.name, "--runs-root", str(tmp_path / "runs")], tmp_path)  # by id
    assert res.returncode == 0, res.stderr
