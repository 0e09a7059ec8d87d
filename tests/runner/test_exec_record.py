"""The exec record through a real trial: an exec storm is counted, not a flood that hides what
came after."""

from __future__ import annotations

import shutil

import pytest

from conftest import run_suite, task_yaml, write_agent, write_suite
from reclaim.trace import CommandFinished, ProgramExec, read_trace


def test_an_exec_storm_is_counted_and_what_followed_is_on_the_record(tmp_path, sandbox_name):
    if sandbox_name != "bwrap" or shutil.which("strace") is None:
        pytest.skip("the exec record needs bwrap and strace")
    agent = write_agent(tmp_path / "storm.sh", "for i in $(seq 3000); do /bin/true; done\ncat paper.md > /dev/null\n")
    suite = write_suite(tmp_path / "suite", [task_yaml("storm", "run")])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name)
    trace = read_trace(rd.trial_dir(rec.trial_id) / "trace.jsonl")
    execs = [e for e in trace if isinstance(e, ProgramExec) and e.phase == "agent"]
    (storm,) = [e for e in execs if e.path == "/bin/true" or e.path.endswith("/true")]
    assert storm.count == 3000
    assert any(e.argv[:2] == ["cat", "paper.md"] for e in execs)
    (finished,) = [e for e in trace if isinstance(e, CommandFinished) and e.phase == "agent"]
    assert finished.programs >= 3002 and not finished.programs_cut
