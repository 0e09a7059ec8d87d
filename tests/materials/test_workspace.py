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
        assert placed.names == expected[task.id] == [m.name for m in placed.mounts]
        top = sorted(p.name for p in ws.iterdir())
        assert top == sorted(expected[task.id] + ["paper.md", "TASK.md"])
        for m in placed.mounts:  # an empty mount point here; the files are in the read-only cache
            assert not any((ws / m.name).iterdir())
            assert m.files and all((m.host / rel).is_file() for rel in m.files)
            assert not m.host.stat().st_mode & 0o022  # only the harness may write it
        assert "data/values.csv" in placed.provided()


def test_a_second_trial_reuses_the_cached_objects_and_copies_nothing(tmp_path):
    from reclaim.materials import MaterialCache

    cache = MaterialCache(tmp_path / "cache")
    task = _suite(tmp_path).task("t-run")
    first = build_workspace(task, tmp_path / "ws1", cache=cache)
    again = build_workspace(task, tmp_path / "ws2", cache=cache)
    assert [m.host for m in again.mounts] == [m.host for m in first.mounts]
    assert sum(p.stat().st_size for p in (tmp_path / "ws2").rglob("*") if p.is_file()) < 8192  # paper, TASK.md


def test_without_binds_the_materials_are_copied_and_writable(tmp_path):
    task = _suite(tmp_path).task("t-retrain")
    ws = tmp_path / "ws"
    placed = build_workspace(task, ws, bind=False)
    assert placed.copied and (ws / "data" / "values.csv").read_text()
    (ws / "data" / "values.csv").write_text("changed")  # the copy is the agent's, not the cache's
    data = next(m for m in placed.mounts if m.name == "data")
    assert (data.host / "values.csv").read_text() != "changed"


def test_reimplement_workspace_has_no_code_no_weights_no_reference(tmp_path):
    suite = _suite(tmp_path)
    for tid in ("t-reimpl", "t-posed"):
        ws = tmp_path / "ws" / tid
        placed = build_workspace(suite.task(tid), ws)
        assert placed.names == ["data"]
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
