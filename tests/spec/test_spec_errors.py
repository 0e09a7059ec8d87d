"""Every kind of bad spec gets one clear message naming the file, the field and the fix."""

from __future__ import annotations

import pytest
from conftest import DELETE, task_yaml, write_suite
from typer.testing import CliRunner

from reclaim.cli.main import app
from reclaim.spec import SpecError, load_suite

CASES = {
    "missing field": ({"target": DELETE}, "target", "add the required field 'target'"),
    "wrong type": ({"budget.wall_minutes": "ten"}, "budget.wall_minutes", "give a number"),
    "unknown key": ({"budget.gpu_hourz": 3}, "budget.gpu_hourz", "remove 'gpu_hourz'"),
    "negative budget": ({"budget.gpu_hours": -1}, "budget.gpu_hours", ">= 0"),
    "non-finite target": ({"target.value": float("inf")}, "target.value", "finite number"),
    "bad level name": ({"level": "rerun"}, "level", "run"),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_spec_names_file_field_and_fix(tmp_path, case):
    overrides, field, fix = CASES[case]
    suite = write_suite(tmp_path / "s", [task_yaml("bad-task", **overrides)])
    with pytest.raises(SpecError) as info:
        load_suite(suite)
    problems = info.value.problems
    assert len(problems) == 1, problems
    p = problems[0]
    assert p.file == suite / "bad-task" / "task.yaml"
    assert p.field == field
    assert fix in p.fix
    assert str(p.file) in str(p) and field in str(p)


def test_level_that_contradicts_materials(tmp_path):
    spec = task_yaml("no-weights", "run", **{"materials.weights": DELETE})
    suite = write_suite(tmp_path / "s", [spec])
    with pytest.raises(SpecError) as info:
        load_suite(suite)
    (p,) = info.value.problems
    assert p.field == "materials.weights"
    assert "level 'run' needs released weights" in p.message
    assert "level: retrain" in p.fix


def test_missing_paper_file(tmp_path):
    suite = write_suite(tmp_path / "s", [task_yaml("no-paper")])
    (suite / "no-paper" / "paper.md").unlink()
    with pytest.raises(SpecError) as info:
        load_suite(suite)
    (p,) = info.value.problems
    assert p.field == "paper.text" and "not found" in p.message


def test_harder_level_than_materials_is_a_posed_task(tmp_path):
    """A run-level release posed as reimplement: valid, and code and weights are withheld."""
    spec = task_yaml("posed", "reimplement", **{"materials.code": {"path": "code"},
                                                 "materials.weights": {"path": "weights"}})
    suite = load_suite(write_suite(tmp_path / "s", [spec]))
    assert suite.tasks[0].spec.withheld() == ["code", "weights"]


def test_validate_lists_every_problem_in_the_suite(tmp_path):
    suite = write_suite(tmp_path / "s", [
        task_yaml("good"),
        task_yaml("bad-one", **{"budget.gpu_hours": -2, "target.value": float("nan")}),
        task_yaml("bad-two", **{"criteria.abs_tol": "tight", "paper.extra": 1}),
    ])
    result = CliRunner().invoke(app, ["tasks", "validate", str(suite)])
    assert result.exit_code == 1
    out = result.output
    for field in ("budget.gpu_hours", "target.value", "criteria.abs_tol", "paper.extra"):
        assert field in out
    assert "4 problem(s)" in out


def test_content_hash_changes_with_any_file(tmp_path):
    suite = write_suite(tmp_path / "s", [task_yaml("t")])
    before = load_suite(suite).tasks[0].hash
    (suite / "t" / "data" / "values.csv").write_text("1 2 3\n")
    assert load_suite(suite).tasks[0].hash != before


def test_missing_files_are_reported_alongside_field_errors(tmp_path):
    suite = write_suite(tmp_path / "s", [task_yaml("both", **{"budget.cpus": "many"})])
    (suite / "both" / "paper.md").unlink()
    with pytest.raises(SpecError) as info:
        load_suite(suite)
    assert sorted(p.field for p in info.value.problems) == ["budget.cpus", "paper.text"]
