"""A suite's lock: a task may leave an HTTP file's sha256 out; reclaim materials lock reads each
file once and records it, every later fetch must match, and a run records which lock it used."""

from __future__ import annotations

import hashlib
import json

from servers import FileServer
from typer.testing import CliRunner

from conftest import task_yaml, write_suite
from reclaim.cli.main import app
from reclaim.spec import load_suite

DATA = b"x,y\n1,2\n3,4\n"


def _suite(tmp_path, url, sha=None):
    http = {"url": url, **({"sha256": sha} if sha else {})}
    spec = task_yaml("remote", "reimplement", **{"materials": {"data": {"http": http}}})
    return write_suite(tmp_path / "suite", [spec])


class _Said:
    def __init__(self, res):
        self.exit_code, self.output = res.exit_code, " ".join(res.output.split())  # unwrapped


def _cli(*args, cache):
    return _Said(CliRunner().invoke(app, [*args], env={"RECLAIM_MATERIALS_CACHE": str(cache)}))


def test_an_unpinned_file_is_locked_once_then_every_fetch_must_match(tmp_path):
    with FileServer() as srv:
        url = srv.add("/data/values.csv", DATA)
        suite = _suite(tmp_path, url)
        cache = tmp_path / "cache"
        res = _cli("materials", "fetch", str(suite), cache=cache)  # no pin, no lock: refused, with the fix
        assert res.exit_code == 1 and "reclaim materials lock SUITE" in res.output
        res = _cli("materials", "lock", str(suite), cache=cache)
        assert res.exit_code == 0, res.output
        lock = json.loads((suite / "suite.lock").read_text())
        assert lock["files"]["remote/data"] == {"url": url, "sha256": hashlib.sha256(DATA).hexdigest()}
        assert load_suite(suite).task("remote").spec.materials.data.http.sha256 == hashlib.sha256(DATA).hexdigest()
        assert _cli("materials", "fetch", str(suite), cache=cache).exit_code == 0
        srv.routes["/data/values.csv"].body = b"x,y\n1,2\n3,5\n"  # changed upstream after the lock
        res = _cli("materials", "fetch", str(suite), cache=tmp_path / "cache2")
        assert res.exit_code == 1 and "not the pinned" in res.output


def test_a_lock_that_contradicts_a_pin_or_another_url_is_a_spec_problem(tmp_path):
    with FileServer() as srv:
        url = srv.add("/d.csv", DATA)
        suite = _suite(tmp_path, url, sha=hashlib.sha256(b"other").hexdigest())
        res = _cli("materials", "lock", str(suite), cache=tmp_path / "c")  # the server gives other bytes
        assert res.exit_code == 1 and "not the pinned" in res.output and not (suite / "suite.lock").exists()
        (suite / "suite.lock").write_text(json.dumps({
            "locked_at": 0, "reclaim_version": "0", "files": {"remote/data": {
                "url": url + "?moved", "sha256": hashlib.sha256(DATA).hexdigest()}}}))
        res = _Said(CliRunner().invoke(app, ["tasks", "validate", str(suite)]))
        assert res.exit_code != 0 and "suite.lock was made for" in res.output


def test_a_run_records_the_lock_it_used(tmp_path):
    from reclaim.runner.run import RunOptions, plan_run

    with FileServer() as srv:
        suite = _suite(tmp_path, srv.add("/values.csv", DATA))
        assert _cli("materials", "lock", str(suite), cache=tmp_path / "c").exit_code == 0
        rd = plan_run(RunOptions(suite=suite, agents=["nop"], runs_root=tmp_path / "runs", sandbox="process",
                                 materials_cache=tmp_path / "c"))
    digest = hashlib.sha256((suite / "suite.lock").read_bytes()).hexdigest()
    assert rd.spec().suite_lock == digest
