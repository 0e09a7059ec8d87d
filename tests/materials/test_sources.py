"""Each kind of source against a real local service: git repositories, an HTTP server with
Range and faults, a server speaking the Hub's protocol to huggingface_hub's own client."""

from __future__ import annotations

import hashlib
import io
import os
import tarfile
import zipfile

import pytest
from servers import FileServer, HubRepo, HubServer, git_repo

from reclaim.materials import MaterialCache, MaterialsError
from reclaim.spec import MaterialRef

WHERE = "/suite/t/task.yaml: materials.code"


@pytest.fixture(autouse=True)
def _fast_backoff(monkeypatch):
    monkeypatch.setenv("RECLAIM_FETCH_BACKOFF_S", "0.01")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def tree(root) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# --- git ---------------------------------------------------------------------------------


@pytest.fixture
def repo(tmp_path):
    return git_repo(tmp_path / "git", [
        {"README.md": "v1\n", "src/model.py": "W = 1\n", "docs/x.md": "docs\n"},
        {"README.md": "v2\n", "src/model.py": "W = 2\n"},
    ])


@pytest.mark.parametrize("scheme", ["path", "file"])
def test_git_at_the_pinned_commit_without_dot_git(tmp_path, repo, scheme):
    bare, shas = repo
    url = str(bare) if scheme == "path" else f"file://{bare}"
    ref = MaterialRef(git={"url": url, "commit": shas[0]})
    m = MaterialCache(tmp_path / "cache").get(ref, tmp_path, WHERE)
    assert tree(m.path) == {"README.md": b"v1\n", "docs/x.md": b"docs\n", "src/model.py": b"W = 1\n"}
    assert not (m.path / ".git").exists()
    assert m.files["src/model.py"] == sha(b"W = 1\n")


def test_git_subdir_only(tmp_path, repo):
    bare, shas = repo
    ref = MaterialRef(git={"url": str(bare), "commit": shas[1], "subdir": "src"})
    m = MaterialCache(tmp_path / "cache").get(ref, tmp_path, WHERE)
    assert tree(m.path) == {"model.py": b"W = 2\n"}


def test_one_repository_posed_as_code_without_its_data_and_as_data(tmp_path):
    bare, (sha,) = git_repo(tmp_path / "git", [{
        "train.py": "import csv\n", "lib/model.py": "W = 1\n", "data/cora.content": "1 0 1\n",
        "data/cora.cites": "1 2\n", "ckpt/a.ckpt": "w", "lib/b.ckpt": "w"}])
    cache = MaterialCache(tmp_path / "cache")
    code = cache.get(MaterialRef(git={"url": str(bare), "commit": sha}, exclude=["data/", "**/*.ckpt"]),
                     tmp_path, WHERE)
    data = cache.get(MaterialRef(git={"url": str(bare), "commit": sha, "subdir": "data"}), tmp_path, WHERE)
    assert sorted(code.files) == ["lib/model.py", "train.py"]
    assert sorted(data.files) == ["cora.cites", "cora.content"]
    assert "without **/*.ckpt, data/" in code.source
    again = cache.get(MaterialRef(git={"url": str(bare), "commit": sha}), tmp_path, WHERE)  # whole: its own key
    assert "data/cora.content" in again.files and again.digest != code.digest
    with pytest.raises(MaterialsError, match=r"materials\.code\.exclude: no path .* matches \['nothere'\]"):
        cache.get(MaterialRef(git={"url": str(bare), "commit": sha}, exclude=["nothere"]), tmp_path, WHERE)
    with pytest.raises(ValueError, match="inside the material"):
        MaterialRef(path="code", exclude=["../x"])


def test_git_over_dumb_http_falls_back_to_a_full_fetch(tmp_path, repo):
    bare, shas = repo
    with FileServer(root=bare) as srv:  # dumb HTTP cannot fetch shallow or by sha
        ref = MaterialRef(git={"url": srv.url + "/", "commit": shas[0]})
        m = MaterialCache(tmp_path / "cache").get(ref, tmp_path, WHERE)
    assert (m.path / "README.md").read_text() == "v1\n"


