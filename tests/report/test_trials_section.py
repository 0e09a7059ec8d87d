"""Reasons everywhere and honest figures: a per-trial section with each verdict's reason and flags,
elapsed time apart from summed trial time, — where there is no figure, baselines apart, plurals,
and tables that read at 80 columns."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_suite, task_yaml, write_suite
from reclaim.report import build_report
from reclaim.report.render import to_csv, to_json, to_markdown
from reclaim.store import BudgetUse, Outcome, RunSpec, Status, TrialRecord

RECLAIM = str(Path(sys.executable).with_name("reclaim"))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """One real run: the reference reproduces, fabricate is disqualified, nop leaves nothing."""
    from reclaim.sandbox import default_backend

    root = tmp_path_factory.mktemp("trials-section")
    suite = write_suite(root / "suite", [task_yaml("mean-run", "run")])
    rd, records = run_suite(suite, root / "runs", ["reference", "fabricate", "nop"], default_backend())
    assert {r.agent: r.outcome.value for r in records} == {
        "reference": "reproduced", "fabricate": "disqualified", "nop": "not_reproduced"}
    return rd.path


def _reclaim(*args: str, columns: int = 80) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1"}
    return subprocess.run([RECLAIM, *args], capture_output=True, text=True, env=env, timeout=120)


def test_table_trials_section_gives_each_trials_reason_and_flags_at_80_columns(run_dir):
    res = _reclaim("report", str(run_dir), "--trials")
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "trials" in out and "measured vs target" in out
    assert "hard_coded" in out and "fabrication" in out  # fabricate's flags
    assert "no_results" in out  # nop's
    assert "written into" in out  # fabricate's reason, wrapped across lines
    assert all(len(line) <= 80 for line in out.splitlines()), max(out.splitlines(), key=len)
    for header in ("level", "agent", "trials", "reproduced", "rate", "95 % CI", "outcome", "reason"):
        assert header in out
    assert "errors" not in out.split("per level")[0]  # a column of zeros is left out: the totals say 0
    assert "…" not in out  # nothing is cut short
    plain = _reclaim("report", str(run_dir))
    assert "hard_coded" not in plain.stdout  # the section is asked for


def test_json_and_csv_always_carry_rationale_and_flags(run_dir):
    res = _reclaim("report", str(run_dir), "--format", "json")
    data = json.loads(res.stdout)
    assert data["schema_version"] == 3
    by_agent = {t["agent"]: t for t in data["trials"]}
    fab = by_agent["fabricate"]
    assert fab["outcome"] == "disqualified" and "hard_coded" in fab["flags"]
    assert "written into the agent's own program" in fab["rationale"] and fab["metric"] == "mean_value"
    assert "\n" not in fab["reason"] and len(fab["reason"]) <= 160
    assert by_agent["reference"]["flags"] == [] and "satisfies" in by_agent["reference"]["rationale"]
    rows = list(csv.DictReader(io.StringIO(_reclaim("report", str(run_dir), "--format", "csv").stdout)))
    trials = {r["agent"]: r for r in rows if r["row"] == "trial"}
    assert set(trials) == {"reference", "fabricate", "nop"}
    assert "hard_coded" in trials["fabricate"]["flags"].split()
    assert "written into" in trials["fabricate"]["rationale"]
    assert trials["reference"]["measured"] and trials["reference"]["target"] == "3.194"
    md = _reclaim("report", str(run_dir), "--format", "markdown", "--trials").stdout
    assert "| mean-run | run | fabricate | 0 | disqualified |" in md and "hard_coded, fabrication" in md


def _rec(agent, seed, outcome, started=0.0, finished=1.0, total=1.0, task="a", error=None):
    return TrialRecord(trial_id=f"{task}__{agent}__{seed}", run_id="r1", task=task, level="run", agent=agent,
                       seed=seed, spec_hash="h", status=Status.completed, outcome=Outcome(outcome),
                       started=started, finished=finished, sandbox="bwrap", isolated=True, error=error,
                       budget=BudgetUse(wall_limit_s=60, agent_wall_s=0.5), timings={"total_s": total})


def _spec(agents, seeds=(0,)):
    return RunSpec(run_id="r1", created=0, reclaim_version="0", suite_dir="/s", suite_name="demo",
                   suite_version="1", task_hashes={}, tasks=["a"], agents=list(agents), seeds=list(seeds),
                   judge="rules", sandbox="bwrap", jobs=2)


def test_an_agent_with_no_counted_trial_has_no_rate():
    r = build_report(_spec(["reference", "mine=command:./a.sh"]),
                     [_rec("reference", 0, "reproduced"), _rec("mine", 0, "error", error="could not start")])
    row = r.levels["run"].agents["mine"]
    assert (row.trials, row.rate, row.ci_low, row.ci_high) == (0, None, None, None)
    md = to_markdown(r)
    assert "| run | mine | 0 | 0 | — | — | 1 |" in md and "[0, 100]" not in md
    rows = [x for x in csv.DictReader(io.StringIO(to_csv(r))) if x["row"] == "agent" and x["agent"] == "mine"]
    assert rows[0]["rate"] == "" and rows[0]["ci_low"] == ""
    trial = json.loads(to_json(r))["trials"][0]
    assert trial["agent"] == "mine" and trial["rationale"] == "could not start"  # the error is its reason


def test_elapsed_wall_time_is_apart_from_summed_trial_time():
    # two trials side by side: 6 s of run, 13.2 s of trials
    recs = [_rec("reference", 0, "reproduced", started=100.0, finished=106.0, total=6.0),
            _rec("reference", 1, "reproduced", started=100.2, finished=105.9, total=7.2)]
    r = build_report(_spec(["reference"], seeds=(0, 1)), recs)
    assert r.totals.elapsed_s == pytest.approx(6.0) and r.totals.wall_s == pytest.approx(13.2)
    md = to_markdown(r)
    assert "elapsed 6.0 s, trials 13.2 s summed" in md


def test_ties_go_by_name_and_baselines_are_never_best():
    agents = ["reference", "zeta=command:./z.sh", "alpha=command:./a.sh", "command:./b.sh"]
    recs = [_rec("reference", 0, "reproduced"), _rec("zeta", 0, "reproduced"), _rec("alpha", 0, "reproduced"),
            _rec("command-b", 0, "not_reproduced")]
    block = build_report(_spec(agents), recs).levels["run"]
    assert block.best_agent == "alpha"  # a 100 % tie with zeta and the reference
    assert block.baselines == ["reference"]
    assert list(block.agents) == ["alpha", "command-b", "zeta", "reference"]  # evaluated first, baselines apart
    only_baselines = build_report(_spec(["reference"]), [_rec("reference", 0, "reproduced")]).levels["run"]
    assert only_baselines.best_agent is None and only_baselines.agents["reference"].baseline
    assert "reference (baseline)" in to_markdown(build_report(_spec(agents), recs))


def test_counts_of_one_are_singular():
    r = build_report(_spec(["reference"]), [_rec("reference", 0, "reproduced")])
    md = to_markdown(r)
    assert "1 of 1 trial in 1 attempt (0 retries, 0 harness errors)" in md
    assert "1 trials" not in md and "1 attempts" not in md
    two = to_markdown(build_report(_spec(["reference"], seeds=(0, 1)),
                                   [_rec("reference", 0, "reproduced"), _rec("reference", 1, "reproduced")]))
    assert "2 of 2 trials in 2 attempts" in two
