"""A target value a curator could not yet read from the paper (value: pending): the task says where
it stands, stays under review, is listed and validated, and never runs."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from conftest import task_yaml, write_suite
from reclaim.cli.main import app
from reclaim.spec import SpecError, load_suite

PENDING = {"target.value": "pending", "target.where": "Figure 3, last iterate at 10^5 iterations",
           "review": {"status": "pending", "notes": "read the value from Figure 3"}}


def test_a_pending_value_needs_review_pending_and_where_it_stands(tmp_path):
    suite = write_suite(tmp_path / "a", [task_yaml("t", **PENDING)])
    assert load_suite(suite).task("t").spec.pending_values() == ["mean_value"]
    for i, (drop, words) in enumerate([("review", "needs review"), ("target.where", "needs 'where'")]):
        spec = task_yaml("t", **{k: v for k, v in PENDING.items() if k != drop})
        if drop == "target.where":
            spec["target"]["where"] = " "
        with pytest.raises(SpecError, match=words):
            load_suite(write_suite(tmp_path / f"b{i}", [spec]))


def test_a_misspelt_word_or_an_infinite_number_is_named_once(tmp_path):
    for i, bad in enumerate(["pendng", float("inf")]):
        with pytest.raises(SpecError) as info:
            load_suite(write_suite(tmp_path / f"s{i}", [task_yaml("t", **{"target.value": bad})]))
        assert [p.field for p in info.value.problems] == ["target.value"], info.value.problems


def test_listed_and_validated_never_run(tmp_path):
    from reclaim.runner.run import RunError, RunOptions, check_run

    suite = write_suite(tmp_path / "s", [task_yaml("ready"), task_yaml("unread", **PENDING)])
    res = CliRunner().invoke(app, ["tasks", "list", str(suite)], env={"COLUMNS": "120"})
    assert res.exit_code == 0 and "value pending" in res.output
    res = CliRunner().invoke(app, ["tasks", "validate", str(suite), "--allow-pending"])
    assert res.exit_code == 0, res.output
    assert "value pending for mean_value" in " ".join(res.output.split())
    opts = RunOptions(suite=suite, agents=["nop"], runs_root=tmp_path / "runs", sandbox="process",
                      allow_pending=True)
    checked = check_run(opts)  # the whole suite: the unread task is left out, and said so
    assert [t.id for t in checked.tasks] == ["ready"]
    assert any("value: pending" in w for w in checked.warnings)
    with pytest.raises(RunError, match="target value pending"):
        check_run(RunOptions(suite=suite, agents=["nop"], runs_root=tmp_path / "runs", sandbox="process",
                             tasks=["unread"], allow_pending=True))
