"""One real third-party agent: mini-swe-agent from PyPI, in the sandbox, through the gateway."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_suite
from reclaim.agents import TOOLS
from reclaim.agents.scripted import solution_steps
from reclaim.gateway import Upstreams
from reclaim.suites import bundled
from reclaim.trace import CommandFinished, ModelCall, Note, ShellCommand, read_trace
from scripted_openai import Reply, ScriptedOpenAI

DEMO = bundled()["demo"]
ROOT = Path(__file__).resolve().parents[2]
TASK = "reimplement-huber-irls"


@pytest.fixture(scope="module")
def mini(tmp_path_factory):
    """mini-swe-agent installed where reclaim looks (./.agents, kept between local runs)."""
    home = Path(os.environ.get("RECLAIM_AGENTS_HOME", ROOT / ".agents"))
    os.environ["RECLAIM_AGENTS_HOME"] = str(home)
    if not (home / "mini-swe-agent" / "bin" / "mini").exists():
        res = subprocess.run([sys.executable, "-m", "reclaim.cli", "agents", "install", "mini-swe-agent"],
                             capture_output=True, text=True)
        assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    return home


def commands(task_id: str) -> list[str]:
    """What the scripted model has mini run: the solution's steps (write it, run it), then submit."""
    return [*solution_steps(DEMO / task_id), *TOOLS["mini-swe-agent"].finish]


def solver(body: dict) -> Reply:
    task = re.search(r"# Task: ([a-z0-9-]+)", json.dumps(body)).group(1)
    done = sum(m["role"] == "assistant" for m in body["messages"])
    return Reply(content=f"THOUGHT: step {done}",
                 tool_calls=[{"name": "bash", "arguments": {"command": commands(task)[done]}}], tokens=(900, 60))


def test_mini_swe_agent_solves_a_demo_task_through_the_gateway(tmp_path, sandbox_name, mini, monkeypatch):
    upstream = ScriptedOpenAI()
    upstream.always(solver, n=100)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-provider")
    try:
        rd, (rec,) = run_suite(DEMO, tmp_path / "runs", ["mini-swe-agent"], sandbox_name, tasks=[TASK],
                               model="gpt-4.1-mini", upstreams=Upstreams(openai_base_url=upstream.url))
    finally:
        upstream.close()
    tdir = rd.trial_dir(rec.trial_id)
    stderr = next((tdir / "logs").glob("agent-*.stderr")).read_text()[-3000:]
    assert rec.outcome.value == "reproduced", (rec.error, stderr)
    events = read_trace(tdir / "trace.jsonl")
    calls = [e for e in events if isinstance(e, ModelCall)]
    assert len(calls) == len(commands(TASK)) and all(c.tokens_in == 900 for c in calls)
    assert all(r["auth"] == "Bearer sk-provider" for r in upstream.requests)
    assert any(isinstance(e, Note) and e.message.startswith("[untrusted transcript]") for e in events)
    (launch,) = [e for e in events if isinstance(e, CommandFinished) and e.phase == "agent"]
    assert launch.cmd[0] == "mini"
    audited = [e.cmd for e in events if isinstance(e, ShellCommand)]
    if sandbox_name == "bwrap":  # mini runs its commands through /bin/sh: the audit saw each one
        assert "bash reproduce.sh && cat results.json" in audited
