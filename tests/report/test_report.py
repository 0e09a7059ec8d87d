"""Aggregation and the four formats; the JSON keys other tools read are pinned here."""

from __future__ import annotations

import csv
import io
import json

import pytest
from typer.testing import CliRunner

from reclaim.cli.main import app
from reclaim.report import build_report, render, wilson
from reclaim.report.render import to_csv, to_json, to_markdown
from reclaim.store import (
    BudgetUse,
    Outcome,
    RunDir,
    RunSpec,
    Status,
    TrialRecord,
    write_model,
)


def test_wilson_known_values():
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson(0, 3)
    assert lo == 0.0 and hi == pytest.approx(0.5615, abs=1e-4)
    lo, hi = wilson(3, 3)
    assert lo == pytest.approx(0.4385, abs=1e-4) and hi == 1.0


def _rec(task, level, agent, seed, outcome):
    return TrialRecord(trial_id=f"{task}__{agent}__{seed}", run_id="r1", task=task, level=level, agent=agent,
                       seed=seed, spec_hash="h", status=Status.completed, outcome=Outcome(outcome),
                       started=0, finished=1, sandbox="bwrap", isolated=True,
                       budget=BudgetUse(wall_limit_s=60, agent_wall_s=2), timings={"total_s": 3.0})


def _spec():
    return RunSpec(run_id="r1", created=0, reclaim_version="0", suite_dir="/s", suite_name="demo",
                   suite_version="1", task_hashes={}, tasks=[], agents=[], seeds=[0], judge="rules",
                   sandbox="bwrap", jobs=1)


RECORDS = [
    _rec("a", "run", "x", 0, "reproduced"), _rec("a", "run", "x", 1, "not_reproduced"),
    _rec("b", "run", "x", 0, "budget_exhausted"), _rec("b", "run", "x", 1, "error"),
    _rec("a", "run", "y", 0, "not_reproduced"), _rec("b", "run", "y", 0, "reproduced"),
    _rec("b", "run", "y", 1, "reproduced"),
    _rec("c", "reimplement", "x", 0, "disqualified"), _rec("c", "reimplement", "y", 0, "not_reproduced"),
]


def test_rates_exclude_harness_errors_and_pick_the_best_agent():
    r = build_report(_spec(), RECORDS)
    x, y = r.levels["run"].agents["x"], r.levels["run"].agents["y"]
    assert (x.trials, x.reproduced, x.errors) == (3, 1, 1)  # the error is not the agent's failure
    assert x.rate == pytest.approx(1 / 3)
    assert (y.trials, y.reproduced) == (3, 2)
    assert r.levels["run"].best_agent == "y"
    assert r.levels["run"].any_agent_rate == 1.0  # a by x, b by y
    assert r.levels["reimplement"].best_agent is None
    assert r.levels["reimplement"].any_agent_rate == 0.0
    assert "retrain" not in r.levels
    assert r.totals.outcomes == {"reproduced": 3, "not_reproduced": 3, "budget_exhausted": 1,
                                 "disqualified": 1, "error": 1, "skipped": 0}


def test_tasks_posed_harder_than_released_are_rated_apart_from_their_level():
    """Published per-level figures count levels by what the authors released: a reimplement task whose
    code was released (posed harder) must not lift or sink the reimplement rate."""
    harder = _rec("d", "reimplement", "x", 0, "reproduced").model_copy(update={"released_level": "retrain"})
    r = build_report(_spec(), [*RECORDS, harder])
    assert r.levels["reimplement"].agents["x"].trials == 1 and r.levels["reimplement"].agents["x"].reproduced == 0
    apart = r.levels["reimplement (posed harder)"]
    assert apart.papers == 1 and apart.agents["x"].reproduced == 1
    assert list(r.levels) == ["run", "reimplement", "reimplement (posed harder)"]  # each after its level
    assert [t.released_level for t in r.trials if t.task == "d"] == ["retrain"]
    assert "| reimplement (posed harder) | x | 1 | 1 |" in to_markdown(r)


