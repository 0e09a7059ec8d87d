"""`reclaim tasks new`: a skeleton per level that validation rejects, naming every placeholder,
until it is filled in; filled in (as a user would, editing its lines), it validates and its
reference reproduces the target through the real harness."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from reclaim.cli.main import app
from reclaim.spec import load_suite
from reclaim.spec.placeholders import MATERIAL_MARK

LEVELS = {"run": ("code", "data", "weights"), "retrain": ("code", "data"), "reimplement": ("data",)}
FIELDS = ("paper.title", "paper.venue", "paper.year", "target.claim", "target.metric", "target.value",
          "target.direction", "target.where", "criteria.rel_tol", "budget.wall_minutes")
VALUES = "1.5 2.25 3.125 4.0625 5.03125\n"  # mean 3.19375
FILLED = {"title": "On the mean of five numbers", "venue": "NeurIPS", "year": "2025",
          "claim": '"The mean of the five values is 3.194."', "metric": "mean_value", "value": "3.194",
          "direction": "match", "where": '"Table 1"', "rel_tol": "0.01", "wall_minutes": "2"}
MEAN = "vals = [float(x) for x in open('data/values.csv').read().split()]\n"
REFERENCE = {  # each computes the target from the released data, using what its level releases
    "run": "#!/bin/bash\nset -euo pipefail\npython3 code/mean.py --weights weights/scale.txt\n",
    "retrain": "#!/bin/bash\nset -euo pipefail\npython3 code/mean.py\n",
    "reimplement": "#!/bin/bash\nset -euo pipefail\npython3 -c \"import json\n" + MEAN
                   + "json.dump({'mean_value': sum(vals) / len(vals)}, open('results.json', 'w'))\"\n",
}
MEAN_PY = ("import json, sys\n" + MEAN + "scale = float(open(sys.argv[2]).read()) if len(sys.argv) > 2 else 1.0\n"
           "json.dump({'mean_value': scale * sum(vals) / len(vals)}, open('results.json', 'w'))\n")


@pytest.fixture(autouse=True)
def own_tmp(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # validate's run folders stay in this test's tmp


def _new(suite: Path, task_id: str, *extra: str):
    return CliRunner().invoke(app, ["tasks", "new", task_id, "--suite", str(suite), *extra])


def _fill(task_dir: Path, level: str) -> None:
    """What a user does: edit each FILL IN line of task.yaml, write the paper, the reference and the data."""
    text = (task_dir / "task.yaml").read_text()
    text, n = re.subn(r'^(\s*)(\w+): "FILL IN:[^"]*"', lambda m: f"{m[1]}{m[2]}: {FILLED[m[2]]}", text, flags=re.M)
    assert n == len(FIELDS)
    (task_dir / "task.yaml").write_text(text)
    (task_dir / "paper.md").write_text("# On the mean of five numbers\n\nThe mean is 3.194 (Table 1).\n")
    (task_dir / "reference" / "reproduce.sh").write_text(REFERENCE[level])
    for kind in LEVELS[level]:
        (task_dir / kind / MATERIAL_MARK).unlink()
    (task_dir / "data" / "values.csv").write_text(VALUES)
    if "code" in LEVELS[level]:
        (task_dir / "code" / "mean.py").write_text(MEAN_PY)
    if "weights" in LEVELS[level]:
        (task_dir / "weights" / "scale.txt").write_text("1.0\n")


def test_a_skeleton_fails_validation_naming_each_placeholder_and_validates_once_filled_in(tmp_path, sandbox_name):
    suite = tmp_path / "new-suite"
    for level in LEVELS:
        res = _new(suite, f"mean-{level}", "--level", level)
        assert res.exit_code == 0, res.output
        assert f"wrote {suite / f'mean-{level}'} (level {level})" in res.output
    assert yaml.safe_load((suite / "suite.yaml").read_text())["name"] == "new-suite"  # made, as none was there
    for level, kinds in LEVELS.items():
        d = suite / f"mean-{level}"
        assert sorted(p.name for p in d.iterdir()) == sorted(["task.yaml", "paper.md", "reference", *kinds])
        assert yaml.safe_load((d / "task.yaml").read_text())["level"] == level

    res = CliRunner().invoke(app, ["tasks", "validate", str(suite)])
    assert res.exit_code == 1, res.output
    out = res.output
    for level, kinds in LEVELS.items():
        where = f"{suite / f'mean-{level}' / 'task.yaml'}: "
        for field in FIELDS:
            assert f"{where}{field}: not filled in yet (still 'FILL IN: " in out, (field, out)
        assert f"{where}target.direction: not filled in yet (still 'FILL IN: higher_is_better, lower_is_better " \
               "or match') — fix: replace the placeholder with higher_is_better, lower_is_better or match" in out
        assert f"{where}paper.text: 'paper.md' is still the skeleton's placeholder" in out
        assert f"{where}reference.entrypoint: 'reference/reproduce.sh' is still the skeleton's placeholder" in out
        for kind in kinds:
            assert f"{where}materials.{kind}.path: '{kind}/' still holds the skeleton's FILL_IN.md — fix: put the " \
                   f"released {kind} in {suite / f'mean-{level}' / kind} and delete" in out
    n = sum(len(FIELDS) + 2 + len(kinds) for kinds in LEVELS.values())
    assert f"{n} problem(s)" in out  # the placeholders alone: their type errors are not repeated
    assert "Input should be" not in out and "valid number" not in out

    for level in LEVELS:
        _fill(suite / f"mean-{level}", level)
    res = CliRunner().invoke(app, ["tasks", "validate", str(suite)])
    assert res.exit_code == 0, res.output
    assert "3 tasks, specs valid" in res.output
    assert {t.spec.level.value: t.spec.target.value for t in load_suite(suite).tasks} == dict.fromkeys(LEVELS, 3.194)

    res = CliRunner().invoke(app, ["tasks", "validate", str(suite), "--with-reference", "--sandbox", sandbox_name])
    assert res.exit_code == 0, res.output
    for level in LEVELS:
        assert f"✓ mean-{level}: reference reproduced (measured 3.19375, target 3.194)" in res.output

    # one placeholder put back is caught again, alone
    d = suite / "mean-retrain"
    (d / "data" / MATERIAL_MARK).write_text("# FILL IN: the released data\n")
    res = CliRunner().invoke(app, ["tasks", "validate", str(suite)])
    assert res.exit_code == 1 and "1 problem(s)" in res.output, res.output
    assert "materials.data.path: 'data/' still holds the skeleton's FILL_IN.md" in res.output


def test_new_refuses_an_existing_folder_and_a_bad_id(tmp_path):
    suite = tmp_path / "s"
    assert _new(suite, "mine", "--level", "retrain").exit_code == 0
    before = (suite / "mine" / "task.yaml").read_bytes()
    (suite / "mine" / "task.yaml").write_text(before.decode().replace('"FILL IN: the paper', '"FILL IN: my paper'))
    edited = (suite / "mine" / "task.yaml").read_bytes()
    res = _new(suite, "mine", "--level", "run")
    assert res.exit_code == 2
    assert f"error: {suite / 'mine'} already exists: choose another id, or remove that folder first" in res.output
    assert (suite / "mine" / "task.yaml").read_bytes() == edited and not (suite / "mine" / "weights").exists()

    res = _new(suite, "My_Task", "--level", "run")
    assert res.exit_code == 2
    assert "error: task id 'My_Task' is not valid: use lowercase letters, digits and dashes, starting with a " \
           "letter or digit (e.g. my-task)" in res.output
    assert sorted(p.name for p in suite.iterdir()) == ["mine", "suite.yaml"]
    res = _new(suite, "x", "--level", "easy")
    assert res.exit_code == 2 and "easy" in res.output and not (suite / "x").exists()


def test_new_in_a_suite_that_lists_its_tasks_says_to_list_it(tmp_path):
    suite = tmp_path / "listed"
    suite.mkdir()
    (suite / "suite.yaml").write_text("name: listed\nversion: '1'\ntasks: [other]\n")
    res = _new(suite, "mine", "--level", "reimplement")
    assert res.exit_code == 0, res.output
    assert f"! {suite / 'suite.yaml'} lists its tasks: add mine to its tasks:, or the suite skips this folder" \
        in res.output
    assert (suite / "suite.yaml").read_text() == "name: listed\nversion: '1'\ntasks: [other]\n"  # left as it was
    res = _new(tmp_path / "unlisted", "mine", "--level", "reimplement")
    assert res.exit_code == 0 and "lists its tasks" not in res.output


def test_validate_names_the_task_folders_a_tasks_list_leaves_out(tmp_path):
    suite = tmp_path / "listed"
    for task_id in ("listed-one", "forgotten"):
        assert _new(suite, task_id, "--level", "reimplement").exit_code == 0
        _fill(suite / task_id, "reimplement")
    (suite / "suite.yaml").write_text("name: listed\nversion: '1'\ntasks: [listed-one]\n")
    res = CliRunner().invoke(app, ["tasks", "validate", str(suite)])
    assert res.exit_code == 0, res.output  # a warning, not an error
    assert "listed 1: 1 tasks, specs valid" in res.output
    assert "! forgotten: has a task.yaml, but the tasks: list of suite.yaml leaves it out, so the suite skips it " \
           "(add it to tasks:, or leave tasks: out to take every folder)" in res.output
    assert "listed-one: has a task.yaml" not in res.output
    (suite / "suite.yaml").write_text("name: listed\nversion: '1'\n")  # no list: every folder, no warning
    res = CliRunner().invoke(app, ["tasks", "validate", str(suite)])
    assert res.exit_code == 0 and "2 tasks, specs valid" in res.output and "leaves it out" not in res.output

    # a problem whose words hold brackets is printed as written
    text = (suite / "forgotten" / "task.yaml").read_text().replace("rel_tol: 0.01", "interval: [0.0, 1.0]")
    (suite / "forgotten" / "task.yaml").write_text(text)
    res = CliRunner().invoke(app, ["tasks", "validate", str(suite)])
    assert res.exit_code == 1
    assert "criteria.interval: the target value 3.194 lies outside [0.0, 1.0]" in res.output, res.output


def test_a_reimplement_skeleton_with_no_data_released_validates_as_its_comment_says(tmp_path):
    suite = tmp_path / "s"
    assert _new(suite, "no-data", "--level", "reimplement").exit_code == 0
    d = suite / "no-data"
    _fill(d, "reimplement")
    text = (d / "task.yaml").read_text()
    line = next(x for x in text.splitlines() if "no data released" in x)
    assert line.endswith("# no data released: materials: {} and delete data/ (then verify.perturb, below)")
    text = text.replace("materials:", "materials: {}", 1).replace(line + "\n", "")
    (d / "task.yaml").write_text(text)
    (d / "data" / "values.csv").unlink()
    (d / "data").rmdir()
    res = CliRunner().invoke(app, ["tasks", "validate", str(suite)])
    assert res.exit_code == 1 and "no check in code applies" in res.output  # nothing holds its number yet
    text = text.replace("# verify:", "verify:").replace('#   inputs: {SEED: "1"}', '  inputs: {SEED: "1"}')
    text = text.replace('#   perturb: [{name: seed-7, env: {SEED: "7"}}]',
                        '  perturb: [{name: seed-7, env: {SEED: "7"}, values: {mean_value: 3.5}}]')
    (d / "task.yaml").write_text(text)
    res = CliRunner().invoke(app, ["tasks", "validate", str(suite)])
    assert res.exit_code == 0, res.output
    assert load_suite(suite).tasks[0].spec.materials.refs() == {}