def test_git_missing_commit_is_a_clear_error(tmp_path, repo):
    bare, _ = repo
    ref = MaterialRef(git={"url": str(bare), "commit": "1" * 40})
    with pytest.raises(MaterialsError) as e:
        MaterialCache(tmp_path / "cache").get(ref, tmp_path, WHERE)
    assert f"{WHERE}.git.commit" in str(e.value) and "1" * 40 in str(e.value)


def test_git_missing_subdir_and_unreachable_url(tmp_path, repo):
    bare, shas = repo
    cache = MaterialCache(tmp_path / "cache")
    with pytest.raises(MaterialsError, match=r"materials\.code\.git\.subdir"):
        cache.get(MaterialRef(git={"url": str(bare), "commit": shas[1], "subdir": "nothere"}), tmp_path, WHERE)
    with pytest.raises(MaterialsError, match=r"materials\.code\.git\.url: .*failed"):  # no prompt, no hang
        cache.get(MaterialRef(git={"url": "http://127.0.0.1:9/nothing.git", "commit": shas[0]}), tmp_path, WHERE)


def test_git_from_a_corrupt_remote_says_corrupt_not_wrong_url(tmp_path, repo):
    bare, shas = repo
    for obj in (bare / "objects").rglob("*"):  # every loose object and pack: garbage in place
        if obj.is_file() and obj.parent.name not in ("info",):
            obj.chmod(0o644)
            obj.write_bytes(b"not an object" * 10)
    with pytest.raises(MaterialsError) as e:
        MaterialCache(tmp_path / "cache").get(MaterialRef(git={"url": f"file://{bare}", "commit": shas[0]}),
                                              tmp_path, WHERE)
    assert "corrupt or incomplete" in str(e.value) and "without a password" not in str(e.value)


# --- HTTP --------------------------------------------------------------------------------


def test_http_file_fetched_once_and_verified(tmp_path):
    body = os.urandom(300_000)
    with FileServer() as srv:
        url = srv.add("/w/model.bin", body)
        ref = MaterialRef(http={"url": url, "sha256": sha(body)})
        cache = MaterialCache(tmp_path / "cache")
        got = [cache.get(ref, tmp_path, WHERE) for _ in range(10)]
        assert srv.count("/w/") == 1
    assert [g.fetched for g in got] == [True] + [False] * 9
    assert (got[0].path / "model.bin").read_bytes() == body
    assert got[-1].files == {"model.bin": sha(body)} and got[-1].bytes == len(body)
    assert not any((tmp_path / "cache" / "downloads").glob("*.part"))


def test_http_checksum_mismatch_names_field_and_both_hashes(tmp_path):
    with FileServer() as srv:
        url = srv.add("/d.csv", b"changed upstream\n")
        want = sha(b"the original\n")
        with pytest.raises(MaterialsError) as e:
            MaterialCache(tmp_path / "cache").get(MaterialRef(http={"url": url, "sha256": want}), tmp_path, WHERE)
    msg = str(e.value)
    assert f"{WHERE}.http.sha256" in msg and want in msg and sha(b"changed upstream\n") in msg
    assert not list((tmp_path / "cache" / "objects").iterdir())
    assert not any((tmp_path / "cache" / "downloads").iterdir()) or \
        not list((tmp_path / "cache" / "downloads").glob("*.part"))


def test_http_404_and_refused_connection(tmp_path):
    cache = MaterialCache(tmp_path / "cache")
    with FileServer() as srv, \
            pytest.raises(MaterialsError, match=r"materials\.code\.http\.url: .*/gone.zip answered HTTP 404"):
        cache.get(MaterialRef(http={"url": srv.url + "/gone.zip", "sha256": "0" * 64}), tmp_path, WHERE)
    with pytest.raises(MaterialsError, match=r"materials\.code\.http\.url: http://127.0.0.1:9/x could not be fetched"):
        cache.get(MaterialRef(http={"url": "http://127.0.0.1:9/x", "sha256": "0" * 64}), tmp_path, WHERE)


