"""Bundles: a suite's materials packed where the network is, unpacked where it is not (issue 34).

Real local services stand in for the hosts: a git repository served through a mirror named for a
github.com URL, a file on a local HTTP server, and PyPI as this machine reaches it for the packages.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile

import pytest
import yaml
from servers import FileServer, git_repo
from typer.testing import CliRunner

from reclaim.cli.main import app
from reclaim.materials import MaterialCache, MaterialsError
from reclaim.materials.bundle import collect, pack, read_manifest, unpack
from reclaim.materials.wheels import missing
from reclaim.spec import load_suite

DATA = b"x,y\n1,2\n3,4\n"
URL = "https://github.com/someone/released-code"


@pytest.fixture
def world(tmp_path, monkeypatch):
    """A suite of two tasks: one whose code is a GitHub repository (served by a mirror here) and whose
    data is a pinned file on an HTTP server, one whose file cannot be reached."""
    bare, shas = git_repo(tmp_path / "git", [{"train.py": "print('hi')\n", "README.md": "r\n"}])
    monkeypatch.setenv("RECLAIM_GIT_MIRRORS", f"{URL}={bare}")
    server = FileServer()
    data_url = server.add("/data.csv", DATA)
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "suite.yaml").write_text("name: bundled\nversion: '1'\n")
    for tid, data in (("good", {"url": data_url, "sha256": hashlib.sha256(DATA).hexdigest()}),
                      ("gone", {"url": "http://127.0.0.1:9/nothing.csv", "sha256": "0" * 64})):
        d = suite / tid
        (d / "reference").mkdir(parents=True)
        (d / "reference" / "reproduce.sh").write_text("#!/bin/bash\necho '{\"m\": 1.0}' > results.json\n")
        (d / "paper.md").write_text("# A paper\n\nm = 1.0\n")
        (d / "task.yaml").write_text(yaml.safe_dump({
            "id": tid, "level": "retrain",
            "paper": {"title": "A paper", "venue": "test", "year": 2025, "text": "paper.md"},
            "materials": {"code": {"git": {"url": URL, "commit": shas[0]}}, "data": {"http": data}},
            "target": {"claim": "m is 1.", "metric": "m", "value": 1.0, "direction": "match", "where": "Table 1"},
            "criteria": {"abs_tol": 0.1}, "budget": {"wall_minutes": 1},
            "environment": {"packages": ["numpy==2.4.6"]},
            "reference": {"path": "reference", "entrypoint": "reproduce.sh"}}))
    yield load_suite(suite), server
    server.close()


def test_pack_then_unpack_gives_an_offline_cache_everything_it_needs(tmp_path, world):
    suite, _ = world
    good = [t for t in suite.tasks if t.id == "good"]
    online = MaterialCache(tmp_path / "login-node")
    m = collect("bundled", "1", good, online, packages=False)
    assert not m.lacks and {i.name for i in m.items} == {"code", "data"}
    bundle = pack(m, online, tmp_path / "b.tar.gz")
    assert read_manifest(bundle).items == m.items

    node = MaterialCache(tmp_path / "compute-node")
    unpack(bundle, node)
    offline = MaterialCache(node.root, offline=True)
    spec = good[0].spec
    code = offline.get(spec.materials.code, good[0].dir, "code")
    data = offline.get(spec.materials.data, good[0].dir, "data")
    assert (code.path / "train.py").read_text() == "print('hi')\n"
    assert next(data.path.rglob("*.csv")).read_bytes() == DATA
    unpack(bundle, node)  # again: nothing changes, nothing fails


def test_a_bundle_says_what_it_lacks_and_pack_fails_on_it(tmp_path, world):
    suite, _ = world
    m = collect("bundled", "1", suite.tasks, MaterialCache(tmp_path / "c"), packages=False)
    assert [(lack.task, lack.name) for lack in m.lacks] == [("gone", "data")]
    r = CliRunner().invoke(app, ["materials", "pack", str(suite.tasks[0].dir.parent), "--no-packages",
                                 "--cache", str(tmp_path / "c"), "-o", str(tmp_path / "b.tar.gz")])
    assert r.exit_code == 1
    assert "it lacks 1 item" in r.output and "gone data" in r.output
    shown = CliRunner().invoke(app, ["materials", "show", str(tmp_path / "b.tar.gz")])
    assert shown.exit_code == 0 and "gone data" in shown.output and "good code: git" in shown.output


def _rewrite(bundle, out, change):
    with tarfile.open(bundle, "r:gz") as src, tarfile.open(out, "w:gz") as dst:
        for member in src.getmembers():
            body = src.extractfile(member).read() if member.isfile() else None
            body = change(member, body)
            if body is not None:
                member.size = len(body)
            dst.addfile(member, io.BytesIO(body) if body is not None else None)


def test_a_changed_object_or_key_is_refused_and_nothing_is_installed(tmp_path, world):
    """A bundle is carried by hand across machines: a file altered on the way (or by someone) must not
    become a material a trial binds."""
    suite, _ = world
    good = [t for t in suite.tasks if t.id == "good"]
    online = MaterialCache(tmp_path / "c")
    bundle = pack(collect("bundled", "1", good, online, packages=False), online, tmp_path / "b.tar.gz")

    def alter(member, body):
        return b"print('not what was released')\n" if member.name.endswith("/train.py") else body

    _rewrite(bundle, tmp_path / "altered.tar.gz", alter)
    node = MaterialCache(tmp_path / "node")
    with pytest.raises(MaterialsError, match=r"not to the .* it was packed as"):
        unpack(tmp_path / "altered.tar.gz", node)
    assert not list((node.root / "keys").glob("*.json"))

    def rename(member, body):  # the record now says another source's key names this object
        if member.name.startswith("keys/"):
            rec = json.loads(body)
            rec["key"] = "git:https://github.com/someone/else@" + "0" * 40
            return json.dumps(rec).encode()
        return body

    _rewrite(bundle, tmp_path / "renamed.tar.gz", rename)
    with pytest.raises(MaterialsError, match="names another key"):
        unpack(tmp_path / "renamed.tar.gz", MaterialCache(tmp_path / "node2"))
    with pytest.raises(MaterialsError, match="not a reclaim bundle"):
        (tmp_path / "junk.tar.gz").write_bytes(b"junk")
        unpack(tmp_path / "junk.tar.gz", node)


def test_the_packages_travel_too(tmp_path, world):
    """pack downloads what the environments install (here numpy and pip, from the index this machine
    uses) into the bundle; an empty wheelhouse is what an offline build would stop at, by name."""
    suite, _ = world
    good = [t for t in suite.tasks if t.id == "good"]
    online = MaterialCache(tmp_path / "c")
    assert missing(good[0], online.wheels) == ["numpy==2.4.6"]
    m = collect("bundled", "1", good, online, packages=True)
    if any(lack.name == "packages" for lack in m.lacks):
        pytest.skip(f"no package index reachable here: {m.lacks}")
    names = {w.file.split("-")[0] for w in m.wheels}
    assert {"numpy", "pip"} <= names
    bundle = pack(m, online, tmp_path / "b.tar.gz")
    node = MaterialCache(tmp_path / "node")
    unpack(bundle, node)
    assert missing(good[0], node.wheels) == []
