"""Real local services for the materials tests: an HTTP file server with Range, faults and a
request log; a server speaking the Hugging Face Hub's HTTP protocol, as huggingface_hub's
client calls it; and real git repositories."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse


@dataclass
class Route:
    body: bytes = b""
    status: int = 200
    ignore_range: bool = False  # answer 200 with the whole file even when asked for a range
    drop_after: int | None = None  # send this many bytes of the first response, then hang up
    fail_first: int = 0  # answer 503 to this many requests first
    delay_s: float = 0.0  # wait this long before answering


@dataclass
class Hit:
    method: str
    path: str
    headers: dict[str, str]
    sent: int = 0


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class LocalServer:
    """Base: a threaded HTTP server on 127.0.0.1 that logs every request."""

    def __init__(self):
        self.hits: list[Hit] = []
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                owner._serve(self, "GET")

            def do_HEAD(self):
                owner._serve(self, "HEAD")

        self.httpd = _Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def log(self, h: BaseHTTPRequestHandler, method: str) -> Hit:
        hit = Hit(method, h.path, {k.lower(): v for k, v in h.headers.items()})
        with self.lock:
            self.hits.append(hit)
        return hit

    def count(self, prefix: str = "/", method: str | None = None) -> int:
        return sum(1 for x in self.hits if x.path.startswith(prefix) and method in (None, x.method))

    def _serve(self, h, method):
        raise NotImplementedError


def send_body(h: BaseHTTPRequestHandler, hit: Hit, method: str, body: bytes, headers: dict[str, str],
              status: int = 200, honour_range: bool = True, drop_after: int | None = None) -> None:
    """Answer with ``body``, as a 206 slice when a Range is asked and honoured."""
    start = 0
    rng = h.headers.get("Range")
    if rng and honour_range:
        m = re.match(r"bytes=(\d+)-(\d*)$", rng)
        start = int(m.group(1))
        if start >= len(body):
            h.send_response(416)
            h.send_header("Content-Range", f"bytes */{len(body)}")
            h.send_header("Content-Length", "0")
            h.end_headers()
            return
        status = 206
        headers = {**headers, "Content-Range": f"bytes {start}-{len(body) - 1}/{len(body)}"}
    part = body[start:]
    h.send_response(status)
    for k, v in headers.items():
        h.send_header(k, v)
    h.send_header("Accept-Ranges", "bytes")
    h.send_header("Content-Length", str(len(part)))
    h.end_headers()
    if method == "HEAD":
        return
    if drop_after is not None:
        h.wfile.write(part[:drop_after])
        h.wfile.flush()
        hit.sent += drop_after
        h.close_connection = True
        h.connection.shutdown(2)
        return
    h.wfile.write(part)
    hit.sent += len(part)


class FileServer(LocalServer):
    """Files by path (``routes``), and a static folder (``root``: e.g. a bare git repo for git's
    dumb HTTP protocol). Unknown paths are 404."""

    def __init__(self, root: Path | None = None):
        self.routes: dict[str, Route] = {}
        self.root = root
        super().__init__()

    def add(self, path: str, body: bytes = b"", **kw) -> str:
        self.routes[path] = Route(body=body, **kw)
        return self.url + path

    def sent(self, path: str) -> int:
        return sum(x.sent for x in self.hits if x.path == path)

    def _serve(self, h, method):
        hit = self.log(h, method)
        path = urlparse(h.path).path
        route = self.routes.get(path)
        if route is None and self.root is not None:
            f = (self.root / unquote(path).lstrip("/")).resolve()
            if f.is_file() and f.is_relative_to(self.root.resolve()):
                route = Route(body=f.read_bytes())
        if route is None or route.status == 404:
            return send_body(h, hit, method, b"not found", {}, status=404, honour_range=False)
        time.sleep(route.delay_s)
        if route.fail_first > 0:
            route.fail_first -= 1
            return send_body(h, hit, method, b"busy", {}, status=503, honour_range=False)
        drop, route.drop_after = route.drop_after, None
        send_body(h, hit, method, route.body, {"Content-Type": "application/octet-stream"}, route.status,
                  honour_range=not route.ignore_range, drop_after=drop)


def git_blob_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class HubRepo:
    kind: str  # "model" or "dataset"
    repo: str
    commit: str
    files: dict[str, bytes]
    lfs: set[str] = field(default_factory=set)  # files served as LFS: ETag is their sha256
    served_commit: str | None = None  # a lying server: X-Repo-Commit names another commit


class HubServer(LocalServer):
    """The endpoints ``snapshot_download`` and ``HfApi.repo_info`` call, with the Hub's headers:
    ``/api/{models,datasets}/{repo}/revision/{rev}`` (sha, siblings), ``/api/.../tree/{rev}``
    (the recursive listing), and ``[/datasets]/{repo}/resolve/{rev}/{file}`` (HEAD and GET with
    X-Repo-Commit, ETag, X-Linked-Etag/X-Linked-Size for LFS, Content-Length, Range)."""

    API = re.compile(r"^/api/(models|datasets)/(.+?)/(revision|tree)/([^/]+)(/.*)?$")
    RESOLVE = re.compile(r"^/(datasets/)?(.+?)/resolve/([^/]+)/(.+)$")

    def __init__(self):
        self.repos: dict[tuple[str, str], HubRepo] = {}
        self.fail_first = 0
        super().__init__()

    def add(self, repo: HubRepo) -> HubRepo:
        self.repos[(repo.kind, repo.repo)] = repo
        return repo

    def _error(self, h, hit, method, status, code, message):
        send_body(h, hit, method, json.dumps({"error": message}).encode(),
                  {"X-Error-Code": code, "X-Error-Message": message, "Content-Type": "application/json"},
                  status=status, honour_range=False)

    def _find(self, h, hit, method, kind, repo_id, rev) -> HubRepo | None:
        repo = self.repos.get((kind, repo_id))
        if repo is None:
            self._error(h, hit, method, 404, "RepoNotFound", f"Repository not found: {repo_id}")
            return None
        if rev not in (repo.commit, "main"):  # the default branch: its head is the commit
            self._error(h, hit, method, 404, "RevisionNotFound", f"Invalid rev id: {rev}")
            return None
        return repo

    def _serve(self, h, method):
        hit = self.log(h, method)
        path = unquote(urlparse(h.path).path)
        if self.fail_first > 0:
            self.fail_first -= 1
            return send_body(h, hit, method, b"busy", {}, status=503, honour_range=False)
        if m := self.API.match(path):
            kind = "model" if m.group(1) == "models" else "dataset"
            repo = self._find(h, hit, method, kind, m.group(2), m.group(4))
            if repo is None:
                return
            if m.group(3) == "revision":
                doc = {"id": repo.repo, "sha": repo.served_commit or repo.commit, "private": False,
                       "siblings": [{"rfilename": p} for p in sorted(repo.files)]}
            else:
                doc = [self._entry(repo, p) for p in sorted(repo.files)]
            return send_body(h, hit, method, json.dumps(doc).encode(), {"Content-Type": "application/json"},
                             honour_range=False)
        if m := self.RESOLVE.match(path):
            kind = "dataset" if m.group(1) else "model"
            repo = self._find(h, hit, method, kind, m.group(2), m.group(3))
            if repo is None:
                return
            name = m.group(4)
            commit = repo.served_commit or repo.commit
            if name not in repo.files:
                return self._error(h, hit, method, 404, "EntryNotFound", f"{name} does not exist")
            body = repo.files[name]
            headers = {"X-Repo-Commit": commit, "Content-Type": "application/octet-stream"}
            if name in repo.lfs:
                sha = hashlib.sha256(body).hexdigest()
                headers |= {"ETag": f'"{sha}"', "X-Linked-Etag": f'"{sha}"', "X-Linked-Size": str(len(body))}
            else:
                headers["ETag"] = f'"{git_blob_sha1(body)}"'
            return send_body(h, hit, method, body, headers)
        send_body(h, hit, method, b"not found", {}, status=404, honour_range=False)

    @staticmethod
    def _entry(repo: HubRepo, p: str) -> dict:
        body = repo.files[p]
        e = {"type": "file", "path": p, "size": len(body), "oid": git_blob_sha1(body)}
        if p in repo.lfs:
            e["lfs"] = {"oid": hashlib.sha256(body).hexdigest(), "size": len(body), "pointerSize": 134}
        return e


def git(cwd: Path, *args: str) -> str:
    env = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": str(cwd), "PATH": "/usr/bin:/bin",
           "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@x", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@x"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


def git_repo(root: Path, commits: list[dict[str, str]]) -> tuple[Path, list[str]]:
    """A bare repository with one commit per dict (path -> text); return it and the shas."""
    work = root / "work"
    work.mkdir(parents=True)
    git(work, "init", "-q", "-b", "main")
    shas = []
    for i, files in enumerate(commits):
        for rel, text in files.items():
            (work / rel).parent.mkdir(parents=True, exist_ok=True)
            (work / rel).write_text(text)
        git(work, "add", "-A")
        git(work, "commit", "-q", "-m", f"commit {i}")
        shas.append(git(work, "rev-parse", "HEAD"))
    bare = root / "repo.git"
    git(root, "clone", "-q", "--bare", str(work), str(bare))
    git(bare, "update-server-info")  # for git's dumb HTTP protocol
    return bare, shas
