"""`reclaim materials fetch`: every material of every task into the cache, once."""

from __future__ import annotations

import hashlib
import io
import sys
import tarfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import task_yaml, write_suite
from reclaim.cli.main import app

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "materials"))
from servers import FileServer, HubRepo, HubServer, git_repo
from test_paper import make_pdf

COMMIT = "c" * 40


def _tgz(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@pytest.fixture
def remote_suite(tmp_path, monkeypatch):
    """A run-level task whose code is in git, data over HTTP and weights on the Hub (posed as
    reimplement, so code and weights are withheld: they are fetched all the same), and a
    local task."""
    bare, shas = git_repo(tmp_path / "git", [{"mean.py": "print(1)\n"}])
    data = _tgz({"values.csv": b"1.5 2.25\n"})
    with FileServer() as files, HubServer() as hub:
        hub.add(HubRepo("model", "org/w", COMMIT, {"w.txt": b"1.0\n"}))
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        monkeypatch.setenv("RECLAIM_FETCH_BACKOFF_S", "0.01")
        url = files.add("/values.tgz", data)
        pdf = make_pdf()
        pdf_url = files.add("/paper.pdf", pdf)
        remote = task_yaml("remote", "reimplement", **{
            "materials.code": {"git": {"url": str(bare), "commit": shas[0]}},
            "materials.data": {"http": {"url": url, "sha256": hashlib.sha256(data).hexdigest()}},
            "materials.weights": {"hub": {"repo": "org/w", "revision": COMMIT}},
            "paper.pdf": pdf_url, "paper.pdf_sha256": hashlib.sha256(pdf).hexdigest(),
        })
        suite = write_suite(tmp_path / "suite", [remote, task_yaml("local", "retrain")])
        yield suite, files, hub


def test_fetch_then_cached_then_offline(tmp_path, remote_suite):
    suite, files, hub = remote_suite
    cache = tmp_path / "cache"
    runner = CliRunner()
    res = runner.invoke(app, ["materials", "fetch", str(suite), "--cache", str(cache)])
    assert res.exit_code == 0, res.output
    lines = [line for line in res.output.splitlines() if line.startswith("✓")]
    assert len(lines) == 6 and all("fetched" in line for line in lines), res.output
    assert any(" paper " in line for line in lines)
    for kind in ("git", "http", "hub", "path"):
        assert any(f" {kind} " in line for line in lines), (kind, res.output)
    out = " ".join(res.output.split())  # rich wraps long lines
    assert "6 of 6 materials ready" in out and "6 fetched" in out
    requests = len(files.hits) + len(hub.hits)

    res = runner.invoke(app, ["materials", "fetch", str(suite), "--cache", str(cache)])
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())
    assert res.output.count("already cached") >= 6 and "all 6 already cached (nothing transferred)" in out
    assert "0 fetched" not in out and "0 B transferred" not in out  # plain words when nothing moved
    assert len(files.hits) + len(hub.hits) == requests

    res = runner.invoke(app, ["materials", "fetch", str(suite), "--cache", str(cache), "--offline"])
    assert res.exit_code == 0 and "6 of 6 materials present" in " ".join(res.output.split()), res.output


def test_offline_on_an_empty_cache_fails_with_the_way_out(tmp_path, remote_suite):
    suite, _, _ = remote_suite
    res = CliRunner().invoke(app, ["materials", "fetch", str(suite), "--cache", str(tmp_path / "empty"), "--offline"])
    assert res.exit_code == 1
    out = " ".join(res.output.split())
    assert "not in the materials cache" in out and "reclaim materials fetch" in out


def test_a_failed_fetch_exits_1_and_names_the_field(tmp_path):
    bad = task_yaml("bad", "reimplement", **{
        "materials.data": {"http": {"url": "http://127.0.0.1:9/gone.csv", "sha256": "0" * 64}}})
    suite = write_suite(tmp_path / "suite", [bad])
    res = CliRunner().invoke(app, ["materials", "fetch", str(suite), "--cache", str(tmp_path / "c")],
                             env={"RECLAIM_FETCH_BACKOFF_S": "0.01"})
    assert res.exit_code == 1
    assert "materials.data.http.url" in " ".join(res.output.split())


def test_bad_suite_exits_2(tmp_path):
    res = CliRunner().invoke(app, ["materials", "fetch", str(tmp_path / "nowhere")])
    assert res.exit_code == 2 and "no suite" in res.output


def test_a_fetch_that_moved_nothing_says_so_in_plain_words(tmp_path):
    from reclaim.cli.materials import fetched_in_words
    from reclaim.materials import CachedMaterial

    def m(fetched: bool, transferred: int, digest: str) -> CachedMaterial:
        return CachedMaterial(digest=digest, path=tmp_path, files={}, bytes=10, source="s", kind="path",
                              fetched=fetched, transferred=transferred)

    assert fetched_in_words([m(True, 0, "a")]) == "1 fetched"  # a git clone counts no bytes: not "(0 B transferred)"
    assert fetched_in_words([m(False, 0, "a")]) == "1 already cached (nothing transferred)"
    assert fetched_in_words([m(True, 2048, "a"), m(False, 0, "b")]) == ("1 fetched (2.0 KiB transferred), "
                                                                        "1 already cached")
