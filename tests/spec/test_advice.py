"""A level that needs a material the release lacks: the advice never withholds what the reference uses."""

from __future__ import annotations

import pytest

from conftest import DELETE, task_yaml, write_suite
from reclaim.spec import Level, SpecError, load_suite
from reclaim.spec.load import reference_uses


def _problem(tmp_path, spec: dict, reference: str | None = None, drop: str | None = None):
    suite = write_suite(tmp_path / "s", [spec], **({spec["id"].replace("-", "_"): reference} if reference else {}))
    if drop:
        (suite / spec["id"] / "reference" / drop).unlink()
    with pytest.raises(SpecError) as info:
        load_suite(suite)
    (p,) = info.value.problems
    return p


def test_a_reference_that_runs_the_released_code_is_told_data_generated_not_a_harder_level(tmp_path):
    spec = task_yaml("sim", "retrain", **{"materials.data": DELETE})
    p = _problem(tmp_path, spec, reference="set -e\npython3 code/simulate.py\n", drop="ref_mean.py")
    assert p.field == "materials.data" and "level 'retrain' needs released data" in p.message
    assert p.fix.startswith("where the released code generates its data, say so: materials.data: generated")
    assert "pose the task at a harder level" not in p.fix
    assert "level reimplement would not give the reference what it uses: reference/reproduce.sh uses code/" in p.fix


def test_a_reference_that_reads_data_is_told_which_material_to_add(tmp_path):
    spec = task_yaml("reads", "retrain", **{"materials.data": DELETE})
    p = _problem(tmp_path, spec, reference="set -e\ncd code && python3 mean.py\n")  # mean.py reads data/
    assert "materials.data: generated" not in p.fix  # ref_mean.py reads data/values.csv
    assert p.fix.startswith("add materials.data (reference/ref_mean.py reads data/)")
    assert "pose the task at a harder level" not in p.fix


def test_a_harder_level_is_still_advised_where_the_reference_needs_nothing_it_withholds(tmp_path):
    p = _problem(tmp_path, task_yaml("no-weights", "run", **{"materials.weights": DELETE}))
    assert p.fix == "add materials.weights, or pose the task at a harder level (level: retrain)"


def test_the_reference_folders_that_name_materials(tmp_path):
    suite = write_suite(tmp_path / "s", [task_yaml("t", "retrain")],
                        t='set -e\nexport PYTHONPATH="code"\npython3 ref_mean.py\n')
    task = load_suite(suite).tasks[0]
    assert reference_uses(task.dir, task.spec) == {"code": "reference/reproduce.sh", "data": "reference/ref_mean.py"}


def test_generated_data_loads_at_run_and_retrain(tmp_path):
    specs = [task_yaml("gen-retrain", "retrain", **{"materials.data": "generated"}),
             task_yaml("gen-run", "run", **{"materials.data": "generated"})]
    suite = load_suite(write_suite(tmp_path / "s", specs))
    levels = {t.id: t.spec.level for t in suite.tasks}
    assert levels == {"gen-retrain": Level.retrain, "gen-run": Level.run}
    for t in suite.tasks:
        assert t.spec.withheld() == [] and "data" not in t.spec.materials.allowed(t.spec.level)


def test_a_named_weakened_experiment_must_exist(tmp_path):
    p = _problem(tmp_path, task_yaml("weak", **{"reference.weakened": "weakened.sh"}))
    assert p.field == "reference.weakened" and "'reference/weakened.sh' not found" in p.message
