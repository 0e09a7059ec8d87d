"""A harness error (here: the LLM judge's endpoint failing) is run again at most twice, within a
run and across resumes; every attempt is kept and counted in the report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import task_yaml, write_suite
from reclaim.judge import JudgeConfig
from reclaim.runner.context import load_run_suite, make_settings
from reclaim.runner.run import RunError, RunOptions, execute, plan_run
from reclaim.runner.trial import run_trial
from reclaim.store import RunDir
from scripted_openai import Reply, ScriptedOpenAI

RECLAIM = [sys.executable, "-m", "reclaim.cli"]
TID = "mean-0__reference__0"


@pytest.fixture
def server():
    s = ScriptedOpenAI()
    yield s
    s.close()


def _calls(server: ScriptedOpenAI) -> int:
    return sum(r["path"].endswith("/chat/completions") for r in server.requests)


def _plan(tmp_path: Path, server: ScriptedOpenAI, sandbox: str, **opts) -> RunDir:
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-0", "run")])
    judge = JudgeConfig(name="llm", model="scripted", base_url=server.url, samples=1, max_retries=0,
                        timeout_s=10.0, cache_dir=str(tmp_path / "cache"))
    return plan_run(RunOptions(suite=suite, agents=["reference"], sandbox=sandbox, judge=judge,
                               runs_root=tmp_path / "runs", **opts))


def _report(run_dir: Path) -> dict:
    res = subprocess.run(RECLAIM + ["report", str(run_dir), "--format", "json"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def _outcome(trial_dir: Path) -> str | None:
    return json.loads((trial_dir / "trial.json").read_text())["outcome"]


def test_a_failing_judge_is_tried_three_times_all_kept_and_resume_does_not_try_again(tmp_path, server, sandbox_name):
    server.always(Reply(status=401, message="bad key"))  # no retry inside the judge: each attempt asks once
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-0", "run")])
    run_dir = tmp_path / "r"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    res = subprocess.run(RECLAIM + ["run", "--suite", str(suite), "--agent", "reference", "--sandbox", sandbox_name,
                                    "--judge", "llm", "--judge-model", "scripted", "--judge-base-url", server.url,
                                    "--judge-cache", str(tmp_path / "cache"), "--run-dir", str(run_dir),
                                    "--format", "json"], capture_output=True, text=True, env=env)
    assert res.returncode == 1, res.stderr  # the trial ended in error: exit 1
    assert _calls(server) == 3
    assert res.stderr.count("running it again") == 2
    kept = sorted(p.name for p in (run_dir / "retried").iterdir())
    assert kept == [f"{TID}.1", f"{TID}.2"]
    for d in [run_dir / "retried" / k for k in kept] + [run_dir / "trials" / TID]:
        assert _outcome(d) == "error"
        assert json.loads((d / "verdict.json").read_text())["flags"] == ["judge_error"]
        assert (d / "trace.jsonl").stat().st_size > 0 and (d / "workspace" / "results.json").exists()
    report = json.loads(res.stdout)
    assert report == _report(run_dir)
    (row,) = report["trials"]
    assert (row["outcome"], row["attempts"], row["error_attempts"]) == ("error", 3, 3)
    t = report["totals"]
    assert (t["trials"], t["attempts"], t["retries"], t["error_attempts"], t["outcomes"]["error"]) == (1, 3, 2, 3, 1)
    assert report["levels"]["run"]["agents"]["reference"]["trials"] == 0  # left out of the rate

    final = (run_dir / "trials" / TID / "trial.json").read_text()
    res = subprocess.run(RECLAIM + ["run", "--resume", str(run_dir), "--format", "json"],
                         capture_output=True, text=True, env=env)
    assert res.returncode == 1, res.stderr  # still in error
    assert _calls(server) == 3  # the bound is spent: not run again
    assert (run_dir / "trials" / TID / "trial.json").read_text() == final
    assert len(list((run_dir / "retried").iterdir())) == 2 and not (run_dir / "interrupted").exists()
    assert json.loads(res.stdout)["totals"]["attempts"] == 3


def test_the_count_survives_a_resume_and_an_interrupted_attempt_does_not_count(tmp_path, server, sandbox_name):
    server.always(Reply(status=500, message="upstream exploded"))
    rd = _plan(tmp_path, server, sandbox_name)
    spec = rd.spec()
    suite = load_run_suite(rd, spec)
    first = run_trial(make_settings(rd, spec, suite, []), suite.task("mean-0"), "reference", 0)
    assert first.outcome.value == "error" and _calls(server) == 1  # then the run was killed
    rd.set_aside(TID)
    cut = make_settings(rd, spec, suite, [])
    cut.cancellation.cancel()  # Ctrl-C: the next attempt stops before it finishes
    assert not run_trial(cut, suite.task("mean-0"), "reference", 0).done
    assert _calls(server) == 1

    (rec,) = execute(rd)  # --resume: two attempts are left, the interrupted one cost none
    assert rec.outcome.value == "error"
    assert _calls(server) == 3
    assert rd.retried(TID)[0].started == first.started
    assert len(rd.retried(TID)) == 2
    assert [p.name for p in rd.interrupted_dir.iterdir()] == [f"{TID}.1"]
    assert _outcome(rd.interrupted_dir / f"{TID}.1") is None
    (row,) = _report(rd.path)["trials"]
    assert (row["attempts"], row["error_attempts"]) == (3, 3)

    execute(rd)
    assert _calls(server) == 3


def test_an_error_then_an_answer_ends_with_the_answer(tmp_path, server, sandbox_name):
    server.push(Reply(status=500, message="upstream exploded"),
                Reply(content={"outcome": "not_reproduced", "measured_value": None, "computed_by": "computed",
                               "rationale": "scripted", "flags": [], "citations": []}))
    rd = _plan(tmp_path, server, sandbox_name)
    (rec,) = execute(rd)
    assert rec.outcome.value == "not_reproduced" and _calls(server) == 2
    assert [r.outcome.value for r in rd.retried(TID)] == ["error"]
    report = _report(rd.path)
    (row,) = report["trials"]
    assert (row["outcome"], row["attempts"], row["error_attempts"]) == ("not_reproduced", 2, 1)
    assert report["levels"]["run"]["agents"]["reference"]["trials"] == 1
    md = subprocess.run(RECLAIM + ["report", str(rd.path), "--format", "markdown"],
                        capture_output=True, text=True).stdout
    assert "1 of 1 trial in 2 attempts (1 retry, 1 harness error)" in md


def test_max_retries_sets_the_bound_for_the_run_and_its_resumes(tmp_path, server, sandbox_name):
    server.always(Reply(status=500))
    rd = _plan(tmp_path, server, sandbox_name, max_retries=0)
    assert rd.spec().max_retries == 0
    (rec,) = execute(rd)
    assert rec.outcome.value == "error" and _calls(server) == 1
    execute(rd)
    assert _calls(server) == 1 and not rd.retried_dir.exists()
    with pytest.raises(RunError, match="--max-retries"):
        _plan(tmp_path / "neg", server, sandbox_name, max_retries=-1)
