"""One home for runs: the runs root (--runs-root, $RECLAIM_HOME, one per user by default), runs kept in ./runs
before, runs kept elsewhere, record modes."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from conftest import run_suite, task_yaml, write_suite
from reclaim.store import Index, runs_root

RECLAIM = [sys.executable, "-m", "reclaim.cli"]


def _reclaim(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **env}
    full.pop("RECLAIM_HOME", None) if "RECLAIM_HOME" not in env else None
    return subprocess.run(RECLAIM + args, cwd=cwd, env=full, capture_output=True, text=True)


def _modes(folder: Path) -> tuple[set[int], set[int]]:
    """Permission bits of the harness's own records (trial.json, run.json, trace...) and folders."""
    files, dirs = set(), set()
    for p in [folder, *folder.rglob("*")]:
        rel = p.relative_to(folder).parts
        if any(part in ("workspace", "agent", "home", "tmp", "reexec", "venv") for part in rel):
            continue  # the sandbox's own (written by its user) and the prepared venv: not records
        if p.is_dir() and p.name.endswith(".execs"):
            continue  # the exec log's folder is root's 0700 while the agent runs (sandbox/bwrap.py)
        (dirs if p.is_dir() else files).add(stat.S_IMODE(p.stat().st_mode))
    return files, dirs


