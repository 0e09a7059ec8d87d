"""A trial's lifecycle: budgets, warnings, and harness failures that are never the agent's."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from conftest import run_suite, task_yaml, write_agent, write_suite
from reclaim.cli.main import app


def test_over_budget_trial_is_stopped_marked_and_kept(tmp_path, sandbox_name):
    agent = write_agent(tmp_path / "slow.sh", "echo working; echo 1 > step1.txt; sleep 60; echo 2 > step2.txt\n")
    suite = write_suite(tmp_path / "suite", [task_yaml("slow", "run", **{"budget.wall_minutes": 0.02})])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name)
    tdir = rd.trial_dir(rec.trial_id)
    assert rec.status.value == "budget_exhausted" and rec.outcome.value == "budget_exhausted"
    assert rec.budget.agent_wall_s < 10
    assert (tdir / "workspace" / "step1.txt").exists() and not (tdir / "workspace" / "step2.txt").exists()
    trace = [json.loads(line) for line in (tdir / "trace.jsonl").read_text().splitlines()]
    kinds = [e["kind"] for e in trace]
    assert "budget" in kinds and kinds[-1] == "trial_finished"
    finished = next(e for e in trace if e["kind"] == "command_finished")
    assert finished["timed_out"] and "working" in finished["stdout"]
    verdict = json.loads((tdir / "verdict.json").read_text())
    assert verdict["outcome"] == "budget_exhausted"


def test_a_harness_failure_is_an_error_not_a_failure_of_the_agent(tmp_path, sandbox_name):
    spec = task_yaml("no-python", "run")  # an interpreter no host has: the harness cannot prepare the trial
    spec["environment"] = {"python": "3.99"}
    suite = write_suite(tmp_path / "suite", [spec])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", ["reference"], sandbox_name)
    assert rec.status.value == "error" and rec.outcome.value == "error"
    assert "environment.python: no Python 3.99" in rec.error
    res = CliRunner().invoke(app, ["report", str(rd.path), "--format", "json"])
    row = json.loads(res.output)["levels"]["run"]["agents"]["reference"]
    assert row["trials"] == 0 and row["errors"] == 1


def test_process_sandbox_is_announced_in_output_and_trial(tmp_path):
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    res = CliRunner().invoke(app, ["run", "--suite", str(suite), "--agent", "reference", "--sandbox", "process",
                                   "--runs-root", str(tmp_path / "runs")])
    assert res.exit_code == 0, res.output
    assert "NO isolation" in res.output
    (trial,) = (tmp_path / "runs").glob("*/trials/*/trial.json")
    data = json.loads(trial.read_text())
    assert data["isolated"] is False and "NO isolation" in data["warnings"][0]
    assert data["outcome"] == "reproduced"


def test_run_refuses_unknown_task_and_agent(tmp_path):
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    res = CliRunner().invoke(app, ["run", "--suite", str(suite), "--task", "nope"])
    assert res.exit_code == 2 and "unknown task(s) nope" in res.output
    res = CliRunner().invoke(app, ["run", "--suite", str(suite), "--agent", "gpt"])
    assert res.exit_code == 2 and "unknown agent 'gpt'" in res.output


def test_harness_errors_are_retried_twice_and_the_old_records_kept(tmp_path, sandbox_name):
    from reclaim.runner.run import execute

    spec = task_yaml("flaky", "run")
    spec["environment"] = {"python": "3.99"}
    suite = write_suite(tmp_path / "suite", [spec])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", ["reference"], sandbox_name)
    assert rec.outcome.value == "error"  # three attempts, each failing the same way
    assert len(rd.retried(rec.trial_id)) == 2
    (rec2,) = execute(rd)  # resuming: the retries are spent, it is not run again
    assert rec2 == rec
    assert len(list((rd.path / "retried").iterdir())) == 2
