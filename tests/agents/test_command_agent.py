"""Command agents named by the user, as folders, and as 'python3 agent.py': run for real in the sandbox."""

from __future__ import annotations

import pytest

from conftest import run_suite, task_yaml, write_agent, write_suite
from reclaim.agents import UnknownAgent, make_agent
from reclaim.runner.run import RunError


@pytest.fixture
def one_task(tmp_path):
    return write_suite(tmp_path / "suite", [task_yaml("mean-retrain", "retrain")])


def _seen(rd, rec) -> str:
    return (rd.trial_dir(rec.trial_id) / "workspace" / "seen.txt").read_text()


def test_name_equals_spec_names_the_agent(tmp_path, one_task, sandbox_name):
    agent = write_agent(tmp_path / "solve.sh", "echo ran > seen.txt\n")
    rd, (rec,) = run_suite(one_task, tmp_path / "runs", [f"mine=command:{agent}"], sandbox_name)
    assert rec.agent == "mine" and rec.trial_id == "mean-retrain__mine__0"
    assert _seen(rd, rec) == "ran\n"


def test_two_agents_with_one_label_are_refused_before_any_trial(tmp_path, one_task, sandbox_name):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a, b = write_agent(tmp_path / "a" / "solve.sh", "echo a\n"), write_agent(tmp_path / "b" / "solve.sh", "echo b\n")
    with pytest.raises(RunError, match=r"share the label 'command-solve'.*other=command:"):
        run_suite(one_task, tmp_path / "runs", [f"command:{a}", f"command:{b}"], sandbox_name)
    assert not (tmp_path / "runs").exists()  # nothing planned, nothing written
    _, recs = run_suite(one_task, tmp_path / "runs", [f"command:{a}", f"other=command:{b}"], sandbox_name)
    assert sorted(r.agent for r in recs) == ["command-solve", "other"]


def test_a_folder_agent_runs_its_run_sh_with_its_helpers_beside_it(tmp_path, one_task, sandbox_name):
    folder = tmp_path / "myagent"
    folder.mkdir()
    (folder / "helper.txt").write_text("from the helper\n")
    write_agent(folder / "run.sh", 'cat "$(dirname "$0")/helper.txt" > seen.txt\n')
    rd, (rec,) = run_suite(one_task, tmp_path / "runs", [f"command:{folder}/"], sandbox_name)
    assert _seen(rd, rec) == "from the helper\n"


def test_a_script_in_a_folder_finds_the_files_beside_it(tmp_path, one_task, sandbox_name):
    folder = tmp_path / "myagent"
    folder.mkdir()
    (folder / "lib.py").write_text("WORD = 'imported'\n")
    (folder / "solve.py").write_text("import os, sys\nsys.path.insert(0, os.path.dirname(__file__))\n"
                                     "import lib\nopen('seen.txt', 'w').write(lib.WORD)\n")  # not executable
    rd, (rec,) = run_suite(one_task, tmp_path / "runs", [f"command:{folder}/solve.py"], sandbox_name)
    assert _seen(rd, rec) == "imported"


def test_python3_agent_py_resolves_the_script_on_the_host(tmp_path, one_task, sandbox_name, monkeypatch):
    (tmp_path / "agent.py").write_text("import sys\nopen('seen.txt', 'w').write(' '.join(sys.argv[1:]))\n")
    monkeypatch.chdir(tmp_path)
    rd, (rec,) = run_suite(one_task, tmp_path / "runs", ["command:python3 agent.py --fast"], sandbox_name)
    assert _seen(rd, rec) == "--fast"
    assert str(tmp_path / "agent.py") in rd.spec().agents[0]  # kept absolute: a resume elsewhere finds it


def test_a_missing_or_unrunnable_program_is_refused_with_its_fix(tmp_path, one_task, sandbox_name, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RunError, match=r"does_not_exist\.sh does not exist.*give its path"):
        run_suite(one_task, tmp_path / "runs", ["command:./does_not_exist.sh"], sandbox_name)
    with pytest.raises(RunError, match=r"script \./nothere\.py does not exist"):
        run_suite(one_task, tmp_path / "runs", ["command:python3 ./nothere.py"], sandbox_name)
    (tmp_path / "agent.bin").write_text("x")
    with pytest.raises(UnknownAgent, match="not executable: chmod \\+x"):
        make_agent("command:./agent.bin")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UnknownAgent, match=r"has no run\.sh"):
        make_agent("command:./empty")
    with pytest.raises(RunError, match="may hold only letters"):
        run_suite(one_task, tmp_path / "runs", ["my.agent=nop"], sandbox_name)


@pytest.fixture
def open_folder():
    """A folder every user can read, as a user's project folder is (pytest's own are 0700)."""
    import shutil
    import tempfile
    from pathlib import Path

    folder = Path(tempfile.mkdtemp(prefix="reclaim-open-", dir="/tmp"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_a_run_dir_beside_the_agent_hides_neither_the_agent_nor_shows_the_runs(open_folder, one_task, sandbox_name):
    """--run-dir run1 next to ./solve.sh: the run's parent folder (the agent's own) is hidden from
    every sandbox, so binding it masked the agent's files (it could not start, and its trials were
    scored not_reproduced); the agent's files come in as a copy, and a run beside them stays unseen."""
    from reclaim.runner.run import RunOptions, execute, plan_run

    (open_folder / "other-run").mkdir()
    (open_folder / "other-run" / "secret.txt").write_text("another run's record\n")
    (open_folder / "helper.txt").write_text("beside the script\n")
    agent = write_agent(open_folder / "solve.sh", 'd="$(dirname "$0")"\ncat "$d/helper.txt" > seen.txt\n'
                        'ls -a "$d" >> seen.txt\ncat "$d/other-run/secret.txt" >> seen.txt 2>&1 || true\n')
    rd = plan_run(RunOptions(suite=one_task, agents=[f"command:{agent}"], sandbox=sandbox_name,
                             run_dir=open_folder / "run1", runs_root=open_folder / "runs"))
    (rec,) = execute(rd)
    seen = _seen(rd, rec)
    assert seen.startswith("beside the script\n")
    listed = seen.splitlines()[1:5]
    assert listed == [".", "..", "helper.txt", "solve.sh"], seen  # the files beside it, no run
    assert "another run's record" not in seen