def test_http_resumes_after_a_dropped_connection(tmp_path):
    body = os.urandom(2_000_000)
    with FileServer() as srv:
        url = srv.add("/big.bin", body, drop_after=700_000)
        m = MaterialCache(tmp_path / "cache").get(MaterialRef(http={"url": url, "sha256": sha(body)}), tmp_path, WHERE)
        hits = [h for h in srv.hits if h.path == "/big.bin"]
    assert (m.path / "big.bin").read_bytes() == body
    assert len(hits) == 2 and hits[1].headers["range"] == "bytes=700000-"
    assert sum(h.sent for h in hits) == len(body)  # nothing sent twice


def test_http_server_that_ignores_range_starts_over(tmp_path):
    body = os.urandom(1_000_000)
    with FileServer() as srv:
        url = srv.add("/f.bin", body, drop_after=400_000, ignore_range=True)
        m = MaterialCache(tmp_path / "cache").get(MaterialRef(http={"url": url, "sha256": sha(body)}), tmp_path, WHERE)
    assert (m.path / "f.bin").read_bytes() == body


def test_http_retries_busy_server(tmp_path):
    with FileServer() as srv:
        url = srv.add("/x.txt", b"x\n", fail_first=2)
        ref = MaterialRef(http={"url": url, "sha256": sha(b"x\n")})
        m = MaterialCache(tmp_path / "cache").get(ref, tmp_path, WHERE)
        assert srv.count("/x.txt") == 3
    assert (m.path / "x.txt").read_text() == "x\n"


def _tar(members: list[tuple[tarfile.TarInfo, bytes | None]], mode: str = "w:gz") -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as tf:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tf.addfile(info, io.BytesIO(data) if data is not None else None)
    return buf.getvalue()


def _file(name: str, data: bytes = b"x") -> tuple[tarfile.TarInfo, bytes]:
    return tarfile.TarInfo(name), data


def _link(name: str, target: str, kind=tarfile.SYMTYPE) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info, None


def _special(name: str, kind: bytes) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type, info.devmajor, info.devminor = kind, 1, 3
    return info, None


@pytest.mark.parametrize("suffix,mode", [(".tar.gz", "w:gz"), (".tgz", "w:gz"), (".tar.xz", "w:xz"),
                                         (".tar.bz2", "w:bz2"), (".tar", "w")])
def test_tar_archives_unpacked(tmp_path, suffix, mode):
    body = _tar([_file("data/a.csv", b"1,2\n"), _file("data/b.csv", b"3,4\n")], mode)
    with FileServer() as srv:
        url = srv.add(f"/ds{suffix}", body)
        m = MaterialCache(tmp_path / "cache").get(MaterialRef(http={"url": url, "sha256": sha(body)}), tmp_path, WHERE)
    assert tree(m.path) == {"data/a.csv": b"1,2\n", "data/b.csv": b"3,4\n"}


