"""The cache: content addressed, read-only, fetched once, safe to share between processes."""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest
from servers import FileServer, git_repo

from reclaim.materials import (
    CACHE_VAR,
    KeyRecord,
    Manifest,
    MaterialCache,
    MaterialsError,
)
from reclaim.spec import MaterialRef

WHERE = "/suite/t/task.yaml: materials.data"
SRC = Path(__file__).resolve().parents[2] / "src"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def task(tmp_path) -> Path:
    d = tmp_path / "task"
    (d / "data" / "sub").mkdir(parents=True)
    (d / "data" / "values.csv").write_text("1,2\n")
    (d / "data" / "sub" / "run.sh").write_text("echo hi\n")
    (d / "data" / "sub" / "run.sh").chmod(0o755)
    (d / "data" / "__pycache__").mkdir()
    (d / "data" / "__pycache__" / "x.pyc").write_bytes(b"junk")
    os.symlink("values.csv", d / "data" / "alias.csv")
    return d


def test_local_folder_imported_read_only_with_a_manifest(tmp_path, task):
    cache = MaterialCache(tmp_path / "cache")
    m = cache.get(MaterialRef(path="data"), task, WHERE)
    assert m.fetched and m.kind == "path" and m.bytes == len("1,2\n") + len("echo hi\n")
    assert m.files == {"values.csv": sha(b"1,2\n"), "sub/run.sh": sha(b"echo hi\n")}
    assert m.path == tmp_path / "cache" / "objects" / m.digest
    assert not (m.path / "__pycache__").exists()
    modes = {p.relative_to(m.path).as_posix(): stat.S_IMODE(p.lstat().st_mode)
             for p in m.path.rglob("*") if not p.is_symlink()}
    assert modes == {"values.csv": 0o644, "sub": 0o755, "sub/run.sh": 0o755}  # only the harness may write
    assert stat.S_IMODE(m.path.stat().st_mode) == 0o755
    assert os.readlink(m.path / "alias.csv") == "values.csv"
    manifest = Manifest.model_validate_json((m.path.parent / f"{m.digest}.json").read_text())
    assert manifest.digest() == m.digest and [link.target for link in manifest.links] == ["values.csv"]
    assert manifest.dirs == ["sub"]
    (record,) = (tmp_path / "cache" / "keys").iterdir()
    rec = KeyRecord.model_validate_json(record.read_text())
    assert rec.digest == m.digest and rec.source == str(task / "data") and rec.fetched_at is not None
    if os.geteuid() != 0:  # root writes through any mode
        with pytest.raises(PermissionError):
            (m.path / "values.csv").write_text("changed")


def test_ten_gets_import_once_and_hits_cost_no_bytes(tmp_path, task):
    cache = MaterialCache(tmp_path / "cache")
    first = cache.get(MaterialRef(path="data"), task, WHERE)
    times = []
    for _ in range(9):
        t0 = time.perf_counter()
        m = cache.get(MaterialRef(path="data"), task, WHERE)
        times.append(time.perf_counter() - t0)
        assert not m.fetched and m.transferred == 0 and m.digest == first.digest and m.files == first.files
    assert max(times) < 0.05
    assert len(list((tmp_path / "cache" / "objects").glob("*.json"))) == 1


def test_a_changed_folder_is_imported_again(tmp_path, task):
    cache = MaterialCache(tmp_path / "cache")
    a = cache.get(MaterialRef(path="data"), task, WHERE)
    (task / "data" / "values.csv").write_text("1,3\n")
    b = cache.get(MaterialRef(path="data"), task, WHERE)
    assert b.fetched and b.digest != a.digest and b.files["values.csv"] == sha(b"1,3\n")
    (task / "data" / "__pycache__" / "y.pyc").write_bytes(b"more junk")  # skipped: no new import
    assert not cache.get(MaterialRef(path="data"), task, WHERE).fetched


def test_a_single_file_material(tmp_path, task):
    m = MaterialCache(tmp_path / "cache").get(MaterialRef(path="data/values.csv"), task, WHERE)
    assert m.files == {"values.csv": sha(b"1,2\n")}


def test_links_out_of_the_material_and_paths_out_of_the_task_are_refused(tmp_path, task):
    cache = MaterialCache(tmp_path / "cache")
    os.symlink("/etc/passwd", task / "data" / "passwd")
    with pytest.raises(MaterialsError, match=r"materials\.data: 'passwd' is a link to '/etc/passwd', outside"):
        cache.get(MaterialRef(path="data"), task, WHERE)
    os.unlink(task / "data" / "passwd")
    os.symlink("../../secret", task / "data" / "sub" / "up")
    with pytest.raises(MaterialsError, match="outside the material"):
        cache.get(MaterialRef(path="data"), task, WHERE)
    with pytest.raises(MaterialsError, match=r"materials\.data\.path: '\.\./x' leaves the task folder"):
        cache.get(MaterialRef(path="../x"), task, WHERE)
    with pytest.raises(MaterialsError, match=r"materials\.data\.path: 'nope' not found"):
        cache.get(MaterialRef(path="nope"), task, WHERE)
    assert not list((tmp_path / "cache" / "objects").iterdir())
    assert not list((tmp_path / "cache" / "tmp").iterdir())


