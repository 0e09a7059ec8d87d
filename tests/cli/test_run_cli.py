"""`reclaim run` as a user meets it: options refused before any trial, --dry-run, exit statuses
0 / 1 / 2 / 130. Real processes, real runs of a one-task suite."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import at_a_terminal, task_yaml, write_agent, write_suite

RECLAIM = [sys.executable, "-m", "reclaim.cli"]
CALLS_MODEL = (  # one model call through the gateway; its failure ignored, as a careless agent would
    "python3 - <<'PY' || true\n"
    "import os, urllib.request\n"
    "req = urllib.request.Request(os.environ['OPENAI_BASE_URL'] + '/chat/completions', method='POST',\n"
    "    data=b'{\"model\": \"m\", \"messages\": []}', headers={'Content-Type': 'application/json',\n"
    "    'Authorization': 'Bearer ' + os.environ['OPENAI_API_KEY']})\n"
    "try:\n    urllib.request.urlopen(req, timeout=30)\nexcept Exception as e:\n    print('failed', e)\n"
    "PY\n")


def _env() -> dict[str, str]:
    full = dict(os.environ)
    return full | {"PYTHONPATH": os.pathsep.join(sys.path), "COLUMNS": "200"}


def _reclaim(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(RECLAIM + args, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=300)


@pytest.fixture
def suite(tmp_path) -> Path:
    return write_suite(tmp_path / "suite", [task_yaml("mean-retrain", "retrain")])


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unknown_format_is_refused_before_any_trial(tmp_path, suite):
    r = _reclaim(["run", "--suite", str(suite), "--agent", "nop", "--format", "xml"], tmp_path)
    assert r.returncode == 2
    assert "--format xml: unknown report format; choose one of table, markdown, json, csv" in r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "runs").exists()


def test_an_unknown_judge_is_one_line_in_words(tmp_path, suite):
    r = _reclaim(["run", "--suite", str(suite), "--agent", "nop", "--judge", "gpt"], tmp_path)
    assert r.returncode == 2
    assert "--judge 'gpt': unknown judge; choose one of rules, llm" in r.stderr
    assert "pydantic" not in r.stderr and "validation error" not in r.stderr


def test_llm_without_model_is_refused_before_any_trial(tmp_path, suite):
    r = _reclaim(["run", "--suite", str(suite), "--agent", "llm",
                  "--openai-base-url", f"http://127.0.0.1:{_closed_port()}/v1"], tmp_path)
    assert r.returncode == 2 and "add --model NAME" in r.stderr and "--openai-base-url" in r.stderr
    assert not (tmp_path / "runs").exists()


def test_dry_run_prints_the_plan_and_writes_nothing(tmp_path, suite):
    agent = write_agent(tmp_path / "solve.sh", "true\n")
    r = _reclaim(["run", "--suite", str(suite), "--agent", f"mine=command:{agent}", "--agent", "nop",
                  "--seeds", "2", "--dry-run"], tmp_path)
    assert r.returncode == 0, r.stderr
    for needle in ("4 trials: 1 task × 2 agents × 2 seeds", f"mine (mine=command:{agent})", "judge: rules",
                   "executor: local", "mean-retrain  retrain  60 s", "nothing was fetched, run or written"):
        assert needle in r.stdout, needle
    assert not (tmp_path / "runs").exists()


def test_exit_0_when_every_trial_finished(tmp_path, suite):
    r = _reclaim(["run", "--suite", str(suite), "--agent", "reference"], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


def test_exit_1_when_a_trial_ended_in_error(tmp_path, suite):
    agent = write_agent(tmp_path / "calls.sh", CALLS_MODEL)
    r = _reclaim(["run", "--suite", str(suite), "--agent", f"command:{agent}",
                  "--openai-base-url", f"http://127.0.0.1:{_closed_port()}/v1"], tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "1 trial ended in error" in r.stderr
    assert "not_reproduced" not in r.stdout.split("run directory")[0]


def test_exit_130_when_interrupted(tmp_path, suite):
    agent = write_agent(tmp_path / "slow.sh", "touch started\nsleep 120\n")
    proc = subprocess.Popen(RECLAIM + ["run", "--suite", str(suite), "--agent", f"command:{agent}"],
                            cwd=tmp_path, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=at_a_terminal)
    try:
        for _ in range(600):  # the agent is running once its marker is there
            if list((tmp_path / "runs").glob("*/trials/*/workspace/started")):
                break
            time.sleep(0.1)
        else:
            pytest.fail("the agent never started")
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert "--resume" in stderr
