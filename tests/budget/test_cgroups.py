"""A trial's cgroups are gone when it ends, a fork bomb's included; those a dead run left are
removed at the next start, and said so."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import run_suite, task_yaml, write_agent, write_suite
from reclaim.budget import limits
from reclaim.cli.main import app


def _ours() -> list[Path]:
    mine = f"{limits.PREFIX}{os.getpid()}-"
    return [p for h in (limits.ROOT, *limits.ROOT.iterdir()) if h.is_dir() and not h.is_symlink()
            for p in h.glob(f"{mine}*")]


@pytest.fixture
def cgroups():
    probe = limits.Limits(memory_mb=64, cpus=1).start()
    made = bool(probe._groups)
    probe.stop()
    if not made:
        pytest.skip("this machine lets reclaim make no cgroups")


def test_a_fork_bomb_leaves_no_cgroup_behind(tmp_path, sandbox_name, cgroups):
    bomb = write_agent(tmp_path / "bomb.sh", "b() { b | b & }; b\nsleep 30\n")
    suite = write_suite(tmp_path / "suite", [task_yaml("bomb", "run", **{"budget.wall_minutes": 0.05})])
    _, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{bomb}"], sandbox_name)
    assert rec.status.value == "budget_exhausted"
    assert _ours() == []
    assert not any("could not be removed" in w for w in rec.warnings)


def test_cgroups_of_a_dead_run_are_removed_at_the_next_start_and_said_so(tmp_path, sandbox_name, cgroups):
    hierarchy = limits.ROOT if (limits.ROOT / "cgroup.controllers").exists() else limits.ROOT / "pids"
    dead = hierarchy / f"{limits.PREFIX}999999999-0123456789ab"  # no process has this pid
    dead.mkdir()
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    res = CliRunner().invoke(app, ["run", "--suite", str(suite), "--agent", "nop", "--sandbox", sandbox_name,
                                   "--runs-root", str(tmp_path / "runs")])
    assert res.exit_code == 0, res.output
    assert not dead.exists()
    assert re.search(r"removed \d+ cgroup\(s\) left by reclaim processes that are gone", res.output)
