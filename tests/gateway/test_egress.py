"""The egress proxy with real clients (curl, git over smart HTTP, pip, urllib, httpx) run as
subprocesses with only client_env's variables, through forward.py's loopback -> Unix socket
relay, against real local upstreams; and raw sockets for what no polite client sends. The rules
themselves are in test_policy.py."""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cryptography import x509
from egress_servers import HOST, Upstream, build_wheel, make_repos

from reclaim.gateway.egress import EgressLimits, EgressProxy, EgressRecord
from reclaim.gateway.policy import EgressPolicy, Forbidden, package_hosts, policy_for
from reclaim.gateway.tls import client_env

FORWARD = Path(__file__).parents[2] / "src/reclaim/gateway/forward.py"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    folder = tmp_path_factory.mktemp("egress")
    plain, tls = Upstream(folder / "plain"), Upstream(folder / "tls", tls=True)
    make_repos(tls.git_root, {"allowed": "released code\n", "secret": "withheld code\n"})
    wheel = build_wheel(folder)
    plain.files[wheel.name] = wheel
    proxy = EgressProxy(upstream_verify=str(tls.cert_file),
                        limits=EgressLimits(header_timeout_s=20, idle_timeout_s=30, max_connections=32)).start()
    yield {"plain": plain, "tls": tls, "proxy": proxy, "folder": folder}
    proxy.stop()
    plain.close()
    tls.close()


@pytest.fixture(autouse=True)
def no_proxy_errors(caplog):
    """A connection the proxy could not handle is logged: none may be, whatever the client sent."""
    yield
    errors = [r for r in caplog.records if r.name.startswith("reclaim.gateway") and r.levelname == "ERROR"]
    assert not errors, [r.getMessage() + str(r.exc_info) for r in errors]


class Trial:
    def __init__(self, proxy: EgressProxy, policy: EgressPolicy, home: Path):
        self.proxy, self.records, self.home = proxy, [], home
        self.id = f"trial-{random.randrange(1 << 30)}"
        self.folder = proxy.open_trial(self.id, policy, self.records.append)
        self.sock = str(self.folder / "proxy.sock")

    def run(self, *cmd: str, env: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        full = {"PATH": os.environ["PATH"], "HOME": str(self.home), "LANG": "C.UTF-8", "GIT_CONFIG_NOSYSTEM": "1",
                "PIP_CONFIG_FILE": "/dev/null", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_CACHE_DIR": "1",
                **client_env(str(self.folder / "ca.pem"), f"http://127.0.0.1:{port}"), **(env or {})}
        return subprocess.run([sys.executable, str(FORWARD), str(port), self.sock, "--", *cmd], check=False, env=full,
                              capture_output=True, text=True, timeout=timeout)

    def raw(self, data: bytes, *, tls_to: tuple[str, str] | None = None, then: bytes = b"",
            wait: float = 5, eof: bool = False) -> bytes:
        """Bytes straight onto the socket; with tls_to=(CONNECT target, SNI), `then` inside the tunnel."""
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(wait)
        s.connect(self.sock)
        try:
            s.sendall(data)
        except BrokenPipeError:  # a proxy that refuses (503) may answer and close before the request is sent
            pass
        if eof:
            s.shutdown(socket.SHUT_WR)
        out = b""
        if tls_to:
            while b"\r\n\r\n" not in out:
                out += s.recv(4096)
            ctx = ssl.create_default_context(cafile=str(self.folder / "ca.pem"))
            ctx.check_hostname = False
            s = ctx.wrap_socket(s, server_hostname=tls_to[1])
            s.sendall(then)
            out = b""
        try:
            while chunk := s.recv(65536):
                out += chunk
        except (TimeoutError, ConnectionError, ssl.SSLError):
            pass
        s.close()
        return out

    def close(self) -> list[EgressRecord]:
        self.proxy.close_trial(self.id)
        return self.records


@pytest.fixture
def trial(world, tmp_path):
    made = []

    def make(policy: EgressPolicy) -> Trial:
        made.append(Trial(world["proxy"], policy, tmp_path))
        return made[-1]

    yield make
    for t in made:
        t.close()


def hosts(world, *names) -> list[str]:
    return [f"{HOST}:{world[n].port}" for n in names]


def test_ca_bundle_and_leaves(world, tmp_path):
    ca = world["proxy"].ca
    bundle = ca.ca_bundle(tmp_path / "ca.pem").read_bytes()
    assert bundle.endswith(ca.cert_pem) and b"PRIVATE KEY" not in bundle
    assert bundle.count(b"BEGIN CERTIFICATE") > 10  # the host's own roots come along
    leaf = ca.leaf("pypi.org")
    san = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert san.get_values_for_type(x509.DNSName) == ["pypi.org"]
    assert leaf.not_valid_after_utc - dt.datetime.now(dt.UTC) < dt.timedelta(days=2)
    assert ca.server_context("pypi.org") is ca.server_context("pypi.org")  # cached
    env = client_env("/egress/ca.pem", "http://127.0.0.1:3128")
    assert env["HTTPS_PROXY"] == env["http_proxy"] == "http://127.0.0.1:3128" and "127.0.0.1" in env["NO_PROXY"]
    assert {env[k] for k in ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "PIP_CERT", "GIT_SSL_CAINFO",
                             "NODE_EXTRA_CA_CERTS", "CURL_CA_BUNDLE")} == {"/egress/ca.pem"}


