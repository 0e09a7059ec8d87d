"""The Slurm executor against a real single-node Slurm (munge, slurmctld, slurmd; placeholder GPUs)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import task_yaml, write_agent, write_suite
from reclaim.judge import JudgeConfig
from reclaim.report import build_report
from reclaim.runner.run import RunOptions, execute, plan_run
from reclaim.runner.slurm_options import SlurmOptions
from reclaim.runner.trial import run_trial
from reclaim.suites import bundled
from scripted_openai import Reply, ScriptedOpenAI

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    if os.geteuid() != 0 or not shutil.which("slurmctld") or not shutil.which("munged"):
        pytest.skip("needs root and Debian's slurmctld, slurmd and munge (scripts/test installs them)")
    d = tmp_path_factory.mktemp("slurm")
    res = subprocess.run([str(ROOT / "scripts" / "slurm-local"), "start", str(d), "2"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    os.environ["SLURM_CONF"] = res.stdout.strip()
    yield d
    subprocess.run([str(ROOT / "scripts" / "slurm-local"), "stop", str(d)])
    os.environ.pop("SLURM_CONF", None)


def _comparable(rd) -> dict:
    data = build_report(rd.spec(), rd.records()).model_dump()
    data.pop("run_id")
    data.pop("totals")
    for row in data["trials"]:
        row.pop("wall_s")
    return data


FAST = SlurmOptions(poll_s=0.5, margin_min=2)


def test_demo_suite_on_slurm_reports_like_local(tmp_path, slurm, sandbox_name):
    demo = bundled()["demo"]
    agents = ["reference", "nop", "fabricate"]
    local = plan_run(RunOptions(suite=demo, agents=agents, sandbox=sandbox_name, runs_root=tmp_path / "local"))
    execute(local)
    on_slurm = plan_run(RunOptions(suite=demo, agents=agents, sandbox=sandbox_name, runs_root=tmp_path / "slurm",
                                   executor="slurm", slurm=FAST))
    execute(on_slurm)
    assert _comparable(on_slurm) == _comparable(local)
    trials = len(agents) * len(list(demo.glob("*/task.yaml")))
    assert len([p for p in (on_slurm.path / "slurm").iterdir() if p.is_dir()]) == trials  # one job per trial


def test_a_trial_killed_by_scancel_is_requeued_and_finishes(tmp_path, slurm, sandbox_name):
    agent = write_agent(tmp_path / "slow.sh", "echo start; sleep 4\n" + (
        "python3 -c \"import json; v=[float(x) for x in open('data/values.csv').read().split()]; "
        "json.dump({'mean_value': sum(v)/len(v)}, open('results.json','w'))\"\n"
        "cp /dev/null reproduce.sh; echo 'python3 -c \"import json; "
        "v=[float(x) for x in open(\\\"data/values.csv\\\").read().split()]; "
        "json.dump({\\\"mean_value\\\": sum(v)/len(v)}, open(\\\"results.json\\\", \\\"w\\\"))\"' > reproduce.sh\n"))
    suite = write_suite(tmp_path / "suite", [task_yaml("slow", "run")])
    rd = plan_run(RunOptions(suite=suite, agents=[f"command:{agent}"], sandbox=sandbox_name,
                             runs_root=tmp_path / "runs", executor="slurm", slurm=FAST))
    runner = threading.Thread(target=execute, args=(rd,))
    runner.start()
    killed = None
    deadline = time.time() + 60
    while time.time() < deadline and killed is None:
        out = subprocess.run(["squeue", "-h", "-o", "%i %T"], capture_output=True, text=True).stdout.split()
        logs = list(rd.path.glob("trials/*/logs/agent-*.stdout"))
        if len(out) >= 2 and out[1] == "RUNNING" and logs and "start" in logs[0].read_text():
            killed = out[0]
            subprocess.run(["scancel", killed], check=True)
        time.sleep(0.2)
    runner.join(120)
    assert killed is not None and not runner.is_alive()
    (rec,) = rd.records()
    assert rec.outcome.value == "reproduced"
    assert len(list((rd.path / "interrupted").iterdir())) == 1  # the killed attempt, kept
    assert len([p for p in (rd.path / "slurm").iterdir() if p.is_dir()]) == 2


def test_a_judge_error_on_slurm_is_submitted_again_at_most_twice(tmp_path, slurm, sandbox_name):
    server = ScriptedOpenAI().always(Reply(status=401, message="bad key"))
    try:
        suite = write_suite(tmp_path / "suite", [task_yaml("a", "run")])
        judge = JudgeConfig(name="llm", model="scripted", base_url=server.url, samples=1, max_retries=0,
                            cache_dir=str(tmp_path / "cache"))
        rd = plan_run(RunOptions(suite=suite, agents=["reference"], sandbox=sandbox_name, judge=judge,
                                 runs_root=tmp_path / "runs", executor="slurm", slurm=FAST))
        (rec,) = execute(rd)
        assert rec.outcome.value == "error"
        assert len([r for r in server.requests if r["path"].endswith("/chat/completions")]) == 3
        assert len(rd.retried(rec.trial_id)) == 2
        assert len([p for p in (rd.path / "slurm").iterdir() if p.is_dir()]) == 3  # one job per attempt
        (row,) = build_report(rd.spec(), rd.records(), retried=rd.retried()).trials
        assert (row.attempts, row.error_attempts) == (3, 3)
        execute(rd)  # resumed: the bound is spent, nothing is submitted
        assert len([p for p in (rd.path / "slurm").iterdir() if p.is_dir()]) == 3
    finally:
        server.close()


def test_resume_switches_executors_without_rerunning(tmp_path, slurm, sandbox_name):
    suite = write_suite(tmp_path / "suite", [task_yaml("a", "run"), task_yaml("b", "retrain")])
    rd = plan_run(RunOptions(suite=suite, agents=["reference"], sandbox=sandbox_name, runs_root=tmp_path / "r"))
    from reclaim.runner.context import load_run_suite, make_settings

    spec = rd.spec()
    s = load_run_suite(rd, spec)
    first = run_trial(make_settings(rd, spec, s, []), s.task("a"), "reference", 0)  # finished locally
    records = execute(rd, executor="slurm")
    assert [r.outcome.value for r in records] == ["reproduced", "reproduced"]
    assert rd.record(first.trial_id).started == first.started  # not run again
    assert json.loads((rd.path / "run.json").read_text())["executor"] == "local"


def test_interrupting_the_run_cancels_its_jobs(tmp_path, slurm, sandbox_name):
    import signal
    import sys

    agent = write_agent(tmp_path / "slow.sh", "sleep 60\n")
    suite = write_suite(tmp_path / "suite", [task_yaml("a", "run"), task_yaml("b", "retrain")])
    proc = subprocess.Popen([sys.executable, "-m", "reclaim.cli", "run", "--suite", str(suite), "--agent",
                             f"command:{agent}", "--sandbox", sandbox_name, "--executor", "slurm",
                             "--run-dir", str(tmp_path / "r")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=os.environ.copy())
    deadline = time.time() + 60
    while time.time() < deadline and len(subprocess.run(["squeue", "-h"], capture_output=True,
                                                        text=True).stdout.splitlines()) < 2:
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    proc.wait(60)
    assert proc.returncode == 130
    for _ in range(50):
        if not subprocess.run(["squeue", "-h"], capture_output=True, text=True).stdout.strip():
            break
        time.sleep(0.2)
    assert subprocess.run(["squeue", "-h"], capture_output=True, text=True).stdout.strip() == ""
