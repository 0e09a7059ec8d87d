"""The in-sandbox forwarder, run as the sandbox runs it (``python3 -I -S``): it relays loopback
ports to Unix sockets and is otherwise invisible: the command's status, signals and output pass
through, and a program that cannot start says so with the shell's 127."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from reclaim.sandbox.base import FORWARDER


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _forward(pairs: list[str], cmd: list[str], **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-I", "-S", str(FORWARDER), *pairs, "--", *cmd],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def _echo_server(path: Path) -> socket.socket:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(8)

    def serve():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                data = b""
                while chunk := conn.recv(65536):
                    data += chunk
                conn.sendall(b"echo:" + data)

    threading.Thread(target=serve, daemon=True).start()
    return server


def test_a_connection_to_the_port_reaches_the_socket_and_back(tmp_path):
    server = _echo_server(tmp_path / "s.sock")
    port = _free_port()
    client = ("import socket, sys\n"
              f"c = socket.create_connection(('127.0.0.1', {port}))\n"
              "c.sendall(b'x' * 200000); c.shutdown(socket.SHUT_WR)\n"
              "data = b''\n"
              "while chunk := c.recv(65536): data += chunk\n"
              "print(len(data), data[:6].decode())\n")
    proc = _forward([str(port), str(tmp_path / "s.sock")], [sys.executable, "-c", client])
    out, err = proc.communicate(timeout=30)
    server.close()
    assert proc.returncode == 0, err
    assert out.decode().split() == ["200005", "echo:x"]


def test_the_command_status_and_output_pass_through(tmp_path):
    port = _free_port()
    proc = _forward([str(port), str(tmp_path / "none.sock")], ["sh", "-c", "echo out; echo err >&2; exit 3"])
    out, err = proc.communicate(timeout=30)
    assert (proc.returncode, out, err) == (3, b"out\n", b"err\n")


def test_a_program_that_cannot_start_is_127_with_its_name(tmp_path):
    proc = _forward([str(_free_port()), str(tmp_path / "none.sock")], [str(tmp_path / "does-not-exist")])
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 127
    assert err.decode() == f"{tmp_path / 'does-not-exist'}: No such file or directory\n"


def test_a_signal_to_the_forwarder_reaches_the_command(tmp_path):
    mark = tmp_path / "got-term"
    proc = _forward([str(_free_port()), str(tmp_path / "none.sock")],
                    ["sh", "-c", f"trap 'touch {mark}; exit 7' TERM; while :; do sleep 0.05; done"])
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # until the command is running with its trap set
        time.sleep(0.1)
        if proc.poll() is None and subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True).stdout:
            break
    time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=30)
    assert proc.returncode == 7 and mark.exists()


def test_a_command_killed_by_a_signal_is_128_plus_it(tmp_path):
    proc = _forward([str(_free_port()), str(tmp_path / "none.sock")], ["sh", "-c", "kill -KILL $$"])
    proc.communicate(timeout=30)
    assert proc.returncode == 128 + signal.SIGKILL


def test_bad_usage_is_2():
    proc = subprocess.run([sys.executable, "-I", "-S", str(FORWARDER), "8787", "--", "true"], capture_output=True)
    assert proc.returncode == 2 and b"usage: forward.py" in proc.stderr
