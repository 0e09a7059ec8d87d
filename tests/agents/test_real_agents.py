"""The coding agents people evaluate, as their real programs: Claude Code, Codex and Gemini CLI,
installed from npm at the versions reclaim pins, and aider from PyPI, run in the sandbox through
the gateway against the scripted model, which plays a demo task's solution through each one's
own shell tool (to aider, which offers none, in its diff edit format and a ```bash block)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from reclaim.agents import TOOLS
from reclaim.agents.external import python_for
from reclaim.errors import AgentError
from reclaim.runner.tryout import SCRIPTED, try_agent
from reclaim.suites import bundled
from reclaim.trace import BudgetEvent, ModelCall, Note, ProgramExec, read_trace

ROOT = Path(__file__).resolve().parents[2]
NPM_AGENTS = ["claude-code", "codex", "gemini-cli"]


@pytest.fixture(scope="module")
def installed():
    """The npm agents installed where reclaim looks (./.agents, kept between local runs)."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed (scripts/test installs it)")
    for name in NPM_AGENTS:
        home = _install(name)
    return home


def _install(name: str) -> Path:
    """The agent installed where reclaim looks, by `reclaim agents install` unless it is there."""
    home = Path(os.environ.get("RECLAIM_AGENTS_HOME", ROOT / ".agents"))
    os.environ["RECLAIM_AGENTS_HOME"] = str(home)
    tool = TOOLS[name]
    if not (tool.bin_dir / tool.binary).exists():
        res = subprocess.run([sys.executable, "-m", "reclaim.cli", "agents", "install", name],
                             capture_output=True, text=True)
        assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    return home


@pytest.fixture(scope="module")
def aider():
    """aider from PyPI in a virtual environment of its own (./.agents, kept between local runs)."""
    return _install("aider")


@pytest.fixture(scope="module")
def openhands():
    """The OpenHands CLI from PyPI, in a virtual environment of Python 3.12 (the only one it takes)."""
    try:
        python_for(TOOLS["openhands"].python)
    except AgentError as e:
        pytest.skip(str(e))
    return _install("openhands")


@pytest.mark.parametrize("name", NPM_AGENTS)
def test_the_real_agent_reproduces_a_demo_task_through_the_gateway(name, installed, sandbox_name, tmp_path):
    tried = try_agent(name, sandbox=sandbox_name, runs_root=tmp_path / "runs")
    _check_reproduced(name, tried)


def test_the_real_aider_reproduces_a_demo_task_through_its_edit_blocks_and_commands(aider, sandbox_name, tmp_path):
    tried = try_agent("aider", sandbox=sandbox_name, runs_root=tmp_path / "runs")
    # its answer streamed; its summary of the chat, if it makes one before it exits, is not
    _check_reproduced("aider", tried, streamed=False)
    assert tried.calls[0].stream
    # the files came from its edit blocks, and it ran the command of the ```bash block itself
    assert (tried.trial_dir / "agent" / "aider.chat.md").read_text().count("Applied edit to") >= 2
    assert any("bash reproduce.sh" in c for c in tried.commands), tried.commands[:20]


def test_the_real_openhands_reproduces_a_demo_task_headless_through_its_terminal_tool(openhands, sandbox_name,
                                                                                     tmp_path):
    tried = try_agent("openhands", sandbox=sandbox_name, runs_root=tmp_path / "runs")
    _check_reproduced("openhands", tried, streamed=False)  # its SDK does not stream
    # it types commands into a bash session of its own, so its account tells which ones it ran
    notes = [e.message for e in read_trace(tried.trial_dir / "trace.jsonl") if isinstance(e, Note)]
    assert any("tool terminal: bash reproduce.sh" in n for n in notes), notes[:10]