def test_trial_folder(world, trial):
    t = trial(EgressPolicy())
    assert (t.folder.stat().st_mode & 0o777) == 0o755 and (Path(t.sock).stat().st_mode & 0o777) == 0o666
    assert (t.folder / "ca.pem").is_file() and len(t.sock) < 100
    t.close()
    assert not t.folder.exists()


# real clients ------------------------------------------------------------------------------------

def test_curl_http_and_intercepted_https_recorded(world, trial):
    plain, tls = world["plain"], world["tls"]
    t = trial(EgressPolicy(name="allowlist", allow_hosts=hosts(world, "plain", "tls")))
    r = t.run("curl", "-sSf", f"{plain.origin}/echo/a?b=1")
    assert r.returncode == 0 and json.loads(r.stdout)["path"] == "/echo/a?b=1"
    r = t.run("curl", "-sSf", f"{tls.origin}/echo/secure")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["headers"]["Host"] == f"{HOST}:{tls.port}"
    r = t.run("sh", "-c", f"head -c 300000 /dev/zero | curl -sSf -T - {tls.origin}/upload")  # chunked
    assert json.loads(r.stdout)["size"] == 300000
    r = t.run("curl", "-sSf", "-o", "/dev/null", "-w", "%{size_download}", f"{plain.origin}/big?n=1000000")
    assert r.stdout == "1000000"
    recs = t.close()
    by = {(x.method, x.url.split("?")[0].rsplit("/", 1)[-1]): x for x in recs}
    assert by[("PUT", "upload")].bytes_up == 300000 and by[("PUT", "upload")].status == 200
    assert by[("GET", "big")].bytes_down == 1000000
    assert by[("GET", "secure")].url == f"{tls.origin}/echo/secure" and by[("GET", "secure")].allowed
    assert by[("CONNECT", f"{HOST}:{tls.port}")].status == 200
    failed = [(x.method, x.url, x.status, x.error) for x in recs if x.error or not x.allowed]
    assert not failed, failed


def test_python_clients_with_only_client_env(world, trial):
    tls, plain = world["tls"], world["plain"]
    t = trial(EgressPolicy(allow_hosts=hosts(world, "plain", "tls")))
    code = ("import sys, urllib.request, httpx; "
            "print(urllib.request.urlopen(sys.argv[1]).read().decode()); "
            "print(httpx.get(sys.argv[2]).json()['path']); "
            "exec('try: httpx.get(sys.argv[3])\\nexcept httpx.ProxyError as e: print(\\'refused\\', e)')")
    r = t.run(sys.executable, "-c", code, f"{tls.origin}/echo/urllib", f"{plain.origin}/echo/httpx",
              "https://example.org/")
    assert r.returncode == 0, r.stderr
    assert "/echo/urllib" in r.stdout and "/echo/httpx" in r.stdout and "refused 403" in r.stdout
    recs = t.close()
    assert {x.url for x in recs if x.allowed} >= {f"{tls.origin}/echo/urllib", f"{plain.origin}/echo/httpx"}
    refused = [x for x in recs if x.method == "CONNECT" and x.host == "example.org"]
    assert [(x.url, x.status, x.rule) for x in refused] == [("https://example.org:443", 403,
                                                             "host example.org is not allowed")]


