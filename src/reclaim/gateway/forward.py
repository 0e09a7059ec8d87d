"""Runs inside the sandbox, with only the standard library: listens on the sandbox's own
loopback and relays every connection to a Unix socket (the model gateway's, the egress
proxy's), then runs the command.

    python3 -I -S forward.py PORT SOCKET [PORT SOCKET ...] -- COMMAND ARGS...

It sits in front of every sandboxed command where the harness cannot listen in the sandbox's
network itself (an unprivileged harness, the container backend; a root harness under bwrap
uses sandbox/netns.py instead), so it starts lean: run with ``-I -S`` (no site,
no user paths), it imports only the interpreter's built-in modules (``socket``, ``threading``
and ``signal`` would cost 8 ms more than the whole start of 6 ms), binds the ports, forks the
command at once (no subprocess module) and relays in threads while it waits.
"""

import _signal
import _socket
import _thread
import os
import sys

USAGE = "usage: forward.py PORT SOCKET [PORT SOCKET ...] -- COMMAND ARGS...\n"


def _pipe(src: _socket.socket, dst: _socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(_socket.SHUT_WR)
        except OSError:
            pass


def _serve(server: _socket.socket, path: str) -> None:
    while True:
        # the built-in socket's accept: a file descriptor, close-on-exec (typeshed's _socket leaves it out)
        fd, _ = server._accept()  # type: ignore[attr-defined]
        client = _socket.socket(fileno=fd)
        upstream = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            upstream.connect(path)
        except OSError:
            client.close()
            continue
        for a, b in ((client, upstream), (upstream, client)):
            _thread.start_new_thread(_pipe, (a, b))


def main() -> int:
    args = sys.argv[1:]
    split = args.index("--") if "--" in args else -1
    pairs, cmd = args[:split], args[split + 1:]
    if split < 0 or not cmd or not pairs or len(pairs) % 2:
        os.write(2, USAGE.encode())
        return 2
    servers = []
    for port, path in zip(pairs[::2], pairs[1::2], strict=True):
        server = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)  # not inherited by the command
        server.setsockopt(_socket.SOL_SOCKET, _socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", int(port)))
        server.listen(128)
        servers.append((server, path))
    pid = os.fork()  # before any thread: the child only execs
    if pid == 0:
        try:
            os.execvp(cmd[0], cmd)
        except OSError as e:
            os.write(2, f"{cmd[0]}: {e.strerror}\n".encode(errors="replace"))
        os._exit(127)
    for sig in (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP):
        _signal.signal(sig, lambda s, f: os.kill(pid, s))
    for server, path in servers:
        _thread.start_new_thread(_serve, (server, path))
    _, status = os.waitpid(pid, 0)
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)
