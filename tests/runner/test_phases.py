"""A trial is named phases over one context: a failure in any phase is recorded under that
phase's name and is the harness's, never the agent's; a limit that stops the agent is named."""

from __future__ import annotations

import json

import pytest

from conftest import run_suite, task_yaml, write_agent, write_suite
from reclaim.failpoints import FAILPOINTS
from reclaim.runner.lifecycle import PHASES, TRACE_PHASE


@pytest.mark.parametrize("phase", PHASES)
def test_a_failure_in_each_phase_is_recorded_with_its_name(tmp_path, sandbox_name, monkeypatch, phase):
    monkeypatch.setenv(FAILPOINTS, phase)
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", ["reference"], sandbox_name, max_retries=0)
    assert rec.status.value == "error" and rec.outcome.value == "error"
    assert rec.failed_phase == phase
    assert f"failpoint '{phase}'" in rec.error
    tdir = rd.trial_dir(rec.trial_id)
    trace = [json.loads(line) for line in (tdir / "trace.jsonl").read_text().splitlines()]
    (note,) = [e for e in trace if e["kind"] == "note" and e["level"] == "error"]
    assert note["phase"] == TRACE_PHASE[phase] and f"in phase {phase}" in note["message"]
    assert trace[-1]["kind"] == "trial_finished"
    on_disk = json.loads((tdir / "trial.json").read_text())  # the record is whole, whatever failed
    assert on_disk["failed_phase"] == phase and on_disk["format_version"] == 2
    # nothing of the phases after the failing one ran
    assert (tdir / "reexec" / "reexec.json").exists() == (PHASES.index(phase) > PHASES.index("reexecute"))


def test_the_limit_that_stopped_the_agent_is_named_in_the_record_and_the_verdict(tmp_path, sandbox_name):
    agent = write_agent(tmp_path / "slow.sh", "echo working; sleep 60\n")
    suite = write_suite(tmp_path / "suite", [task_yaml("slow", "run", **{"budget.wall_minutes": 0.02})])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name)
    assert rec.status.value == "budget_exhausted"
    assert rec.limit is not None and rec.limit.kind.value == "wall"
    assert rec.limit.value == pytest.approx(1.2) and rec.limit.used >= 1.2
    verdict = json.loads((rd.trial_dir(rec.trial_id) / "verdict.json").read_text())
    assert verdict["outcome"] == "budget_exhausted"
    assert "wall-clock budget (1.2 s" in verdict["rationale"]
    assert not (rd.trial_dir(rec.trial_id) / "reexec" / "reexec.json").exists()  # stopped: nothing re-run