def test_git_clone_over_smart_http_allowed_and_forbidden(world, trial, tmp_path):
    tls = world["tls"]
    policy = EgressPolicy(name="allowlist", allow_hosts=hosts(world, "tls"),
                          deny=[Forbidden(prefix_or_host=f"{tls.origin}/git/secret", material="code",
                                          reason="withheld at reimplement")])
    t = trial(policy)
    ok = t.run("git", "clone", "-q", f"{tls.origin}/git/allowed.git", str(tmp_path / "a"))
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / "a/README").read_text() == "released code\n"
    for spelling in ["/git/secret.git", "/git/SECRET", "/git/x/../secret.git", "/git/%73ecret.git/"]:
        bad = t.run("git", "clone", "-q", f"{tls.origin}{spelling}", str(tmp_path / "s"))
        assert bad.returncode != 0 and "403" in bad.stderr, (spelling, bad.stderr)
        assert not (tmp_path / "s").exists()
    assert not any("secret" in p.lower() for p in tls.paths())  # it never reached the upstream
    recs = t.close()
    allowed = [x for x in recs if x.allowed and x.method != "CONNECT"]
    assert any(x.url.endswith("/git/allowed.git/info/refs?service=git-upload-pack") for x in allowed)
    assert any(x.method == "POST" and x.url.endswith("/git-upload-pack") and x.bytes_down > 0 for x in allowed)
    denied = [x for x in recs if not x.allowed]
    assert len(denied) == 4 and {x.forbidden for x in denied} == {"code"} and {x.status for x in denied} == {403}


def test_pip_from_a_local_index_under_packages_not_under_none(world, trial, tmp_path):
    plain = world["plain"]
    index = {"PIP_INDEX_URL": f"{plain.origin}/simple/"}
    hosts_here = package_hosts(env={**index, "HOME": str(tmp_path), "PATH": os.environ["PATH"],
                                    "PIP_CONFIG_FILE": "/dev/null"})
    assert f"{plain.origin}/" in hosts_here
    pip = (sys.executable, "-m", "pip", "install", "--no-deps", "--target")
    t = trial(policy_for("packages", [], [], {}, hosts_here, gateway=True))
    r = t.run(*pip, str(tmp_path / "site"), "tinypkg", env=index, timeout=120)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "site/tinypkg/__init__.py").read_text() == "VALUE = 42\n"
    recs = t.close()
    assert [x.url for x in recs if x.allowed] == [f"{plain.origin}/simple/tinypkg/",
                                                  f"{plain.origin}/files/tinypkg-0.1-py3-none-any.whl"]
    assert recs[-1].bytes_down == (world["folder"] / "tinypkg-0.1-py3-none-any.whl").stat().st_size
    t = trial(policy_for("none", [], [], {}, hosts_here, gateway=False))
    r = t.run(sys.executable, "-m", "pip", "download", "--no-deps", "--retries", "0", "-d", str(tmp_path / "dl"),
              "tinypkg", env=index, timeout=120)
    assert r.returncode != 0
    assert not (tmp_path / "dl").exists() or not any((tmp_path / "dl").iterdir())
    recs = t.close()
    assert recs and all(not x.allowed and x.status == 403 for x in recs)
    assert recs[0].url == f"{plain.origin}/simple/tinypkg/" and recs[0].rule == f"host {HOST} is not allowed"


# what no polite client sends ---------------------------------------------------------------------

def status_of(reply: bytes) -> int:
    return int(reply.split(b" ", 2)[1]) if reply.startswith(b"HTTP/1.") else 0