def _check_reproduced(name: str, tried, streamed: bool = True) -> None:
    rec = tried.record
    assert rec.outcome.value == "reproduced", (rec.error, tried.warnings)
    # every call through the gateway, in the agent's own protocol (streamed), metered exactly as served
    assert tried.calls and all(c.protocol == TOOLS[name].protocol and (c.stream or not streamed)
                               for c in tried.calls)
    assert tried.metered == tried.served_tokens and len(tried.served) == len(tried.calls)
    assert {c.model for c in tried.calls} == {SCRIPTED}  # sub-agents and side calls included
    assert tried.keys_upstream == {"scripted-key"}  # the provider's key, never the trial's token
    # the program itself ran in the sandbox, on the record, its own account parsed as untrusted steps
    events = read_trace(tried.trial_dir / "trace.jsonl")
    programs = [e.path for e in events if isinstance(e, ProgramExec)]
    assert any(TOOLS[name].binary in p or "node" in p for p in programs), programs[:20]
    assert tried.transcript > 0 and tried.wired
    # no provider key, and no trial token, in what the agent could read or leave behind
    for f in (tried.trial_dir / "agent").rglob("*"):
        if f.is_file() and not f.is_symlink():
            assert b"scripted-key" not in f.read_bytes(), f


@pytest.mark.parametrize("name", [*NPM_AGENTS, "aider", "openhands"])
def test_the_real_agent_ends_budget_exhausted_when_its_tokens_run_out(name, sandbox_name, tmp_path, request):
    request.getfixturevalue("installed" if name in NPM_AGENTS else name)
    demo = bundled()["demo"]
    suite = tmp_path / "suite"
    shutil.copytree(demo, suite, ignore=shutil.ignore_patterns("verified.yaml"), symlinks=True)
    spec_file = suite / "reimplement-huber-irls" / "task.yaml"
    spec = yaml.safe_load(spec_file.read_text())
    spec.setdefault("budget", {})["model_tokens"] = 1000  # less than any agent's first call
    spec_file.write_text(yaml.safe_dump(spec))
    tried = try_agent(name, suite=suite, sandbox=sandbox_name, runs_root=tmp_path / "runs")
    assert tried.record.outcome.value == "budget_exhausted", (tried.record.error, tried.warnings)
    events = read_trace(tried.trial_dir / "trace.jsonl")
    assert any(isinstance(e, BudgetEvent) and e.what == "model_exhausted" for e in events)
    refused = [e for e in events if isinstance(e, ModelCall) and e.status == 403]
    assert len([e for e in events if isinstance(e, ModelCall) and e.status == 200]) >= 1
    assert all(c.tokens_in == 0 for c in refused)


@pytest.mark.parametrize("task", ["run-ridge-nir", "retrain-logreg-gd"])
def test_claude_code_works_under_the_network_policy_of_each_level(task, installed, sandbox_name, tmp_path):
    tried = try_agent("claude-code", task=task, sandbox=sandbox_name, runs_root=tmp_path / "runs")
    assert tried.record.outcome.value == "reproduced", (tried.record.error, tried.warnings)
    assert tried.wired


def test_several_real_agents_each_with_its_own_model_in_one_run(installed, sandbox_name, tmp_path, monkeypatch):
    """The benchmark's own setting: several agents on one suite, each on its model, two at a time,
    the report's best agent per level over them."""
    from reclaim.agents.scripted import Player, ScriptedModel, Solutions, solution_steps
    from reclaim.gateway import Upstreams
    from reclaim.report import report_of
    from reclaim.runner.run import RunOptions, execute, plan_run

    demo, task = bundled()["demo"], "reimplement-huber-irls"
    for k in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.setenv(k, "scripted-key")
    agents = ["cc=claude-code:model=model-a", "cx=codex:model=model-b", "gm=gemini-cli:model=model-c"]
    with ScriptedModel() as upstream:
        upstream.always(Solutions({task: Player(solution_steps(demo / task))}), n=200)
        rd = plan_run(RunOptions(suite=demo, agents=agents, tasks=[task], sandbox=sandbox_name, jobs=2,
                                 runs_root=tmp_path / "runs",
                                 upstreams=Upstreams(openai_base_url=upstream.url, anthropic_base_url=upstream.base,
                                                     gemini_base_url=upstream.base)))
        records = execute(rd)
    assert {r.agent: r.outcome.value for r in records} == {"cc": "reproduced", "cx": "reproduced", "gm": "reproduced"}
    for rec, model in zip(sorted(records, key=lambda r: r.agent), ["model-a", "model-b", "model-c"], strict=True):
        calls = [e for e in read_trace(rd.trial_dir(rec.trial_id) / "trace.jsonl") if isinstance(e, ModelCall)]
        assert calls and {c.model for c in calls} == {model}
        assert (rd.trial_dir(rec.trial_id) / "agent" / "home").is_dir()  # a home of its own per trial
    report, _ = report_of(rd)
    assert report.levels["reimplement"].best_agent in {"cc", "cx", "gm"}