def test_json_keys_are_stable():
    data = json.loads(to_json(build_report(_spec(), RECORDS)))
    assert data["run_id"] == "r1" and data["schema_version"] == 3
    row = data["levels"]["run"]["agents"]["x"]
    assert set(row) >= {"trials", "reproduced", "rate", "ci_low", "ci_high"}
    assert {"best_agent", "any_agent_rate"} <= set(data["levels"]["run"])
    assert set(data["trials"][0]) >= {"task", "level", "agent", "seed", "outcome"}


def test_csv_and_markdown():
    r = build_report(_spec(), RECORDS)
    rows = list(csv.DictReader(io.StringIO(to_csv(r))))
    agents = [row for row in rows if row["row"] == "agent"]
    assert len(agents) == 4 and agents[0]["level"] == "run"
    assert len([row for row in rows if row["row"] == "trial"]) == len(RECORDS)
    md = to_markdown(r)
    assert "| run | y | 3 | 2 | 67 % |" in md and "disqualified 1" in md


def test_report_command_reads_a_run_directory(tmp_path):
    rd = RunDir(tmp_path / "r1")
    rd.write_spec(_spec())
    for rec in RECORDS:
        write_model(rd.trial_dir(rec.trial_id) / "trial.json", rec)
    res = CliRunner().invoke(app, ["report", str(rd.path), "--format", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["totals"]["trials"] == len(RECORDS)
    res = CliRunner().invoke(app, ["report", str(rd.path)])
    assert "best agent" in res.output and res.exit_code == 0
    assert render(build_report(_spec(), RECORDS), "markdown").startswith("# reclaim report")


def test_attempts_and_their_errors_are_counted_per_trial_and_in_totals(tmp_path):
    rd = RunDir(tmp_path / "r1")
    rd.write_spec(_spec())
    retried = {"b__x__1": 2, "a__y__0": 1}  # b__x__1 stayed error after 3 attempts; a__y__0 then finished
    for rec in RECORDS:
        for _ in range(retried.get(rec.trial_id, 0)):
            write_model(rd.trial_dir(rec.trial_id) / "trial.json", rec.model_copy(update={"outcome": Outcome.error}))
            rd.set_aside(rec.trial_id)
        write_model(rd.trial_dir(rec.trial_id) / "trial.json", rec)
    assert sorted(p.name for p in rd.retried_dir.iterdir()) == ["a__y__0.1", "b__x__1.1", "b__x__1.2"]
    assert not rd.interrupted_dir.exists()

    res = CliRunner().invoke(app, ["report", str(rd.path), "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    rows = {(t["task"], t["agent"], t["seed"]): t for t in data["trials"]}
    assert (rows["b", "x", 1]["attempts"], rows["b", "x", 1]["error_attempts"]) == (3, 3)
    assert (rows["a", "y", 0]["attempts"], rows["a", "y", 0]["error_attempts"]) == (2, 1)
    assert (rows["a", "x", 0]["attempts"], rows["a", "x", 0]["error_attempts"]) == (1, 0)
    t = data["totals"]
    assert (t["trials"], t["attempts"], t["retries"], t["error_attempts"]) == (9, 12, 3, 4)
    assert t["outcomes"]["error"] == 1  # the trials still in error; the rate leaves them out as before
    assert data["levels"]["run"]["agents"]["y"]["trials"] == 3

    md = to_markdown(build_report(rd.spec(), rd.records(), retried=rd.retried()))
    assert "9 of 0 trials in 12 attempts (3 retries, 4 harness errors)" in md
    res = CliRunner().invoke(app, ["report", str(rd.path)])
    assert "in 12 attempts (3 retries, 4 harness errors)" in res.output


def test_a_report_without_retries_counts_one_attempt_per_trial():
    data = json.loads(to_json(build_report(_spec(), RECORDS)))
    assert all((t["attempts"], t["error_attempts"]) == (1, t["outcome"] == "error") for t in data["trials"])
    assert (data["totals"]["attempts"], data["totals"]["retries"], data["totals"]["error_attempts"]) == (9, 0, 1)