def test_reclaim_home_and_runs_root(tmp_path, monkeypatch):
    monkeypatch.delenv("RECLAIM_HOME", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert runs_root() == tmp_path / "xdg" / "reclaim" / "runs"  # one per user, not per folder
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert runs_root() == tmp_path / "user" / ".local" / "share" / "reclaim" / "runs"
    monkeypatch.setenv("RECLAIM_HOME", str(tmp_path / "home"))
    assert runs_root() == tmp_path / "home" / "runs"
    assert runs_root(tmp_path / "given") == tmp_path / "given"


def test_the_default_root_is_one_per_user_from_any_folder_and_old_runs_stay_found(tmp_path, sandbox_name):
    """No RECLAIM_HOME: a run started in one folder is listed and found by id from another; a run kept
    in ./runs by the old default is still found by id there and named by `reclaim runs`."""
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    user = {"XDG_DATA_HOME": str(tmp_path / "xdg")}
    res = _reclaim(["run", "--suite", str(suite), "--agent", "nop", "--sandbox", sandbox_name], a, **user)
    assert res.returncode == 0, res.stderr
    (run_json,) = (tmp_path / "xdg" / "reclaim" / "runs").glob("*/run.json")
    assert not (a / "runs").exists()
    listed = _reclaim(["runs"], b, COLUMNS="80", **user)
    assert run_json.parent.name in listed.stdout
    assert f"runs in {tmp_path / 'xdg' / 'reclaim' / 'runs'}\n(this user's default" in listed.stdout
    assert _reclaim(["report", run_json.parent.name], b, **user).returncode == 0

    old = run_suite(suite, b / "runs", ["reference"], sandbox_name)[0]  # as the old default kept it
    found = _reclaim(["report", old.path.name], b, COLUMNS="200", **user)
    assert found.returncode == 0, found.stderr
    listed = _reclaim(["runs"], b, COLUMNS="80", **user)
    said = " ".join(listed.stdout.split())
    assert run_json.parent.name in said and old.path.name not in said  # listed apart, not mixed in
    assert f"1 more run in {b / 'runs'}, where runs were kept before" in said and f"reclaim runs {b / 'runs'}" in said
    lost = _reclaim(["report", "20990101-000000-nothing"], b, COLUMNS="300", **user)
    assert lost.returncode != 0
    said = " ".join(lost.stderr.split())
    assert str(tmp_path / "xdg" / "reclaim" / "runs") in said and str(b / "runs") in said  # both places named


def test_run_under_reclaim_home_is_listed_from_any_folder(tmp_path, sandbox_name):
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    home = tmp_path / "home"
    res = _reclaim(["run", "--suite", str(suite), "--agent", "nop", "--sandbox", sandbox_name], elsewhere,
                   RECLAIM_HOME=str(home))
    assert res.returncode == 0, res.stderr
    assert not (elsewhere / "runs").exists()  # nothing relative to the current folder
    (run_json,) = (home / "runs").glob("*/run.json")
    listed = _reclaim(["runs"], tmp_path, RECLAIM_HOME=str(home), COLUMNS="120")
    assert run_json.parent.name in listed.stdout and "mini@" in listed.stdout
    assert f"runs in {home / 'runs'}" in listed.stdout  # the root, whole, as it was found
    found = _reclaim(["report", run_json.parent.name], tmp_path, RECLAIM_HOME=str(home))
    assert found.returncode == 0, found.stderr
    other = {"XDG_DATA_HOME": str(tmp_path / "xdg")}  # no RECLAIM_HOME: this user's default root
    lost = _reclaim(["report", run_json.parent.name], tmp_path, COLUMNS="300", **other)
    assert lost.returncode != 0
    said = " ".join(lost.stderr.split())
    assert f"no run {run_json.parent.name}" in said and f"the runs root {tmp_path / 'xdg' / 'reclaim' / 'runs'}" in said
    assert "$RECLAIM_HOME" in said


def test_run_dir_outside_the_root_is_indexed_there_and_kept_by_rebuild(tmp_path, sandbox_name):
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    root, outside = tmp_path / "runs", tmp_path / "elsewhere" / "run1"
    rd, _ = run_suite(suite, root, ["nop"], sandbox_name, run_dir=outside)
    assert rd.path == outside.resolve()
    assert not (outside.parent / "index.sqlite").exists()
    run_suite(suite, root, ["reference"], sandbox_name)  # one more, inside the root
    ix = Index(root)
    paths = {p.name: p for p in ix.run_paths()}
    assert paths["run1"] == outside.resolve() and len(paths) == 2
    assert ix.rebuild() == (2, 2)  # the outside run is found again through the old index
    assert {p.name for p in ix.run_paths()} == set(paths)
    res = _reclaim(["runs", str(root)], tmp_path, COLUMNS="120")
    assert res.returncode == 0 and "run1" in res.stdout


def test_records_are_world_readable_by_default(tmp_path, sandbox_name):
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    res = _reclaim(["run", "--suite", str(suite), "--agent", "reference", "--sandbox", sandbox_name,
                    "--run-dir", str(tmp_path / "r")], tmp_path, RECLAIM_HOME=str(tmp_path / "home"))
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "r" / "trials" / "mean-run__reference__0" / "trial.json").is_file()
    files, dirs = _modes(tmp_path / "r")
    assert files == {0o644} and dirs == {0o755}


def test_private_records_are_the_owners_alone(tmp_path, sandbox_name):
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    res = _reclaim(["run", "--suite", str(suite), "--agent", "reference", "--sandbox", sandbox_name,
                    "--run-dir", str(tmp_path / "r"), "--private"], tmp_path, RECLAIM_HOME=str(tmp_path / "home"))
    assert res.returncode == 0, res.stderr
    files, dirs = _modes(tmp_path / "r")
    assert files == {0o600} and dirs == {0o700}


def test_a_runs_root_that_cannot_be_made_is_refused_in_one_line_before_anything_runs(tmp_path, sandbox_name):
    """Before, each trial ended in error on its own (the sandboxes hide the root, and could not reach it)."""
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    (tmp_path / "afile").write_text("")
    res = _reclaim(["run", "--suite", str(suite), "--agent", "nop", "--sandbox", sandbox_name],
                   tmp_path, RECLAIM_HOME=str(tmp_path / "afile" / "home"))
    said = " ".join(res.stderr.split())
    assert res.returncode == 2 and "Traceback" not in said, said
    assert f"the runs root {tmp_path / 'afile' / 'home' / 'runs'} cannot be used" in said and "$RECLAIM_HOME" in said