def test_zip_unpacked_and_unpack_false_keeps_the_archive(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("d/x.txt", "x\n")
    body = buf.getvalue()
    cache = MaterialCache(tmp_path / "cache")
    with FileServer() as srv:
        url = srv.add("/d.zip", body)
        m = cache.get(MaterialRef(http={"url": url, "sha256": sha(body)}), tmp_path, WHERE)
        kept = cache.get(MaterialRef(http={"url": url, "sha256": sha(body), "unpack": False}), tmp_path, WHERE)
        named = cache.get(MaterialRef(http={"url": url + "?dl=1", "sha256": sha(body), "name": "w.zip",
                                            "unpack": False}), tmp_path, WHERE)
    assert tree(m.path) == {"d/x.txt": b"x\n"}
    assert tree(kept.path) == {"d.zip": body} and tree(named.path) == {"w.zip": body}


@pytest.mark.parametrize("member", [
    _file("../escaped.txt"),
    _link("evil", "/etc/passwd"),
    _link("evil", "../../outside"),
    _link("hard", "/etc/passwd", tarfile.LNKTYPE),
    _special("dev-null", tarfile.CHRTYPE),
    _special("fifo", tarfile.FIFOTYPE),
], ids=["dotdot", "abs-symlink", "rel-symlink-out", "hardlink-out", "device", "fifo"])
def test_malicious_tar_refused(tmp_path, member):
    body = _tar([_file("ok.txt"), member])
    with FileServer() as srv:
        url = srv.add("/evil.tar.gz", body)
        with pytest.raises(MaterialsError, match=r"materials\.code\.http\.unpack: the archive has an unsafe member"):
            MaterialCache(tmp_path / "cache").get(MaterialRef(http={"url": url, "sha256": sha(body)}), tmp_path, WHERE)
    assert not (tmp_path / "escaped.txt").exists() and not (tmp_path / "cache" / "escaped.txt").exists()
    assert not list((tmp_path / "cache" / "objects").iterdir())
    assert not list((tmp_path / "cache" / "tmp").iterdir())


def test_absolute_tar_name_is_neutralised_inside(tmp_path):
    body = _tar([_file("/abs/x.txt", b"x")])
    with FileServer() as srv:
        url = srv.add("/a.tar", body)
        m = MaterialCache(tmp_path / "cache").get(MaterialRef(http={"url": url, "sha256": sha(body)}), tmp_path, WHERE)
    assert tree(m.path) == {"abs/x.txt": b"x"} and not os.path.exists("/abs/x.txt")


@pytest.mark.parametrize("name", ["../x.txt", "/etc/x.txt", "a/../../x.txt", "C:/x.txt"])
def test_malicious_zip_refused(tmp_path, name):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(name, "x")
    body = buf.getvalue()
    with FileServer() as srv:
        url = srv.add("/evil.zip", body)
        with pytest.raises(MaterialsError, match="unsafe member name"):
            MaterialCache(tmp_path / "cache").get(MaterialRef(http={"url": url, "sha256": sha(body)}), tmp_path, WHERE)
    assert not (tmp_path / "x.txt").exists()


# --- Hugging Face Hub --------------------------------------------------------------------

C1, C2 = "a" * 40, "b" * 40


@pytest.fixture
def hub(monkeypatch):
    with HubServer() as srv:
        monkeypatch.setenv("HF_ENDPOINT", srv.url)
        monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
        monkeypatch.delenv("HF_TOKEN", raising=False)
        yield srv


def test_hub_model_at_revision_with_patterns(tmp_path, hub):
    weights = os.urandom(200_000)
    hub.add(HubRepo("model", "org/net", C1, {"config.json": b"{}", "model.safetensors": weights,
                                              "extra/big.bin": b"nope"}, lfs={"model.safetensors"}))
    ref = MaterialRef(hub={"repo": "org/net", "revision": C1, "files": ["*.json", "*.safetensors"]})
    cache = MaterialCache(tmp_path / "cache")
    got = [cache.get(ref, tmp_path, WHERE) for _ in range(10)]
    assert tree(got[0].path) == {"config.json": b"{}", "model.safetensors": weights}
    assert not (got[0].path / ".cache").exists()
    assert hub.count("/org/net/resolve/", "GET") == 2 and hub.count("/extra") == 0
    assert sum(hub.count(p) for p in ("/api/", "/org/")) == len(hub.hits)  # nothing else asked
    n = len(hub.hits)
    assert [g.fetched for g in got] == [True] + [False] * 9 and len(hub.hits) == n


def test_hub_dataset(tmp_path, hub):
    hub.add(HubRepo("dataset", "org/ds", C1, {"train/part-0.csv": b"a,b\n1,2\n"}))
    ref = MaterialRef(hub={"repo": "org/ds", "revision": C1, "kind": "dataset"})
    m = MaterialCache(tmp_path / "cache").get(ref, tmp_path, WHERE)
    assert tree(m.path) == {"train/part-0.csv": b"a,b\n1,2\n"}
    assert hub.count("/datasets/org/ds/resolve/") >= 1


def test_hub_commit_mismatch_and_missing_revision_are_errors(tmp_path, hub):
    hub.add(HubRepo("model", "org/liar", C1, {"w.bin": b"w"}, served_commit=C2))
    hub.add(HubRepo("model", "org/net", C1, {"w.bin": b"w"}))
    cache = MaterialCache(tmp_path / "cache")
    with pytest.raises(MaterialsError) as e:
        cache.get(MaterialRef(hub={"repo": "org/liar", "revision": C1}), tmp_path, WHERE)
    assert f"{WHERE}.hub.revision" in str(e.value) and C2 in str(e.value)
    with pytest.raises(MaterialsError, match=r"materials\.code\.hub\.revision: org/net has no revision b{40}"):
        cache.get(MaterialRef(hub={"repo": "org/net", "revision": C2}), tmp_path, WHERE)
    with pytest.raises(MaterialsError, match=r"materials\.code\.hub\.repo: no model repository 'org/none'"):
        cache.get(MaterialRef(hub={"repo": "org/none", "revision": C1}), tmp_path, WHERE)
    assert not list((tmp_path / "cache" / "objects").iterdir())


def test_hub_busy_server_is_retried(tmp_path, hub):
    hub.add(HubRepo("model", "org/net", C1, {"w.bin": b"w"}))
    hub.fail_first = 2
    m = MaterialCache(tmp_path / "cache").get(MaterialRef(hub={"repo": "org/net", "revision": C1}), tmp_path, WHERE)
    assert tree(m.path) == {"w.bin": b"w"}


def test_zip_symlink_member_refused(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        info = zipfile.ZipInfo("passwd")
        info.external_attr = (0o120777 << 16)  # a symbolic link, as Info-ZIP stores one
        zf.writestr(info, "/etc/passwd")
    body = buf.getvalue()
    with FileServer() as srv:
        url = srv.add("/link.zip", body)
        with pytest.raises(MaterialsError, match="'passwd' is a link or special file, refused"):
            MaterialCache(tmp_path / "cache").get(MaterialRef(http={"url": url, "sha256": sha(body)}), tmp_path, WHERE)


def test_a_git_mirror_stands_in_for_an_unreachable_host_and_serves_only_the_pinned_commit(tmp_path, monkeypatch):
    """RECLAIM_GIT_MIRRORS: a machine without the network fetches a repository from a local mirror;
    the commit still pins the tree, so a mirror that lacks it (or holds other history) fails."""
    from reclaim.materials.git import MIRRORS_VAR

    bare, (sha,) = git_repo(tmp_path / "git", [{"main.py": "print(1)\n"}])
    ref = MaterialRef(git={"url": "https://github.com/example/unreachable.git", "commit": sha})
    monkeypatch.setenv(MIRRORS_VAR, f"https://github.com/example/unreachable=file://{bare}")
    got = MaterialCache(tmp_path / "cache").get(ref, tmp_path, WHERE)
    assert (got.path / "main.py").read_text() == "print(1)\n"
    other, _ = git_repo(tmp_path / "other", [{"main.py": "print(2)\n"}])
    monkeypatch.setenv(MIRRORS_VAR, f"https://github.com/example/unreachable={other}")
    with pytest.raises(MaterialsError, match="not in"):
        MaterialCache(tmp_path / "cache2").get(ref, tmp_path, WHERE)


def test_a_hub_that_cannot_be_reached_is_a_clear_problem_not_a_traceback(tmp_path, monkeypatch):
    """The Hub's client raises its HTTP library's own errors (httpx's ConnectError is no OSError): a
    host that does not resolve is said at once, with the fix, for a fetch and for a lock alike."""
    from reclaim.materials.hub import HubFetcher

    monkeypatch.setenv("HF_ENDPOINT", "http://hub.invalid")
    ref = MaterialRef(hub={"repo": "org/net", "revision": C1})
    with pytest.raises(MaterialsError, match="cannot be reached from here"):
        MaterialCache(tmp_path / "cache").get(ref, tmp_path, WHERE)
    with pytest.raises(MaterialsError, match="HF_ENDPOINT"):
        HubFetcher(MaterialRef(hub={"repo": "org/net"}).hub, WHERE).head()