def test_evasions_on_the_plain_proxy(world, trial):
    plain = world["plain"]
    a = f"{HOST}:{plain.port}"
    t = trial(EgressPolicy(name="allowlist", allow_hosts=[a],
                           deny=[Forbidden(prefix_or_host=f"http://{a}/echo/secret", material="weights", reason="r")]))
    cases = {  # request -> status
        f"GET http://{a}/echo/secret HTTP/1.1\r\nHost: {a}\r\n\r\n": 403,
        f"GET http://{a}/ECHO/Secret/x HTTP/1.1\r\nHost: {a}\r\n\r\n": 403,
        f"GET http://{a}/echo/x/../secret HTTP/1.1\r\nHost: {a}\r\n\r\n": 403,
        f"GET http://{a}/echo/%73ecret HTTP/1.1\r\nHost: {a}\r\n\r\n": 403,
        f"GET http://2130706434:{plain.port}/echo/secret HTTP/1.1\r\nHost: 2130706434:{plain.port}\r\n\r\n": 403,
        f"GET http://u:p@{a}/echo/secret HTTP/1.1\r\nHost: {a}\r\n\r\n": 403,
        f"GET /echo/secret HTTP/1.1\r\nHost: {a}\r\n\r\n": 400,                     # origin-form to a proxy
        f"GET http://{a}/echo/ok HTTP/1.1\r\nHost: github.com\r\n\r\n": 403,        # Host header for another
        f"GET http://{a}/echo/ws HTTP/1.1\r\nHost: {a}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n": 403,
        f"GET http://{a}/echo/h2c HTTP/1.1\r\nHost: {a}\r\nUpgrade: h2c\r\n"
        "HTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n": 403,
        "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n": 505,                                        # HTTP/2 preface
        f"GET http://{a}/echo/x HTTP/1.1\r\nHost: {a}\r\nX: {'y' * 100_000}\r\n\r\n": 431,  # huge header
        f"POST http://{a}/upload HTTP/1.1\r\nHost: {a}\r\nContent-Length: 5\r\n"
        "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n": 400,
        "CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n": 403,
        f"CONNECT {a} HTTP/1.1\r\nHost: {a}\r\n\r\n\x16\x03\x01": 400,                  # data before the tunnel
        f"CONNECT {a} HTTP/1.1\r\nHost: {a}\r\nContent-Length: 3\r\n\r\nabc": 400,
    }
    for req, want in cases.items():
        assert status_of(t.raw(req.encode())) == want, req[:120]
    assert not any("secret" in p.lower() or p.startswith(("/echo/ok", "/echo/ws", "/echo/h2c"))
                   for p in world["plain"].paths())
    # pipelining: every request on the connection is decided on its own
    pipe = (f"GET http://{a}/echo/one HTTP/1.1\r\nHost: {a}\r\n\r\n"
            f"GET http://{a}/echo/secret HTTP/1.1\r\nHost: {a}\r\n\r\n"
            f"GET http://{a}/echo/three HTTP/1.1\r\nHost: {a}\r\n\r\n").encode()
    out = t.raw(pipe)
    assert out.count(b"HTTP/1.1 200") == 1 and out.count(b"HTTP/1.1 403") == 1
    assert "/echo/one" in plain.paths() and "/echo/three" not in plain.paths()
    recs = t.close()
    assert sum(1 for x in recs if x.forbidden == "weights") == 7  # six spellings and the pipelined one
    assert {x.status for x in recs if not x.allowed} == {400, 403, 431, 505}
    assert next(x for x in recs if x.raw and "%73ecret" in x.raw).url == f"http://{a}/echo/secret"


def test_evasions_inside_a_tunnel(world, trial):
    tls = world["tls"]
    a = f"{HOST}:{tls.port}"
    t = trial(EgressPolicy(allow_hosts=[a, "example.org"],
                           deny=[Forbidden(prefix_or_host="https://github.com/org/secret", material="code",
                                           reason="r")]))
    connect = f"CONNECT {a} HTTP/1.1\r\nHost: {a}\r\n\r\n".encode()
    before = len(tls.seen)
    cases = [  # (SNI, request inside, status)
        (None, f"GET /echo/ok HTTP/1.1\r\nHost: {a}\r\nConnection: close\r\n\r\n", 200),
        (None, "GET /org/secret HTTP/1.1\r\nHost: github.com\r\n\r\n", 403),          # CONNECT one, Host another
        (None, "GET https://github.com/org/secret HTTP/1.1\r\nHost: github.com\r\n\r\n", 403),
        ("github.com", f"GET /echo/sni HTTP/1.1\r\nHost: {a}\r\n\r\n", 403),          # SNI another
        (None, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505),
        (None, f"GET /echo/ws HTTP/1.1\r\nHost: {a}\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n", 403),
    ]
    for sni, inner, want in cases:
        got = status_of(t.raw(connect, tls_to=(a, sni), then=inner.encode()))
        assert got == want, inner
    assert tls.paths()[before:] == ["/echo/ok"]
    recs = t.close()
    assert [x.forbidden for x in recs if x.method == "GET" and x.status == 403].count("code") == 2


