"""A suite's lock: a task may leave an HTTP file's sha256 out; reclaim materials lock reads each
file once and records it, every later fetch must match, and a run records which lock it used."""

from __future__ import annotations

import hashlib
import json

import pytest
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


def test_the_papers_pdf_is_locked_too_an_arxiv_version_and_a_proceedings_url(tmp_path, monkeypatch):
    """A PDF's hash cannot be known from a machine that cannot download it: the lock reads it once,
    and a PDF that changes afterwards (an arXiv rebuild, a replaced proceedings file) is refused."""
    from reclaim.materials import MaterialCache, MaterialsError, paper_pdf

    pdf, rebuilt = b"%PDF-1.4 the paper\n", b"%PDF-1.4 the paper, rebuilt\n"
    with FileServer() as srv:
        srv.add("/pdf/2501.01234v2", pdf)
        proceedings = srv.add("/paper/abc.pdf", pdf)
        monkeypatch.setenv("RECLAIM_ARXIV_URL", srv.url + "/pdf")
        specs = [task_yaml("on-arxiv", **{"paper.arxiv": "2501.01234v2", "paper.text": "absent.md"}),
                 task_yaml("in-proceedings", **{"paper.pdf": proceedings, "paper.text": "absent.md"})]
        suite = write_suite(tmp_path / "suite", specs)
        cache = tmp_path / "cache"
        s = load_suite(suite)  # an unpinned proceedings PDF loads; fetching it needs the lock
        with pytest.raises(MaterialsError, match="reclaim materials lock"):
            paper_pdf(s.task("in-proceedings").spec.paper, suite / "in-proceedings", MaterialCache(cache), "t")
        res = _cli("materials", "lock", str(suite), cache=cache)
        assert res.exit_code == 0, res.output
        files = json.loads((suite / "suite.lock").read_text())["files"]
        sha = hashlib.sha256(pdf).hexdigest()
        assert files["on-arxiv/paper"] == {"url": "https://arxiv.org/pdf/2501.01234v2", "sha256": sha}
        assert files["in-proceedings/paper"] == {"url": proceedings, "sha256": sha}
        s = load_suite(suite)
        for t in s.tasks:
            assert t.spec.paper.pdf_sha256 == sha
            assert paper_pdf(t.spec.paper, t.dir, MaterialCache(cache), "t") is not None
        srv.routes["/pdf/2501.01234v2"].body = rebuilt
        srv.routes["/paper/abc.pdf"].body = rebuilt
        for t in s.tasks:
            with pytest.raises(MaterialsError, match="not the pinned"):
                paper_pdf(t.spec.paper, t.dir, MaterialCache(tmp_path / f"fresh-{t.id}"), "t")


def test_a_hub_repository_without_a_revision_is_locked_at_its_head(tmp_path, monkeypatch):
    """Weights released on the Hub whose commit a curator cannot see from here: the lock resolves
    the default branch once; a later push to it does not change what the suite fetches."""
    from servers import HubRepo, HubServer

    from reclaim.materials import MaterialCache, MaterialsError

    with HubServer() as srv:
        monkeypatch.setenv("HF_ENDPOINT", srv.url)
        monkeypatch.delenv("HF_TOKEN", raising=False)
        srv.add(HubRepo("model", "org/net", "c" * 40, {"config.json": b"{}"}))
        spec = task_yaml("weights", "run", **{"materials.weights": {"hub": {"repo": "org/net"}}})
        suite = write_suite(tmp_path / "suite", [spec])
        t = load_suite(suite).task("weights")
        with pytest.raises(MaterialsError, match="reclaim materials lock"):
            MaterialCache(tmp_path / "c").get(t.spec.materials.weights, t.dir, "t")
        res = _cli("materials", "lock", str(suite), cache=tmp_path / "c")
        assert res.exit_code == 0, res.output
        files = json.loads((suite / "suite.lock").read_text())["files"]
        assert files["weights/weights"] == {"url": "hf://models/org/net", "revision": "c" * 40}
        t = load_suite(suite).task("weights")
        assert t.spec.materials.weights.hub.revision == "c" * 40
        got = MaterialCache(tmp_path / "c").get(t.spec.materials.weights, t.dir, "t")
        assert (got.path / "config.json").read_bytes() == b"{}"
