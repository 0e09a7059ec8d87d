"""Baselines and the command agent, run for real in the sandbox."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from conftest import run_suite, task_yaml, write_agent, write_suite
from reclaim.agents import UnknownAgent, make_agent
from reclaim.cli.main import app
from reclaim.trace import CommandFinished, read_trace


def test_command_agent_gets_the_task_in_its_environment(tmp_path, sandbox_name):
    agent = write_agent(tmp_path / "env.sh", "env | grep ^RECLAIM_ | sort > seen.txt\n"
                                             "head -1 \"$RECLAIM_TASK_FILE\" >> seen.txt\n")
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-retrain", "retrain")])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent} --flag"], sandbox_name)
    assert rec.agent == "command-env"
    seen = (rd.trial_dir(rec.trial_id) / "workspace" / "seen.txt").read_text()
    for needle in ("RECLAIM_TASK_ID=mean-retrain", "RECLAIM_LEVEL=retrain", "RECLAIM_METRIC=mean_value",
                   "RECLAIM_TARGET_VALUE=3.194", "RECLAIM_DIRECTION=match", "RECLAIM_SEED=0",
                   "RECLAIM_WALL_SECONDS=", "# Task: mean-retrain"):
        assert needle in seen, needle


def test_every_command_is_recorded_with_its_files(tmp_path, sandbox_name):
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", ["reference"], sandbox_name)
    events = read_trace(rd.trial_dir(rec.trial_id) / "trace.jsonl")
    finished = [e for e in events if isinstance(e, CommandFinished)]
    # the agent's command, the re-execution, one without the released code, one with the released
    # data withheld, one with it scrambled
    assert [e.phase for e in finished] == ["agent", "reexec", "reexec", "reexec", "reexec"]
    rx = json.loads((rd.trial_dir(rec.trial_id) / "reexec" / "reexec.json").read_text())
    by_id = {e.id: e for e in finished}
    assert [by_id[r["event_id"]] for r in (rx, rx["code_withheld"], rx["withheld"], rx["scrambled"])] == finished[1:]
    withheld, scrambled = by_id[rx["withheld"]["event_id"]], by_id[rx["scrambled"]["event_id"]]
    assert withheld.exit_code != 0  # the reference needs its data: without it, it fails
    assert scrambled.exit_code == 0 and "mean 3.19375" not in scrambled.stdout  # scrambled: another mean
    assert rec.outcome.value == "reproduced"
    agent_cmd = finished[0]
    assert agent_cmd.exit_code == 0 and "mean 3.19375" in agent_cmd.stdout
    assert agent_cmd.stdout_bytes == len("mean 3.19375\n")
    assert [(f.path, f.change) for f in agent_cmd.files] == [("results.json", "created")]
    assert (rd.trial_dir(rec.trial_id) / agent_cmd.stdout_file).read_text() == "mean 3.19375\n"
    trial = json.loads((rd.trial_dir(rec.trial_id) / "trial.json").read_text())
    assert trial["agent_logs"].startswith("agent/") and "untrusted" in \
        json.dumps(type(rec).model_json_schema()["properties"]["agent_logs"]).lower()


def test_fabricate_writes_the_papers_number_and_a_printing_script(tmp_path, sandbox_name):
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", ["fabricate"], sandbox_name)
    ws = rd.trial_dir(rec.trial_id) / "workspace"
    assert json.loads((ws / "results.json").read_text()) == {"mean_value": 3.194}
    assert "3.194" in (ws / "reproduce.sh").read_text()
    assert rec.outcome.value == "disqualified"


def test_unknown_agents_and_arguments_are_refused():
    with pytest.raises(UnknownAgent, match="choose one of"):
        make_agent("gpt-9")
    with pytest.raises(UnknownAgent, match="takes no argument"):
        make_agent("nop:x")
    with pytest.raises(ValueError, match="needs a program"):
        make_agent("command:")


def test_agents_command_lists_the_baselines():
    out = CliRunner().invoke(app, ["agents"]).output
    for name in ("nop", "reference", "fabricate", "command"):
        assert name in out
