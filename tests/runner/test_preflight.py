"""Preflight: a set-up mistake is refused before any trial, with its fix; one outside the agent's
control found during a trial is an error, never the agent's failure. Real servers, real runs."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import run_suite, task_yaml, write_agent, write_suite
from reclaim.gateway import Upstreams
from reclaim.runner.run import RunError, RunOptions, check_run
from reclaim.store import Outcome, Status
from scripted_openai import ScriptedOpenAI


@pytest.fixture
def one_task(tmp_path):
    return write_suite(tmp_path / "suite", [task_yaml("mean-retrain", "retrain")])


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Refuses(BaseHTTPRequestHandler):
    def do_GET(self):  # every request: the key is wrong
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"error": {"message": "invalid api key"}}')

    def log_message(self, *args):
        pass


def _opts(suite, tmp_path, **kw) -> RunOptions:
    return RunOptions(suite=suite, sandbox="process", runs_root=tmp_path / "runs", **kw)


def test_llm_without_model_is_refused(tmp_path, one_task):
    server = ScriptedOpenAI()
    try:
        with pytest.raises(RunError, match="calls a model, and none was given: add --model NAME"):
            check_run(_opts(one_task, tmp_path, agents=["llm"], upstreams=Upstreams(openai_base_url=server.url)))
    finally:
        server.close()
    assert not (tmp_path / "runs").exists()


def test_an_unreachable_upstream_is_refused_naming_the_flag(tmp_path, one_task):
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    with pytest.raises(RunError, match=r"cannot be reached.*set --openai-base-url or \$OPENAI_BASE_URL"):
        check_run(_opts(one_task, tmp_path, agents=["llm"], model="m", upstreams=Upstreams(openai_base_url=url)))


def test_a_refused_key_is_refused_naming_the_variable(tmp_path, one_task, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Refuses)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        with pytest.raises(RunError, match="HTTP 401: it refused the key in \\$OPENAI_API_KEY"):
            check_run(_opts(one_task, tmp_path, agents=["llm"], model="m", upstreams=Upstreams(openai_base_url=url)))
    finally:
        server.shutdown()
        server.server_close()


def test_an_upstream_that_answers_passes(tmp_path, one_task):
    server = ScriptedOpenAI()
    try:
        checked = check_run(_opts(one_task, tmp_path, agents=["llm"], model="scripted",
                                  upstreams=Upstreams(openai_base_url=server.url)))
    finally:
        server.close()
    assert [t.id for t in checked.tasks] == ["mean-retrain"]


def test_weakened_baselines_need_reference_weakened(tmp_path):
    bare = write_suite(tmp_path / "bare", [task_yaml("mean-retrain", "retrain")])
    checked = check_run(_opts(bare, tmp_path, agents=["overclaim"]))
    assert checked.warnings == ["--agent overclaim needs reference.weakened; it will be skipped on 1 task(s) "
                                "without one (every task of this run): mean-retrain; add reference.weakened "
                                "to the task, or leave this baseline out"]
    mixed = write_suite(tmp_path / "mixed", [task_yaml("mean-retrain", "retrain"),
                                             task_yaml("weak-retrain", "retrain", **{"reference.weakened": "weak.sh"})])
    (mixed / "weak-retrain" / "reference" / "weak.sh").write_text("echo weak\n")
    checked = check_run(_opts(mixed, tmp_path, agents=["partial"]))
    assert any("skipped on 1 task(s) without one: mean-retrain" in w for w in checked.warnings)


def test_the_reference_baseline_on_a_task_without_a_reference_is_refused_before_any_trial(tmp_path):
    """The run would spend every attempt on an error: the plan says so first, naming the task."""
    suite = write_suite(tmp_path / "s", [task_yaml("mean-retrain", "retrain"),
                                         task_yaml("no-ref", "retrain", reference=None)])
    with pytest.raises(RunError, match=r"--agent reference runs each task's reference solution, and 1 task\(s\) "
                                       r"have none \(reference: null\): no-ref"):
        check_run(_opts(suite, tmp_path, agents=["reference"]))
    assert [t.id for t in check_run(_opts(suite, tmp_path, agents=["nop"])).tasks] == ["mean-retrain", "no-ref"]
    assert [t.id for t in check_run(_opts(suite, tmp_path, agents=["reference"], tasks=["mean-retrain"])).tasks] \
        == ["mean-retrain"]


def test_an_upstream_lost_during_the_trial_is_an_error_not_the_agents_failure(tmp_path, one_task, sandbox_name):
    # the agent tries its model once through the gateway, ignores the failure, and stops
    agent = write_agent(tmp_path / "calls.sh", (
        "python3 - <<'PY' || true\n"
        "import os, urllib.request\n"
        "req = urllib.request.Request(os.environ['OPENAI_BASE_URL'] + '/chat/completions', method='POST',\n"
        "    data=b'{\"model\": \"m\", \"messages\": []}', headers={'Content-Type': 'application/json',\n"
        "    'Authorization': 'Bearer ' + os.environ['OPENAI_API_KEY']})\n"
        "try:\n    urllib.request.urlopen(req, timeout=30)\nexcept Exception as e:\n    print('failed', e)\n"
        "PY\n"))
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    _, (rec,) = run_suite(one_task, tmp_path / "runs", [f"command:{agent}"], sandbox_name,
                          upstreams=Upstreams(openai_base_url=url))
    assert rec.outcome == Outcome.error and rec.status == Status.error
    assert "could not reach its model" in rec.error and "--openai-base-url" in rec.error
    assert "Error:" not in rec.error  # in words, no exception class names