@pytest.fixture
def tight(world):
    """A proxy of its own with short limits, for the tests of those limits (the shared one's are
    generous: a TLS handshake on a loaded machine can take seconds)."""
    proxy = EgressProxy(upstream_verify=str(world["tls"].cert_file),
                        limits=EgressLimits(header_timeout_s=1.5, idle_timeout_s=5, max_connections=8)).start()
    made = []

    def make(policy: EgressPolicy) -> Trial:
        made.append(Trial(proxy, policy, world["folder"]))
        return made[-1]

    yield make
    for t in made:
        t.close()
    proxy.stop()


def test_slowloris_idle_limits_and_fuzz(world, tight):
    plain = world["plain"]
    a = f"{HOST}:{plain.port}"
    trial = tight
    t = trial(EgressPolicy(allow_hosts=[a]))
    s = socket.socket(socket.AF_UNIX)
    s.connect(t.sock)
    s.settimeout(60)
    for ch in f"GET http://{a}/echo/slow HTTP/1.1\r\nHost: {a}\r\n":  # one byte at a time, never ending
        try:
            s.sendall(ch.encode())
        except OSError:
            break
        time.sleep(0.05)
    reply = s.recv(4096)
    assert status_of(reply) == 408  # the head never ends: only the header timeout answers
    s.close()
    rng = random.Random(7)
    junk = [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000))) for _ in range(40)] + [
        b"GET http://[::1 HTTP/1.1\r\n\r\n", b"\x16\x03\x01\x02\x00" + b"\x00" * 600, b"CONNECT :0 HTTP/1.1\r\n\r\n",
        b"GET http://%zz/ HTTP/1.1\r\nHost: x\r\n\r\n", b"GET http://a:99999/ HTTP/1.1\r\n\r\n",
        f"POST http://{a}/upload HTTP/1.1\r\nHost: {a}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".encode(),
        f"POST http://{a}/upload HTTP/1.1\r\nHost: {a}\r\nContent-Length: 99\r\n\r\nshort".encode()]
    for j in junk:
        t.raw(j, wait=2, eof=True)
    # many at once, beyond the limit of concurrent connections: the extra ones are refused, not queued
    crowded = trial(EgressPolicy(allow_hosts=[a]))
    idle = [socket.socket(socket.AF_UNIX) for _ in range(8)]
    for s in idle:
        s.connect(crowded.sock)
    time.sleep(0.3)
    assert status_of(crowded.raw(f"GET http://{a}/echo/x HTTP/1.1\r\nHost: {a}\r\n\r\n".encode())) == 503
    for s in idle:
        s.close()
    assert any(x.status == 503 for x in crowded.close())
    out = t.raw(f"GET http://{a}/echo/after HTTP/1.1\r\nHost: {a}\r\n\r\n".encode())
    assert status_of(out) == 200  # still serving
    recs = t.close()
    assert any(x.status == 408 for x in recs)
    assert any(x.url.endswith("/echo/after") and x.status == 200 for x in recs)


def test_close_trial_waits_for_its_records(world, trial):
    plain = world["plain"]
    a = f"{HOST}:{plain.port}"
    t = trial(EgressPolicy(allow_hosts=[a]))
    s = socket.socket(socket.AF_UNIX)
    s.connect(t.sock)
    s.sendall(f"GET http://{a}/big?n=50000000 HTTP/1.1\r\nHost: {a}\r\n\r\n".encode())
    s.recv(65536)  # the download has begun; the client reads no further
    world["proxy"].close_trial(t.id, grace_s=1)
    recs = t.records
    s.close()
    big = [x for x in recs if "/big" in x.url]
    assert len(big) == 1 and big[0].error and 0 < big[0].bytes_down < 50000000
    with pytest.raises(OSError):
        socket.socket(socket.AF_UNIX).connect(t.sock)
