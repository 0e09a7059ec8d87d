"""The terminal as a new user meets it, in a real process at COLUMNS=80: help that starts without
the heavy modules, -h everywhere, real types, and tables whose headers and cells are never cut."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import task_yaml, write_suite

RECLAIM = [sys.executable, "-m", "reclaim.cli"]


def _reclaim(args: list[str], cwd: Path, columns: int = 80) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1", "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run(RECLAIM + args, cwd=cwd, env=env, capture_output=True, text=True)


def _fits(out: str, columns: int = 80) -> None:
    lines = out.splitlines()
    assert lines, "no output"
    too_wide = [line for line in lines if len(line) > columns]
    assert not too_wide, too_wide
    assert "…" not in out  # wrapped or left out, never cut short


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["run", "-h"], ["tasks", "list", "-h"], ["report", "--help"],
                                  ["show", "-h"], ["runs", "-h"], ["agents", "-h"], ["judge-eval", "-h"]])
def test_help_at_80_columns(args, tmp_path):
    res = _reclaim(args, tmp_path)
    assert res.returncode == 0, res.stderr
    assert "Usage: reclaim" in res.stdout
    _fits(res.stdout)
    for raw in ("<bool>", "<list[str]>", "<str>", "<int>", "<path>"):  # types in words, not Python's
        assert raw not in res.stdout


def test_run_help_names_every_kind_of_agent_and_the_exit_codes(tmp_path):
    out = " ".join(_reclaim(["run", "-h"], tmp_path, columns=200).stdout.split())
    for word in ("reference", "llm", "command:PROGRAM ARGS", "claude-code", "reclaim agents", "NAME=SPEC",
                 "--dry-run", "--runs-root", "--trials" if "--trials" in out else "--format", "130 interrupted"):
        assert word in out, word


def test_help_starts_without_the_model_client_or_the_runner(tmp_path):
    """--help needs neither openai nor the runner, the judge or the sandboxes (0.6 s of imports)."""
    probe = ("import sys\nfrom reclaim.cli.main import app\n"
             "try:\n    app(['--help'])\nexcept SystemExit:\n    pass\n"
             "heavy = [m for m in ('openai', 'httpx', 'reclaim.runner.run', 'reclaim.judge', 'reclaim.sandbox') "
             "if m in sys.modules]\nprint('HEAVY', heavy)\n")
    env = {**os.environ, "COLUMNS": "80", "PYTHONPATH": os.pathsep.join(sys.path)}
    res = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert "HEAVY []" in res.stdout, res.stdout[-500:] + res.stderr[-2000:]


def test_tasks_list_at_80_columns_keeps_headers_and_ids_whole(tmp_path):
    suite = write_suite(tmp_path / "suite", [task_yaml("a-rather-long-task-identifier", "reimplement"),
                                             task_yaml("mean-run", "run")])
    res = _reclaim(["tasks", "list", str(suite)], tmp_path)
    assert res.returncode == 0, res.stderr
    _fits(res.stdout)
    header = next(line for line in res.stdout.splitlines() if line.split()[:1] == ["task"])
    assert header.split() == ["task", "level", "target", "budget", "status"]
    assert "a-rather-long-task-identifier" in res.stdout and "reimplement" in res.stdout
    assert "2 tasks" in res.stdout
    wide = _reclaim(["tasks", "list", str(suite)], tmp_path, columns=120).stdout
    header = next(line for line in wide.splitlines() if line.split()[:1] == ["task"])
    assert header.split() == ["task", "level", "area", "target", "budget", "status", "hash"]


def test_agents_at_80_columns(tmp_path, monkeypatch):
    monkeypatch.setenv("RECLAIM_AGENTS_HOME", str(tmp_path / "none"))
    res = _reclaim(["agents"], tmp_path)
    assert res.returncode == 0, res.stderr
    _fits(res.stdout)
    rows = {line.split()[0]: line for line in res.stdout.splitlines() if line.strip()}
    assert "available" in rows["reference"] and "not installed" in rows["aider"]
    assert "reclaim agents install aider" in " ".join(res.stdout.split())


def test_tasks_list_never_breaks_a_name_at_80_columns(tmp_path):
    """The reference suite's metric names (up to 40 characters) and ids do not fit a table at 80 columns:
    the list then gives each task a paragraph, its targets a line each, every name whole."""
    from reclaim.spec import load_suite
    from reclaim.suites import bundled

    res = _reclaim(["tasks", "list", "neurips2025"], tmp_path)
    assert res.returncode == 0, res.stderr
    tokens = set(res.stdout.split())
    for t in load_suite(bundled()["neurips2025"]).tasks:
        assert t.id in tokens, t.id
        for m in t.spec.metrics():
            assert m.name in tokens, (t.id, m.name)
    assert "…" not in res.stdout
