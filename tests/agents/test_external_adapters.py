"""Adapters of third-party agents: launch commands, environments, transcripts, availability.
(Only mini-swe-agent runs for real in these tests; the others are checked as far as no binary is needed.)"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from conftest import task_yaml, write_agent, write_suite
from reclaim.agents import make_agent
from reclaim.agents.external import TOOLS
from reclaim.agents.transcripts import aider, claude_code, codex, mini_swe_agent
from reclaim.cli.main import app
from reclaim.gateway import Upstreams
from scripted_openai import ScriptedOpenAI


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_launch_is_non_interactive_with_the_task_and_the_model(name):
    tool = TOOLS[name]
    argv = tool.argv("PROMPT TEXT", "some-model", "/agent-logs")
    env = tool.env("some-model", "http://127.0.0.1:8787", "/agent-logs")
    assert "PROMPT TEXT" in argv
    assert any("some-model" in a for a in [*argv, *env.values()])
    assert not any("sk-" in v for v in env.values())  # keys never come from an adapter
    assert tool.install


def test_tool_specific_settings():
    assert TOOLS["claude-code"].argv("p", "m", "/l")[:4] == ["claude", "-p", "p", "--output-format"]
    assert TOOLS["claude-code"].protocol == "anthropic"
    assert TOOLS["codex"].argv("p", "m", "/l")[:2] == ["codex", "exec"]
    assert TOOLS["codex"].env("m", "u", "/l")["CODEX_HOME"] == "/l/home/.codex"
    assert "--exit-immediately" in TOOLS["mini-swe-agent"].argv("p", "m", "/l")
    assert TOOLS["mini-swe-agent"].env("m", "u", "/l")["MSWEA_COST_TRACKING"] == "ignore_errors"
    assert TOOLS["openhands"].env("m", "http://g", "/l")["LLM_BASE_URL"] == "http://g/v1"
    assert "--no-git" in TOOLS["aider"].argv("p", "m", "/l")
    assert TOOLS["gemini-cli"].env("m", "http://g", "/l")["GOOGLE_GEMINI_BASE_URL"] == "http://g"


def test_a_missing_agent_is_refused_before_the_run(tmp_path, monkeypatch):
    """Not installed: the run does not start, and the refusal says how to install it."""
    from reclaim.runner.run import RunError, RunOptions, check_run

    monkeypatch.setenv("RECLAIM_AGENTS_HOME", str(tmp_path / "no-agents"))
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    upstream = ScriptedOpenAI()
    try:
        with pytest.raises(RunError, match="--agent aider: not installed; install with: reclaim agents install aider"):
            check_run(RunOptions(suite=suite, agents=["aider"], sandbox="process", model="m",
                                 runs_root=tmp_path / "runs", upstreams=Upstreams(openai_base_url=upstream.url)))
    finally:
        upstream.close()
    assert not (tmp_path / "runs").exists()


def test_an_agent_gone_by_trial_time_is_a_harness_error_not_a_failure(tmp_path, sandbox_name, monkeypatch):
    """Installed when the run was planned, missing where the trial runs (a Slurm node without it)."""
    from reclaim.runner.run import RunOptions, execute, plan_run

    home = tmp_path / "agents"
    (home / "aider" / "bin").mkdir(parents=True)
    write_agent(home / "aider" / "bin" / "aider", "exit 0\n")
    monkeypatch.setenv("RECLAIM_AGENTS_HOME", str(home))
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    upstream = ScriptedOpenAI()
    try:
        rd = plan_run(RunOptions(suite=suite, agents=["aider"], sandbox=sandbox_name, model="m",
                                 runs_root=tmp_path / "runs", upstreams=Upstreams(openai_base_url=upstream.url)))
        monkeypatch.setenv("RECLAIM_AGENTS_HOME", str(tmp_path / "no-agents"))
        (rec,) = execute(rd)
    finally:
        upstream.close()
    assert rec.outcome.value == "error" and "install with: reclaim agents install aider" in rec.error


def test_agents_command_lists_availability_and_install_commands(monkeypatch, tmp_path):
    monkeypatch.setenv("RECLAIM_AGENTS_HOME", str(tmp_path / "none"))
    out = CliRunner().invoke(app, ["agents"]).output
    for name in [*TOOLS, "llm", "command", "reference"]:
        assert name in out
    assert "reclaim agents install aider" in out and "reclaim agents install codex" in out
    assert "@openai/codex 0.171.0" in out.replace("\n", " ").replace("  ", " ")
    res = CliRunner().invoke(app, ["agents", "install", "nonesuch"])
    assert res.exit_code == 2 and "no third-party agent 'nonesuch'" in res.output
    with pytest.raises(ValueError, match="takes only 'model=NAME'"):
        make_agent("codex:x")
    assert make_agent("codex:model=gpt-5").model == "gpt-5" and make_agent("codex").model is None


def test_transcripts_become_steps():
    cc = "\n".join(json.dumps(x) for x in [
        {"type": "assistant", "message": {"content": [
            {"type": "text", "text": "Let me look"},
            {"type": "tool_use", "name": "Bash", "input": {"command": "ls"}}]}},
        {"type": "result", "result": "done"}])
    assert claude_code(cc) == ["said: Let me look", 'tool Bash: {"command": "ls"}', "result: done"]
    cx = json.dumps({"type": "item.completed", "item": {"type": "command_execution", "command": "ls -la"}})
    assert codex(cx) == ["command_execution: ls -la"]
    traj = json.dumps({"messages": [{"role": "assistant", "content": "THOUGHT", "tool_calls": [
        {"function": {"name": "bash", "arguments": '{"command": "ls"}'}}]}, {"role": "user", "content": "out"}]})
    assert mini_swe_agent(traj) == ["said: THOUGHT", 'tool bash: {"command": "ls"}']
    assert aider("#### do it\nsome reply\n> Applied edit") == ["#### do it", "> Applied edit"]
