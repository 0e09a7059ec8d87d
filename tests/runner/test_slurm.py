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

from conftest import at_a_terminal, task_yaml, write_agent, write_suite
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


def _slurm_says(cmd: list[str]) -> str:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()


@pytest.fixture(autouse=True)
def idle_slurm(request):
    """Every test starts on an idle node with an empty queue, whatever the one before left (a drill's
    DOWN node, a job a failed test never cancelled): one failure stays one failure, never a hang of
    all the tests after it. Where Slurm does not come back, the test fails saying what it reported."""
    if "slurm" not in request.fixturenames:
        yield
        return
    request.getfixturevalue("slurm")
    subprocess.run(["scancel", "--user=root"], capture_output=True, timeout=30)
    node = _slurm_says(["sinfo", "-h", "-o", "%N"])
    subprocess.run(["scontrol", "update", f"nodename={node}", "state=RESUME"], capture_output=True, timeout=30)
    deadline = time.time() + 90
    while time.time() < deadline:
        if _slurm_says(["squeue", "-h"]) == "" and _slurm_says(["sinfo", "-h", "-o", "%T"]) == "idle":
            break
        time.sleep(0.5)
    else:
        log = request.getfixturevalue("slurm") / "slurmctld.log"
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-30:]) if log.exists() else ""
        pytest.fail(f"Slurm did not come back idle: sinfo {_slurm_says(['sinfo', '-h', '-o', '%T %E'])!r}, "
                    f"squeue {_slurm_says(['squeue', '-h', '-o', '%i %T %r'])!r}\n{tail}")
    yield


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


SLOW_AGENT = "echo start; sleep 4\n" + (
    "python3 -c \"import json; v=[float(x) for x in open('data/values.csv').read().split()]; "
    "json.dump({'mean_value': sum(v)/len(v)}, open('results.json','w'))\"\n"
    "cp /dev/null reproduce.sh; echo 'python3 -c \"import json; "
    "v=[float(x) for x in open(\\\"data/values.csv\\\").read().split()]; "
    "json.dump({\\\"mean_value\\\": sum(v)/len(v)}, open(\\\"results.json\\\", \\\"w\\\"))\"' > reproduce.sh\n")


def _running_agent(run: Path) -> str:
    """The job id of the run's one job once its agent has started in it."""
    deadline = time.time() + 60
    while time.time() < deadline:
        out = subprocess.run(["squeue", "-h", "-o", "%i %T"], capture_output=True, text=True).stdout.split()
        logs = list(run.glob("trials/*/logs/agent-*.stdout"))
        if len(out) >= 2 and out[1] == "RUNNING" and logs and "start" in logs[0].read_text():
            return out[0]
        time.sleep(0.2)
    raise AssertionError("the agent never started in a job")


def _left_running(job: str) -> None:
    deadline = time.time() + 60
    while time.time() < deadline:
        if _slurm_says(["squeue", "-h", "-o", "%T", "-j", job]) != "RUNNING":
            return
        time.sleep(0.2)
    raise AssertionError(f"job {job} kept running on a DOWN node: {_slurm_says(['squeue', '-h', '-o', '%T %r'])}")


def _resume(node: str) -> None:
    """Bring a DOWN node back (it may be back already: ReturnToService); slurmctld refuses while it
    still tidies up the killed job, so try again."""
    deadline = time.time() + 60
    while subprocess.run(["scontrol", "update", f"nodename={node}", "state=RESUME"], capture_output=True,
                         timeout=30).returncode != 0 and "down" in _slurm_says(["sinfo", "-h", "-o", "%T"]):
        if time.time() > deadline:
            raise AssertionError(f"node {node} could not be resumed: {_slurm_says(['sinfo', '-h', '-o', '%T %E'])}")
        time.sleep(0.5)


def _release_when_requeued(job: str) -> None:
    """Slurm holds a requeued job back about two minutes (BeginTime); a drill lets it go at once."""
    deadline = time.time() + 60
    while time.time() < deadline:
        out = subprocess.run(["squeue", "-h", "-o", "%T %r", "-j", job], capture_output=True, text=True).stdout.split()
        if out == ["PENDING", "BeginTime"]:
            subprocess.run(["scontrol", "update", f"jobid={job}", "starttime=now"], check=True)
            return
        time.sleep(0.2)
    queue, node = _slurm_says(["squeue", "-h", "-o", "%i %T %r"]), _slurm_says(["sinfo", "-h", "-o", "%T %E"])
    raise AssertionError(f"job {job} was not requeued: squeue says {queue!r}, sinfo {node!r}")


