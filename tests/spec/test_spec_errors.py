"""Every kind of bad spec gets one clear message naming the file, the field and the fix."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from conftest import DELETE, task_yaml, write_suite
from reclaim.cli.main import app
from reclaim.spec import SpecError, load_suite

CASES = {
    "missing field": ({"target": DELETE}, "target", "add the required field 'target'"),
    "wrong type": ({"budget.wall_minutes": "ten"}, "budget.wall_minutes", "give a number"),
    "unknown key": ({"budget.gpu_hourz": 3}, "budget.gpu_hourz", "remove 'gpu_hourz'"),
    "negative budget": ({"budget.gpu_hours": -1}, "budget.gpu_hours", ">= 0"),
    "non-finite target": ({"target.value": float("inf")}, "target.value", "finite number"),
    "bad level name": ({"level": "rerun"}, "level", "run"),
    "python not a version": ({"environment.python": "python3.12"}, "environment.python", "e.g. '3.12'"),
    "python unquoted": ({"environment.python": 3.12}, "environment.python", "quote it"),
    "system not a list": ({"environment.system": "build-essential"}, "environment.system", "give a list"),
    "host_python not a bool": ({"environment.host_python": "sometimes"}, "environment.host_python", "true or false"),
    "requirements absent": ({"environment.requirements": "reqs.txt"}, "environment.requirements", "reqs.txt"),
    "short commit": ({"materials.code": {"git": {"url": "https://example.org/r.git", "commit": "abc1234"}}},
                     "materials.code.git.commit", "full 40-character lowercase commit sha"),
    "upper-case commit": ({"materials.code": {"git": {"url": "https://example.org/r.git", "commit": "A" * 40}}},
                          "materials.code.git.commit", "git rev-parse HEAD"),
    "hub branch": ({"materials.data": {"hub": {"repo": "org/ds", "revision": "main", "kind": "dataset"}}},
                   "materials.data.hub.revision", "not a short sha, a tag or a branch"),
    "short sha256": ({"materials.data": {"http": {"url": "https://example.org/d.tgz", "sha256": "ab" * 20}}},
                     "materials.data.http.sha256", "64-character lowercase sha256 (sha256sum FILE)"),
    "pdf md5": ({"paper.pdf": "https://example.org/p.pdf", "paper.pdf_sha256": "md5:12ab"}, "paper.pdf_sha256",
                "64-character lowercase sha256"),
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


def test_a_requirements_file_inside_withheld_code_is_refused(tmp_path):
    """At reimplement the code is withheld: its requirements file would tell the agent what it uses."""
    spec = task_yaml("req-withheld", "reimplement", **{"materials.code": {"path": "code"},
                                                         "environment.requirements": "code/requirements.txt"})
    suite = write_suite(tmp_path / "s", [spec])
    (suite / "req-withheld" / "code" / "requirements.txt").write_text("numpy\n")
    with pytest.raises(SpecError) as info:
        load_suite(suite)
    (p,) = info.value.problems
    assert p.file == suite / "req-withheld" / "task.yaml" and p.field == "environment.requirements"
    assert "lies in materials.code, which level 'reimplement' withholds" in p.message
    assert "copy the requirements file beside task.yaml" in p.fix and str(p.file) in str(p)


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


@pytest.mark.parametrize("content", [None, "", "just words\n"], ids=["missing", "empty", "not a mapping"])
def test_a_missing_or_empty_suite_file_names_what_it_must_hold(tmp_path, content):
    """A newcomer's first validate met 'suite.yaml: file not found', then 'expected a mapping of
    keys to values', neither naming name and version nor the command that writes the file."""
    if content is not None:
        (tmp_path / "suite.yaml").write_text(content)
    res = CliRunner().invoke(app, ["tasks", "validate", str(tmp_path)])
    assert res.exit_code == 1
    out = " ".join(res.output.split())
    assert "suite.yaml" in out and "name: my-suite" in out and "version" in out, out
    assert "reclaim tasks new ID --suite DIR" in out and "docs/task-format.md" in out


def test_a_rule_of_the_format_reads_in_plain_words(tmp_path):
    """A rule broken across fields said 'Value error, perturb ...' (pydantic's words) before its own."""
    spec = task_yaml("bad-perturb", verify={"inputs": {"SEED": "1"}, "perturb": [{"name": "p", "env": {"N": "5"}}]})
    write_suite(tmp_path / "suite", [spec])
    with pytest.raises(SpecError) as e:
        load_suite(tmp_path / "suite")
    text = str(e.value)
    assert "perturb 'p' sets N, not among verify.inputs" in text and "Value error" not in text, text