def test_a_fifo_in_a_local_folder_is_refused(tmp_path, task):
    os.mkfifo(task / "data" / "pipe")
    with pytest.raises(MaterialsError, match="device, fifo or socket"):
        MaterialCache(tmp_path / "cache").get(MaterialRef(path="data"), task, WHERE)


def test_identical_content_from_three_sources_shares_one_object(tmp_path):
    files = {"a.txt": "alpha\n", "b/c.txt": "gamma\n"}
    bare, shas = git_repo(tmp_path / "git", [files])
    task = tmp_path / "task"
    for rel, text in files.items():
        (task / "data" / rel).parent.mkdir(parents=True, exist_ok=True)
        (task / "data" / rel).write_text(text)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for rel in files:
            tf.add(task / "data" / rel, arcname=rel)
    body = buf.getvalue()
    cache = MaterialCache(tmp_path / "cache")
    with FileServer() as srv:
        url = srv.add("/d.tgz", body)
        got = [cache.get(MaterialRef(path="data"), task, WHERE),
               cache.get(MaterialRef(git={"url": str(bare), "commit": shas[0]}), task, WHERE),
               cache.get(MaterialRef(http={"url": url, "sha256": sha(body)}), task, WHERE)]
    assert all(g.fetched for g in got) and len({g.digest for g in got}) == 1
    assert len(list((tmp_path / "cache" / "objects").iterdir())) == 2  # one tree, one manifest
    assert len(list((tmp_path / "cache" / "keys").iterdir())) == 3


def test_offline_miss_says_how_to_fetch(tmp_path, task):
    ref = MaterialRef(http={"url": "http://127.0.0.1:9/d.csv", "sha256": "0" * 64})
    with pytest.raises(MaterialsError) as e:
        MaterialCache(tmp_path / "cache", offline=True).get(ref, task, WHERE)
    assert WHERE in str(e.value) and "reclaim materials fetch SUITE" in str(e.value)
    online = MaterialCache(tmp_path / "cache").get(MaterialRef(path="data"), task, WHERE)
    offline = MaterialCache(tmp_path / "cache", offline=True).get(MaterialRef(path="data"), task, WHERE)
    assert offline.digest == online.digest and not offline.fetched


def test_root_from_the_environment(tmp_path, task, monkeypatch):
    monkeypatch.setenv(CACHE_VAR, str(tmp_path / "shared"))
    m = MaterialCache().get(MaterialRef(path="data"), task, WHERE)
    assert m.path.is_relative_to(tmp_path / "shared")


def test_an_install_that_died_is_redone(tmp_path, task):
    cache = MaterialCache(tmp_path / "cache")
    m = cache.get(MaterialRef(path="data"), task, WHERE)
    (m.path.parent / f"{m.digest}.json").unlink()  # as if the process died before the manifest
    for k in (tmp_path / "cache" / "keys").iterdir():
        k.unlink()
    again = cache.get(MaterialRef(path="data"), task, WHERE)
    assert again.fetched and again.digest == m.digest and (again.path / "values.csv").is_file()


CHILD = """
import json, sys
sys.path.insert(0, {src!r})
from pathlib import Path
from reclaim.materials import MaterialCache
from reclaim.spec import MaterialRef
m = MaterialCache(Path({root!r})).get(MaterialRef(http={{"url": {url!r}, "sha256": {sha!r}}}), Path("."), \
"t: materials.data")
print(json.dumps({{"digest": m.digest, "fetched": m.fetched}}))
"""


def test_six_processes_fetch_once(tmp_path):
    body = os.urandom(500_000)
    with FileServer() as srv:
        url = srv.add("/slow.bin", body, delay_s=0.5)
        code = CHILD.format(src=str(SRC), root=str(tmp_path / "cache"), url=url, sha=sha(body))
        procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
                 for _ in range(6)]
        outs = [json.loads(p.communicate(timeout=60)[0]) for p in procs]
        assert srv.count("/slow.bin") == 1
    assert len({o["digest"] for o in outs}) == 1
    assert sorted(o["fetched"] for o in outs) == [False] * 5 + [True]


def test_a_fetch_killed_half_way_leaves_nothing_a_later_one_uses(tmp_path):
    body = os.urandom(500_000)
    with FileServer() as srv:
        url = srv.add("/slow.bin", body, delay_s=2.0)
        code = CHILD.format(src=str(SRC), root=str(tmp_path / "cache"), url=url, sha=sha(body))
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        deadline = time.time() + 30
        while time.time() < deadline and srv.count("/slow.bin") == 0:
            time.sleep(0.01)
        proc.kill()  # holding the key's lock, mid-download
        proc.wait()
        m = MaterialCache(tmp_path / "cache").get(MaterialRef(http={"url": url, "sha256": sha(body)}), Path("."),
                                                  WHERE)  # the kernel let go of the lock: no wait, no stale lock
        assert m.fetched and srv.count("/slow.bin") == 2
    assert (m.path / "slow.bin").read_bytes() == body
