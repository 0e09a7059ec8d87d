"""A root harness's phase network (sandbox/netns.py): its servers listen inside the sandbox's own
namespace, so no relay starts in front of each command; nothing else is reachable, no descriptor
of the namespace gets in, the sandbox cannot take the harness's port, and phases are apart."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest

from reclaim.sandbox import SandboxConfig, make_sandbox, netns
from reclaim.sandbox.base import EGRESS_PORT, GATEWAY_PORT
from reclaim.sandbox.netns import Netns

pytestmark = pytest.mark.usefixtures("bwrap_only")

PROBE = r"""
import ctypes, errno, json, os, socket, sys
out = {}
def talk(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=3) as s:
            s.sendall(b"hi"); s.shutdown(socket.SHUT_WR)
            return s.recv(100).decode()
    except OSError as e:
        return f"refused: {e.strerror}"
out["egress"] = talk(%(egress)d)
out["gateway"] = talk(%(gateway)d)
out["host"] = talk(%(host)d)
out["other_phase"] = talk(%(other)d)
out["fds"] = sorted(int(f) for f in os.listdir("/proc/self/fd"))
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("127.0.0.1", %(egress)d)); s.listen(); out["took_port"] = True
except OSError as e:
    out["took_port"] = errno.errorcode[e.errno]
libc = ctypes.CDLL(None, use_errno=True)
out["new_net"] = "allowed" if libc.unshare(0x40000000) == 0 else errno.errorcode[ctypes.get_errno()]
print(json.dumps(out))
"""


@pytest.fixture(autouse=True)
def root_harness():
    if (why := netns.unavailable()) is not None:
        pytest.skip(why)


def _serve(listener: socket.socket, name: str) -> None:
    def loop() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                conn.sendall(f"{name}:".encode() + conn.recv(100))

    threading.Thread(target=loop, daemon=True).start()


def _probe(tmp_path: Path, ns: Netns, **ports) -> tuple[dict, str]:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    box = make_sandbox("bwrap", SandboxConfig(ws, netns=ns, egress=tmp_path))
    box.start()
    res = box.exec(["python3", "-I", "-c", PROBE % ports], stdout=tmp_path / "o", stderr=tmp_path / "e", timeout=60)
    box.stop()
    assert res.exit_code == 0, (tmp_path / "e").read_text()
    execs = res.exec_log.read_text() if res.exec_log is not None else ""
    return json.loads((tmp_path / "o").read_text()), execs


def test_the_harness_listens_inside_and_nothing_else_is_reachable(tmp_path):
    host = socket.create_server(("127.0.0.1", 0))  # a service on the host's own loopback
    _serve(host, "host")
    other = Netns.create([EGRESS_PORT + 100])  # another phase's network, with a server in it
    _serve(other.take(EGRESS_PORT + 100), "other")
    ns = Netns.create([EGRESS_PORT, GATEWAY_PORT])
    _serve(ns.take(EGRESS_PORT), "egress")
    _serve(ns.take(GATEWAY_PORT), "gateway")
    try:
        out, execs = _probe(tmp_path, ns, egress=EGRESS_PORT, gateway=GATEWAY_PORT,
                            host=host.getsockname()[1], other=EGRESS_PORT + 100)
    finally:
        ns.close()
        other.close()
        host.close()
    assert out["egress"] == "egress:hi" and out["gateway"] == "gateway:hi"
    assert out["host"].startswith("refused") and out["other_phase"].startswith("refused")
    assert out["fds"] == [0, 1, 2, 3]  # the listing's own: no descriptor of the namespace or its sockets
    assert out["took_port"] == "EADDRINUSE"  # root's socket: no SO_REUSEPORT group with the sandbox's uid
    assert out["new_net"] in ("EPERM", "EACCES")
    assert "reclaim-forward" not in execs  # no relay started in front of the command

