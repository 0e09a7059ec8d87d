"""A workspace holds exactly what the posed level allows: never a reference, never withheld files."""

from __future__ import annotations

from conftest import task_yaml, write_suite

from reclaim.materials import MaterialsError, build_workspace
from reclaim.spec import load_suite


def _files(root):
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


def _suite(tmp_path):
    return load_suite(write_suite(tmp_path / "s", [
        task_yaml("t-run", "run"), task_yaml("t-retrain", "retrain"), task_yaml("t-reimpl", "reimplement"),
        # released at run level, posed as reimplement: code and weights must be withheld
        task_yaml("t-posed", "reimplement", **{"materials.code": {"path": "code"},
                                                "materials.weights": {"path": "weights"}}),
    ]))


def test_each_level_gets_exactly_its_materials(tmp_path):
    suite = _suite(tmp_path)
    expected = {
        "t-run": ["code", "data", "weights"], "t-retrain": ["code", "data"],
        "t-reimpl": ["data"], "t-posed": ["data"],
    }
    for task in suite.tasks:
        ws = tmp_path / "ws" / task.id
        placed = build_workspace(task, ws)
        assert placed == expected[task.id]
        top = sorted(p.name for p in ws.iterdir())
        assert top == sorted(expected[task.id] + ["paper.md", "TASK.md"])


def test_reimplement_workspace_has_no_code_no_weights_no_reference(tmp_path):
    suite = _suite(tmp_path)
    for tid in ("t-reimpl", "t-posed"):
        ws = tmp_path / "ws" / tid
        build_workspace(suite.task(tid), ws)
        files = _files(ws)
        assert not any(f.startswith(("code", "weights", "reference")) for f in files), files
        assert not any(f.endswith((".py", "w.txt", "reproduce.sh")) for f in files), files


def test_no_workspace_contains_the_reference(tmp_path):
    suite = _suite(tmp_path)
    for task in suite.tasks:
        ws = tmp_path / "ws" / task.id
        build_workspace(task, ws)
        assert not (ws / "reference").exists()
        assert "ref_mean.py" not in [p.name for p in ws.rglob("*")]


def test_task_md_states_claim_target_budget_and_contract(tmp_path):
    task = _suite(tmp_path).task("t-run")
    ws = tmp_path / "ws"
    build_workspace(task, ws)
    text = (ws / "TASK.md").read_text()
    for needle in ("The mean is 3.194.", "`mean_value`", "3.194", "wall clock: 1 min",
                   "results.json", "reproduce.sh", "abs"):
        assert needle in text, needle


def test_refuses_a_used_workspace(tmp_path):
    task = _suite(tmp_path).task("t-run")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "leftover").write_text("from another trial")
    try:
        build_workspace(task, ws)
    except MaterialsError as e:
        assert "not empty" in str(e)
    else:
        raise AssertionError("a used workspace was accepted")