def test_what_claude_code_reaches_for_besides_the_gateway_is_denied_on_the_record(installed, sandbox_name,
                                                                                  tmp_path, monkeypatch):
    """Without the setting that quiets it, Claude Code calls api.anthropic.com for metrics, its MCP
    registry and event logging: the egress proxy denies each, the trace names them, and the agent
    still reproduces (the adapter sets CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, so a run never
    shows this)."""
    import dataclasses

    from reclaim.agents import external
    from reclaim.trace import NetworkRequest

    tool = external.TOOLS["claude-code"]
    quiet = ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "DISABLE_TELEMETRY", "DISABLE_ERROR_REPORTING")
    loud = dataclasses.replace(tool, env=lambda m, url, logs: {k: v for k, v in tool.env(m, url, logs).items()
                                                               if k not in quiet})
    monkeypatch.setitem(external.TOOLS, "claude-code", loud)
    tried = try_agent("claude-code", sandbox=sandbox_name, runs_root=tmp_path / "runs")
    assert tried.record.outcome.value == "reproduced", (tried.record.error, tried.warnings)
    denied = [e for e in read_trace(tried.trial_dir / "trace.jsonl") if isinstance(e, NetworkRequest)
              and not e.allowed]
    assert denied and all(e.host != "127.0.0.1" for e in denied), denied
    assert any("anthropic.com" in e.host for e in denied), {e.host for e in denied}


def test_reclaim_agents_try_says_whether_an_agent_is_wired(installed, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from reclaim.cli.main import app

    monkeypatch.chdir(tmp_path)  # its run goes under ./runs
    res = CliRunner().invoke(app, ["agents", "try", "claude-code", "--show"])
    assert res.exit_code == 0, res.output
    assert "claude-code on reimplement-huber-irls: reproduced" in res.output
    assert "anthropic streamed" in res.output and "claude-code is wired" in res.output
    assert "timeline" in res.output  # --show told the trial's story
    res = CliRunner().invoke(app, ["agents", "try", "aider", "--no-install"],
                             env={"RECLAIM_AGENTS_HOME": str(tmp_path / "none")})
    assert res.exit_code != 0 and "aider is not installed" in res.output


def test_a_model_the_adapter_left_at_its_default_is_refused_and_named_on_the_trial(installed, sandbox_name,
                                                                                  tmp_path, monkeypatch):
    """Claude Code with its small model left at Anthropic's default (as an adapter that pinned only
    ANTHROPIC_MODEL did) and its side calls on: its title call asks for that model; the gateway
    refuses it before any provider, and the trial says which model was asked for and which is the
    trial's."""
    import dataclasses

    from reclaim.agents import external

    tool = external.TOOLS["claude-code"]
    default = "claude-haiku-4-5-20251001"

    def env(m, url, logs):
        out = {k: v for k, v in tool.env(m, url, logs).items() if k != "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"}
        return out | {"ANTHROPIC_SMALL_FAST_MODEL": default, "ANTHROPIC_DEFAULT_HAIKU_MODEL": default}

    loose = dataclasses.replace(tool, env=env)
    monkeypatch.setitem(external.TOOLS, "claude-code", loose)
    tried = try_agent("claude-code", sandbox=sandbox_name, runs_root=tmp_path / "runs")
    assert {c.model for c in tried.calls if c.status == 403} == {default}, {c.model for c in tried.calls}
    assert {s.model for s in tried.served} == {SCRIPTED}  # nothing else reached the provider
    notes = [w for w in tried.warnings if "refused" in w]
    assert any(f"asked for model {default}" in w and f"the trial's model is {SCRIPTED}" in w for w in notes), notes
