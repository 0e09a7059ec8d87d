"""Real local upstreams for the egress proxy's tests, all in one small HTTP/1.1 server:

- /echo/...    what was asked (method, path, headers, body size) as JSON
- /upload      the sha256 and size of the body (Content-Length or chunked)
- /big?n=N     N bytes, chunked
- /git/...     git smart HTTP: git http-backend run as CGI over a folder of bare repositories
- /simple/...  a PEP 503 simple index, /files/... its wheels

served over plain HTTP or HTTPS with a self-signed certificate (cert_file: what the proxy is
told to trust). Every request the server saw is kept in .seen, so a test can show that a
denied request never reached it.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import ipaddress
import json
import os
import re
import ssl
import subprocess
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

HOST = "127.0.0.2"  # not 127.0.0.1: clients are told NO_PROXY=127.0.0.1, and must use the proxy here
HTTP_BACKEND = Path(subprocess.run(["git", "--exec-path"], capture_output=True, text=True,
                                   check=True).stdout.strip()) / "git-http-backend"


def self_signed(folder: Path, host: str = HOST) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)])
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(hours=1))
            .not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(host))]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = folder / "upstream.crt", folder / "upstream.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file


def build_wheel(folder: Path, name: str = "tinypkg", version: str = "0.1") -> Path:
    """A real (pure-Python) wheel, written as the wheel spec says: the package, METADATA, WHEEL, RECORD."""
    dist = f"{name}-{version}.dist-info"
    files = {f"{name}/__init__.py": b"VALUE = 42\n",
             f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
             f"{dist}/WHEEL": b"Wheel-Version: 1.0\nGenerator: reclaim-tests\nRoot-Is-Purelib: true\n"
                              b"Tag: py3-none-any\n"}
    record = "".join(f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b'=').decode()},"
                     f"{len(b)}\n" for p, b in files.items()) + f"{dist}/RECORD,,\n"
    path = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        for p, b in {**files, f"{dist}/RECORD": record.encode()}.items():
            z.writestr(p, b)
    return path


def make_repos(root: Path, names: dict[str, str]) -> Path:
    """Bare repositories root/<name>.git, each with one commit holding README = its text."""
    root.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root), "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    for name, text in names.items():
        work = root / f"{name}-work"
        subprocess.run(["git", "init", "-q", "-b", "main", str(work)], check=True, env=env)
        (work / "README").write_text(text)
        subprocess.run(["git", "-C", str(work), "add", "README"], check=True, env=env)
        subprocess.run(["git", "-C", str(work), "commit", "-q", "-m", "init"], check=True, env=env)
        subprocess.run(["git", "clone", "-q", "--bare", str(work), str(root / f"{name}.git")], check=True, env=env)
    return root


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Upstream._Server

    def log_message(self, *args) -> None:
        pass

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = bytearray()
            while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                out += self.rfile.read(size)
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass
            return bytes(out)
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _send(self, status: int, body: bytes, ctype: str = "application/json", headers=()) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _any(self) -> None:
        body = self._body()
        up = self.server.owner
        up.seen.append((self.command, self.path, dict(self.headers.items())))
        path, _, query = self.path.partition("?")
        if path.startswith("/git/"):
            return self._git(path[4:], query, body)
        if path == "/upload":
            return self._send(200, json.dumps({"sha256": hashlib.sha256(body).hexdigest(), "size": len(body)}).encode())
        if path == "/big":
            n = int(re.search(r"n=(\d+)", query)[1])
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(0, n, 65536):
                piece = b"x" * min(65536, n - i)
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.write(b"0\r\n\r\n")
            return None
        if path.startswith("/simple/"):
            return self._index(path)
        if path.startswith("/files/") and (f := up.files.get(path[7:])):
            return self._send(200, f.read_bytes(), "application/octet-stream")
        if path.startswith("/echo"):
            return self._send(200, json.dumps({"method": self.command, "path": self.path, "size": len(body),
                                               "headers": dict(self.headers.items())}).encode())
        return self._send(404, b"{}")

    do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = _any

    def _index(self, path: str) -> None:
        files = self.server.owner.files
        if path == "/simple/":
            names = sorted({f.split("-")[0] for f in files})
            links = "".join(f'<a href="{n}/">{n}</a>\n' for n in names)
        else:
            name = path.strip("/").split("/")[-1]
            links = "".join(f'<a href="/files/{f}#sha256={hashlib.sha256(p.read_bytes()).hexdigest()}">{f}</a>\n'
                            for f, p in files.items() if f.split("-")[0] == name)
            if not links:
                return self._send(404, b"not found", "text/plain")
        self._send(200, f"<!DOCTYPE html><html><body>\n{links}</body></html>".encode(), "text/html")
        return None

    def _git(self, path_info: str, query: str, body: bytes) -> None:
        env = {"PATH": os.environ["PATH"], "GIT_PROJECT_ROOT": str(self.server.owner.git_root),
               "GIT_HTTP_EXPORT_ALL": "1", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(self.server.owner.git_root),
               "PATH_INFO": path_info, "QUERY_STRING": query, "REQUEST_METHOD": self.command,
               "CONTENT_TYPE": self.headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(body)),
               "REMOTE_ADDR": "127.0.0.1", "GIT_PROTOCOL": self.headers.get("Git-Protocol", "")}
        if enc := self.headers.get("Content-Encoding"):
            env["HTTP_CONTENT_ENCODING"] = enc
        out = subprocess.run([str(HTTP_BACKEND)], check=False, input=body, env=env, capture_output=True,
                             timeout=60).stdout
        cut = min((i for i in (out.find(b"\r\n\r\n"), out.find(b"\n\n")) if i >= 0), default=len(out))
        head, payload = out[:cut].decode("latin-1"), out[cut:].lstrip(b"\r\n")
        status, headers = 200, []
        for line in head.splitlines():
            k, _, v = line.partition(":")
            if k.lower() == "status":
                status = int(v.split()[0])
            elif k.lower() != "content-type":
                headers.append((k, v.strip()))
        ctype = next((ln.partition(":")[2].strip() for ln in head.splitlines()
                      if ln.lower().startswith("content-type")), "text/plain")
        self._send(status, payload, ctype, headers)


class Upstream:
    class _Server(ThreadingHTTPServer):
        daemon_threads = True
        owner: Upstream

        def handle_error(self, request, client_address) -> None:
            pass  # a client the proxy cut off (the tests do that on purpose)

    def __init__(self, folder: Path, *, tls: bool = False):
        self.seen: list[tuple[str, str, dict]] = []
        self.files: dict[str, Path] = {}
        self.git_root = folder / "repos"
        self.git_root.mkdir(parents=True, exist_ok=True)
        self.server = self._Server((HOST, 0), _Handler)
        self.server.owner = self
        self.cert_file: Path | None = None
        if tls:
            self.cert_file, key_file = self_signed(folder)
            ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            ctx.load_cert_chain(self.cert_file, key_file)
            self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.origin = f"{'https' if tls else 'http'}://{HOST}:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def paths(self) -> list[str]:
        return [p for _, p, _ in self.seen]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
