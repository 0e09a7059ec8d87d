"""SIGKILL of `reclaim run` at any moment, then --resume: the same report as an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import pytest

from conftest import at_a_terminal, task_yaml, write_agent, write_suite
from reclaim.failpoints import FAILPOINTS, POINTS

RECLAIM = [sys.executable, "-m", "reclaim.cli"]
MEAN_PY = ("python3 -c \"import json; v=[float(x) for x in open('data/values.csv').read().split()]; "
           "json.dump({'mean_value': sum(v)/len(v)}, open('results.json','w'))\"\n")


def _suite(tmp: Path) -> Path:
    return write_suite(tmp / "suite", [task_yaml(f"mean-{i}", lvl) for i, lvl in
                                        enumerate(["run", "retrain", "reimplement", "run"])])


def _report(run_dir: Path) -> dict:
    out = subprocess.run(RECLAIM + ["report", str(run_dir), "--format", "json"], check=True,
                         capture_output=True, text=True).stdout
    data = json.loads(out)
    for key in ("run_id",):
        data.pop(key)
    for row in data["trials"]:
        row.pop("wall_s")
        row.pop("interrupted")  # what the kill cut short: counted apart, checked below
    data.pop("totals")  # timings; the outcome counts are compared below
    return data


def _done(run_dir: Path) -> int:
    n = 0
    for p in run_dir.glob("trials/*/trial.json"):
        try:
            n += json.loads(p.read_text()).get("outcome") is not None
        except ValueError:
            pass
    return n


@pytest.mark.parametrize("kill_after", [0, 3])
def test_sigkill_then_resume_gives_the_same_report(tmp_path, sandbox_name, kill_after):
    suite = _suite(tmp_path)
    slow = write_agent(tmp_path / "slow.sh", "sleep 0.4\ncat > reproduce.sh <<'EOF'\n" + MEAN_PY +
                       "EOF\nbash reproduce.sh\n")
    args = ["run", "--suite", str(suite), "--agent", f"command:{slow}", "--agent", "reference",
            "--agent", "fabricate", "--sandbox", sandbox_name, "--jobs", "2", "--format", "json"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}

    full = tmp_path / "full"
    subprocess.run(RECLAIM + args + ["--run-dir", str(full)], check=True, capture_output=True, env=env)

    cut = tmp_path / "cut"
    proc = subprocess.Popen(RECLAIM + args + ["--run-dir", str(cut)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env)
    deadline = time.time() + 60
    while time.time() < deadline:
        running = list(cut.glob("trials/*/trial.json"))
        if _done(cut) >= kill_after and len(running) > _done(cut):
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert _done(cut) < 12, "the run finished before it could be killed"

    resumed = subprocess.run(RECLAIM + ["run", "--resume", str(cut), "--format", "json"],
                             capture_output=True, text=True, env=env)
    assert resumed.returncode == 0, resumed.stderr
    assert _report(cut) == _report(full)
    leftovers = [p for p in psutil.process_iter(["cmdline"]) if str(cut) in " ".join(p.info["cmdline"] or [])]
    assert leftovers == []  # sandboxes die with the harness, or at the latest on resume
    assert _done(cut) == 12
    assert any((cut / "interrupted").iterdir()), "the interrupted trial was not kept"
    outcomes = json.loads(subprocess.run(RECLAIM + ["report", str(cut), "--format", "json"],
                                         capture_output=True, text=True).stdout)["totals"]["outcomes"]
    assert outcomes["reproduced"] == 8 and outcomes["disqualified"] == 4


def test_resume_refuses_a_changed_task(tmp_path, sandbox_name):
    suite = _suite(tmp_path)
    run_dir = tmp_path / "r"
    subprocess.run(RECLAIM + ["run", "--suite", str(suite), "--agent", "nop", "--sandbox", sandbox_name,
                              "--run-dir", str(run_dir)], check=True, capture_output=True)
    (suite / "mean-0" / "paper.md").write_text("changed\n")
    res = subprocess.run(RECLAIM + ["run", "--resume", str(run_dir)], capture_output=True, text=True)
    assert res.returncode != 0
    assert "changed or vanished since the run began" in " ".join(res.stderr.split())  # rich wraps long paths


def test_ctrl_c_stops_running_trials_at_once_and_resume_finishes_them(tmp_path, sandbox_name):
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-0", "run"), task_yaml("mean-1", "retrain")])
    agent = write_agent(tmp_path / "agent.sh", "sleep 60\n")
    run_dir = tmp_path / "r"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(RECLAIM + ["run", "--suite", str(suite), "--agent", f"command:{agent}",
                                       "--sandbox", sandbox_name, "--jobs", "2", "--run-dir", str(run_dir)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=at_a_terminal)
    deadline = time.time() + 30
    while time.time() < deadline and len(list(run_dir.glob("trials/*/logs/agent-*.stdout"))) < 2:
        time.sleep(0.05)
    started = time.time()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert time.time() - started < 15  # not the 60 s the agents wanted
    assert "--resume" in err
    states = [json.loads(p.read_text()) for p in run_dir.glob("trials/*/trial.json")]
    assert [s["outcome"] for s in states] == [None, None]  # unfinished, not judged as failures

    # the same program, now quick and honest: resume runs both trials again
    write_agent(agent, "cat > reproduce.sh <<'EOF'\n" + MEAN_PY + "EOF\nbash reproduce.sh\n")
    res = subprocess.run(RECLAIM + ["run", "--resume", str(run_dir), "--format", "json"],
                         capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["totals"]["outcomes"]["reproduced"] == 2


@pytest.fixture(scope="module")
def unkilled(tmp_path_factory, sandbox_name):
    tmp = tmp_path_factory.mktemp("unkilled")
    suite = write_suite(tmp / "suite", [task_yaml("a", "run"), task_yaml("b", "retrain")])
    args = ["run", "--suite", str(suite), "--agent", "reference", "--agent", "fabricate", "--sandbox", sandbox_name,
            "--jobs", "1", "--format", "json"]
    subprocess.run(RECLAIM + args + ["--run-dir", str(tmp / "full")], check=True, capture_output=True)
    return args, _report(tmp / "full")


@pytest.mark.slow
@pytest.mark.parametrize("point", POINTS)
def test_a_kill_at_each_named_point_then_resume_gives_the_same_report(tmp_path, unkilled, point):
    args, full = unkilled
    cut = tmp_path / "cut"
    killed = subprocess.Popen(RECLAIM + args + ["--run-dir", str(cut)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, env={**os.environ, FAILPOINTS: f"{point}:kill"})
    _, stderr = killed.communicate(timeout=120)
    assert killed.returncode == -signal.SIGKILL, stderr  # it died there, not at the end
    finished = {p.parent.name for p in cut.glob("trials/*/trial.json") if json.loads(p.read_text()).get("outcome")}
    resumed = subprocess.run(RECLAIM + ["run", "--resume", str(cut), "--format", "json"], capture_output=True,
                             text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert _report(cut) == full
    assert json.loads(resumed.stdout)["trials"], "the resumed run printed no report"
    assert _done(cut) == 4
    set_aside = {p.name.rsplit(".", 1)[0] for p in (cut / "interrupted").glob("*")}
    assert len(set_aside) <= 1 and not set_aside & finished  # the trial in flight run again, a finished one never
    if point not in ("plan", "index", "report"):
        assert set_aside, "killed inside a trial: that trial is set aside and run again"
    totals = json.loads(resumed.stdout)["totals"]
    assert (totals["interrupted"], totals["attempts"]) == (len(set_aside), 4)  # counted apart, never as attempts
    left = list(Path(tempfile.gettempdir()).glob(f"reclaim-*-{killed.pid}-*"))
    left += list(Path("/sys/fs/cgroup").glob(f"*/reclaim-{killed.pid}-*")) + list(
        Path("/sys/fs/cgroup").glob(f"reclaim-{killed.pid}-*"))
    assert left == [], "left by the kill, not swept by the resume"


def test_a_second_driver_on_a_run_in_progress_is_refused_and_changes_nothing(tmp_path, sandbox_name):
    slow = write_agent(tmp_path / "slow.sh", "echo started\nsleep 3\ncat > reproduce.sh <<'EOF'\n" + MEAN_PY +
                       "EOF\nbash reproduce.sh\n")
    suite = write_suite(tmp_path / "suite", [task_yaml("a", "run")])
    run = tmp_path / "run"
    first = subprocess.Popen(RECLAIM + ["run", "--suite", str(suite), "--agent", f"command:{slow}", "--sandbox",
                                        sandbox_name, "--run-dir", str(run)], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    logs = "trials/*/logs/agent-*.stdout"
    while time.time() < deadline and not any("started" in p.read_text() for p in run.glob(logs)):
        time.sleep(0.05)
    second = subprocess.run(RECLAIM + ["run", "--resume", str(run)], capture_output=True, text=True)
    assert first.wait(60) == 0
    assert second.returncode == 2
    assert f"is in use: reclaim process {first.pid}" in second.stderr
    assert not (run / "interrupted").exists()  # the first run's trial was not taken for an interrupted one
    (rec,) = [json.loads(p.read_text()) for p in run.glob("trials/*/trial.json")]
    assert rec["outcome"] == "reproduced"
