"""The built-in llm agent, driven through the gateway by a scripted upstream, on real demo tasks."""

from __future__ import annotations

import json
import re

import pytest

from conftest import run_suite
from reclaim.gateway import Upstreams
from reclaim.store import Status
from reclaim.suites import bundled
from reclaim.trace import CommandFinished, ModelCall, Note, read_trace
from scripted_openai import Reply, ScriptedOpenAI

DEMO = bundled()["demo"]
TASKS = ["run-mlp-spirals", "retrain-logreg-gd", "reimplement-huber-irls"]


def plan(task_id: str) -> list[dict]:
    """What a competent model would do: look, write a solution (here: the reference's files), run, submit."""
    ref = DEMO / task_id / "reference"
    steps = [{"name": "bash", "arguments": {"command": "ls -R . | head -50; head -5 TASK.md"}}]
    for f in sorted(p for p in ref.iterdir() if p.is_file() and not p.name.startswith(("ref_weak", "weakened"))):
        steps.append({"name": "write_file", "arguments": {"path": f.name, "content": f.read_text()}})
    steps.append({"name": "bash", "arguments": {"command": "bash reproduce.sh && cat results.json"}})
    steps.append({"name": "read_file", "arguments": {"path": "results.json"}})
    steps.append({"name": "submit", "arguments": {"summary": "computed with reproduce.sh"}})
    return steps


def solver(body: dict) -> Reply:
    """A stateless scripted model: the task from the prompt, the step from the turns so far."""
    task = re.search(r"# Task: ([a-z0-9-]+)", json.dumps(body)).group(1)
    done = sum(m["role"] == "assistant" for m in body["messages"])
    return Reply(content=f"step {done}", tool_calls=[plan(task)[done]], tokens=(1200, 80))


@pytest.fixture(scope="module")
def upstream():
    s = ScriptedOpenAI()
    yield s
    s.close()


AGENTS = ["llm", "llm:stream=1", "llm:protocol=anthropic", "llm:protocol=anthropic,stream=1"]


def test_llm_agent_reproduces_a_task_of_each_level_over_both_protocols(tmp_path, sandbox_name, upstream, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-provider")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-provider")
    upstream.always(solver, n=500)
    rd, records = run_suite(DEMO, tmp_path / "runs", AGENTS, sandbox_name, tasks=TASKS, jobs=2,
                            model="gpt-4.1-mini",
                            upstreams=Upstreams(openai_base_url=upstream.url, anthropic_base_url=upstream.base))
    assert len(records) == 12
    for rec in records:
        assert rec.outcome.value == "reproduced", (rec.trial_id, rec.error)
        events = read_trace(rd.trial_dir(rec.trial_id) / "trace.jsonl")
        calls = [e for e in events if isinstance(e, ModelCall)]
        steps = [e for e in events if isinstance(e, Note) and e.message.startswith("step ")]
        n = len(plan(rec.task))
        assert len(calls) == len(steps) == n
        assert all(c.status == 200 and (c.tokens_in, c.tokens_out) == (1200, 80) for c in calls)
        assert calls[0].protocol == ("anthropic" if "anthropic" in rec.trial_id else "openai")
        assert calls[0].stream == ("stream" in rec.trial_id)
        cmds = [e for e in events if isinstance(e, CommandFinished) and e.phase == "agent"]
        assert len(cmds) == n - 2  # every bash and write_file step ran as a recorded command
        assert rec.budget.model_calls == n and rec.budget.model_tokens == n * 1280
        final = rd.trial_dir(rec.trial_id) / "agent" / "final_message.md"
        assert final.read_text().strip() == "computed with reproduce.sh"


def test_model_budget_runs_out_mid_run(tmp_path, sandbox_name, upstream, monkeypatch):
    import shutil

    import yaml

    suite = tmp_path / "suite"
    shutil.copytree(DEMO, suite)
    spec_path = suite / "run-mlp-spirals" / "task.yaml"
    spec = yaml.safe_load(spec_path.read_text())
    spec["budget"]["model_tokens"] = 3000  # three calls of 1280 tokens: the third one crosses it
    spec_path.write_text(yaml.safe_dump(spec))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-provider")
    upstream.script.clear()
    upstream.always(solver, n=50)
    rd, (rec,) = run_suite(suite, tmp_path / "runs", ["llm"], sandbox_name, tasks=["run-mlp-spirals"],
                           model="gpt-4.1-mini", upstreams=Upstreams(openai_base_url=upstream.url))
    assert rec.status == Status.budget_exhausted and rec.outcome.value == "budget_exhausted"
    tdir = rd.trial_dir(rec.trial_id)
    events = read_trace(tdir / "trace.jsonl")
    assert sum(isinstance(e, ModelCall) for e in events) == 3
    refused = [e for e in events if isinstance(e, Note) and "model refused" in e.message]
    assert refused and "model budget is exhausted" in refused[0].message  # the error the agent read
    assert "budget is exhausted" in (tdir / "agent" / "final_message.md").read_text()
    assert len(list((tdir / "records" / "llm-calls").glob("*-request.json"))) == 3  # nothing lost