def _slow_run_on_slurm(tmp_path: Path, sandbox_name: str):
    """A run of one slow trial on Slurm, executing in a thread."""
    agent = write_agent(tmp_path / "slow.sh", SLOW_AGENT)
    suite = write_suite(tmp_path / "suite", [task_yaml("slow", "run")])
    rd = plan_run(RunOptions(suite=suite, agents=[f"command:{agent}"], sandbox=sandbox_name,
                             runs_root=tmp_path / "runs", executor="slurm", slurm=FAST))
    runner = threading.Thread(target=execute, args=(rd,))
    runner.start()
    return rd, runner


def test_a_trial_killed_by_scancel_is_requeued_and_finishes(tmp_path, slurm, sandbox_name):
    rd, runner = _slow_run_on_slurm(tmp_path, sandbox_name)
    subprocess.run(["scancel", _running_agent(rd.path)], check=True)
    runner.join(120)
    assert not runner.is_alive()
    (rec,) = rd.records()
    assert rec.outcome.value == "reproduced"
    assert len(list((rd.path / "interrupted").iterdir())) == 1  # the killed attempt, kept
    assert len([p for p in (rd.path / "slurm").iterdir() if p.is_dir()]) == 2


@pytest.mark.parametrize("how", ["preempted", "node-down"])
def test_a_preempted_or_lost_job_is_requeued_and_its_interruption_counted(tmp_path, slurm, sandbox_name, how):
    rd, runner = _slow_run_on_slurm(tmp_path, sandbox_name)
    job = _running_agent(rd.path)
    node = subprocess.run(["sinfo", "-h", "-o", "%N"], capture_output=True, text=True).stdout.strip()
    try:
        if how == "preempted":  # what a preempting partition does to a requeueable job
            subprocess.run(["scontrol", "requeue", job], check=True)
        else:  # the node is lost, then comes back (its job killed and requeued meanwhile)
            subprocess.run(["scontrol", "update", f"nodename={node}", "state=DOWN", "reason=drill"], check=True)
            _left_running(job)
            _resume(node)
        _release_when_requeued(job)
    finally:
        subprocess.run(["scontrol", "update", f"nodename={node}", "state=RESUME"], capture_output=True)
    runner.join(120)
    assert not runner.is_alive()
    (rec,) = rd.records()
    assert rec.outcome.value == "reproduced"
    assert rd.interrupted() == {rec.trial_id: 1}  # the cut-short attempt, kept and counted
    report = build_report(rd.spec(), rd.records(), retried=rd.retried(), interrupted=rd.interrupted())
    assert (report.totals.attempts, report.totals.interrupted, report.trials[0].interrupted) == (1, 1, 1)
    assert [p.name for p in (rd.path / "slurm").iterdir() if p.is_dir()] == [job]  # requeued by Slurm itself


@pytest.mark.parametrize("end", ["SIGTERM", "SIGKILL"])
def test_a_driver_stopped_or_killed_leaves_no_job_running_its_trials_twice(tmp_path, slurm, sandbox_name, end):
    import signal
    import sys

    agent = write_agent(tmp_path / "slow.sh", SLOW_AGENT)
    suite = write_suite(tmp_path / "suite", [task_yaml("slow", "run")])
    run = tmp_path / "r"
    proc = subprocess.Popen([sys.executable, "-m", "reclaim.cli", "run", "--suite", str(suite), "--agent",
                             f"command:{agent}", "--sandbox", sandbox_name, "--executor", "slurm",
                             "--run-dir", str(run)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    job = _running_agent(run)
    proc.send_signal(getattr(signal, end))
    _, stderr = proc.communicate(timeout=60)
    if end == "SIGTERM":  # stopped as by Ctrl-C: its jobs cancelled, the run left resumable
        assert proc.returncode == 128 + signal.SIGTERM and "stopped by SIGTERM" in stderr
        for _ in range(100):
            if not subprocess.run(["squeue", "-h"], capture_output=True, text=True).stdout.strip():
                break
            time.sleep(0.2)
        assert subprocess.run(["squeue", "-h"], capture_output=True, text=True).stdout.strip() == ""
    else:  # nothing could cancel its job: it runs on, and the resume must cancel it first
        assert subprocess.run(["squeue", "-h", "-o", "%i"], capture_output=True, text=True).stdout.split() == [job]
    resumed = subprocess.run([sys.executable, "-m", "reclaim.cli", "run", "--resume", str(run), "--format", "json"],
                             capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    if end == "SIGKILL":
        assert f"cancelled 1 Slurm job that an earlier driver of this run left running ({job})" in resumed.stderr
    (row,) = json.loads(resumed.stdout)["trials"]
    assert (row["outcome"], row["attempts"], row["interrupted"]) == ("reproduced", 1, 1)


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
                            env=os.environ.copy(), preexec_fn=at_a_terminal)
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
