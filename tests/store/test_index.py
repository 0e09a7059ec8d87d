"""The SQLite index mirrors the trial directories and can be rebuilt from them alone."""

from __future__ import annotations

from typer.testing import CliRunner

from conftest import run_suite, task_yaml, write_suite
from reclaim.cli.main import app
from reclaim.store import Index


def test_index_is_rebuilt_from_directories(tmp_path, sandbox_name):
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    runs = tmp_path / "runs"
    run_suite(suite, runs, ["reference", "nop"], sandbox_name)
    ix = Index(runs)
    before = ix.query("SELECT agent, outcome FROM trials ORDER BY agent")
    assert before == [("nop", "not_reproduced"), ("reference", "reproduced")]
    ix.path.unlink()
    res = CliRunner().invoke(app, ["index", "rebuild", str(runs)])
    assert res.exit_code == 0 and "1 runs, 2 trials" in res.output
    assert ix.query("SELECT agent, outcome FROM trials ORDER BY agent") == before
    res = CliRunner().invoke(app, ["runs", str(runs)])
    assert "2/2" in res.output and "finished" in res.output and "mini@1" in res.output
