"""Remote materials in real trials: fetched once for every trial, verified, bound read-only."""

from __future__ import annotations

import hashlib
import io
import json
import sys
import tarfile
from pathlib import Path

import pytest

from conftest import VALUES, run_suite, task_yaml, write_agent, write_suite

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "materials"))
from servers import FileServer

from reclaim.materials import MaterialCache
from reclaim.runner.run import RunError, RunOptions, plan_run
from reclaim.sandbox import backend


def _archive() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        body = VALUES.encode()
        info = tarfile.TarInfo("values.csv")
        info.size = len(body)
        tar.addfile(info, io.BytesIO(body))
    return buf.getvalue()


@pytest.fixture
def served(tmp_path):
    with FileServer() as server:
        body = _archive()
        url = server.add("/release/values.tar.gz", body)
        yield server, url, hashlib.sha256(body).hexdigest()


def _suite(tmp_path: Path, url: str, sha: str) -> Path:
    spec = task_yaml("remote-data", "retrain", **{"materials.data": {"http": {"url": url, "sha256": sha}}})
    return write_suite(tmp_path / "suite", [spec])


def test_ten_trials_fetch_the_archive_once_and_bind_it_read_only(tmp_path, served, sandbox_name, monkeypatch):
    server, url, sha = served
    monkeypatch.setenv("RECLAIM_MATERIALS_CACHE", str(tmp_path / "cache"))
    suite = _suite(tmp_path, url, sha)
    rd, records = run_suite(suite, tmp_path / "runs", ["reference"], sandbox_name, seeds=10, jobs=2)
    assert [r.outcome.value for r in records] == ["reproduced"] * 10, [r.error for r in records]
    assert server.count("/release/values.tar.gz", "GET") == 1  # one download for ten trials
    for r in records:
        tdir = rd.trial_dir(r.trial_id)
        provided = json.loads((tdir / "materials.json").read_text())
        assert provided["data/values.csv"] == hashlib.sha256(VALUES.encode()).hexdigest()
        if sandbox_name != "process":  # bound, not copied: the trial's own folder holds no byte of it
            assert not any((tdir / "workspace" / "data").iterdir())


def test_the_agent_never_changes_the_cached_material(tmp_path, served, sandbox_name, bwrap_only, monkeypatch):
    """Copy on write where the harness can mount overlays (its change lands in the trial's own
    folder), read-only elsewhere; the cache's copy is as released either way."""
    _, url, sha = served
    monkeypatch.setenv("RECLAIM_MATERIALS_CACHE", str(tmp_path / "cache"))
    agent = write_agent(tmp_path / "writer.sh", "echo 9 > data/values.csv && echo WROTE || echo REFUSED\n"
                                                "cp data/values.csv mine.csv && echo 9 >> mine.csv && echo COPY_OK\n")
    rd, (rec,) = run_suite(_suite(tmp_path, url, sha), tmp_path / "runs", [f"command:{agent}"], sandbox_name)
    out = next((rd.trial_dir(rec.trial_id) / "logs").glob("agent-*.stdout")).read_text()
    if backend(sandbox_name).overlays() is None:
        assert "WROTE" in out and "COPY_OK" in out
        assert (rd.trial_dir(rec.trial_id) / "workspace" / "data" / "values.csv").read_text() == "9\n"
    else:
        assert "REFUSED" in out and "WROTE" not in out and "COPY_OK" in out
    cached = MaterialCache(tmp_path / "cache", offline=True)
    obj = next((cached.root / "objects").glob("*/values.csv"))
    assert obj.read_text() == VALUES


def test_a_wrong_checksum_stops_the_run_before_any_trial(tmp_path, served, monkeypatch):
    _, url, _ = served
    monkeypatch.setenv("RECLAIM_MATERIALS_CACHE", str(tmp_path / "cache"))
    suite = _suite(tmp_path, url, "0" * 64)
    with pytest.raises(RunError) as e:
        plan_run(RunOptions(suite=suite, agents=["nop"], sandbox="process", runs_root=tmp_path / "runs"))
    assert "materials.data" in str(e.value) and "sha256" in str(e.value)
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").rglob("trial.json"))


def test_offline_without_a_fetch_says_how_to_fetch(tmp_path, served, monkeypatch):
    server, url, sha = served
    monkeypatch.setenv("RECLAIM_MATERIALS_CACHE", str(tmp_path / "cache"))
    with pytest.raises(RunError) as e:
        plan_run(RunOptions(suite=_suite(tmp_path, url, sha), agents=["nop"], sandbox="process",
                            runs_root=tmp_path / "runs", offline=True))
    assert "reclaim materials fetch" in str(e.value) and server.count("/", "GET") == 0
