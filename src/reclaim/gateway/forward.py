"""Runs inside the sandbox, with only the standard library: listens on the sandbox's own
loopback and relays every connection to a Unix socket (the model gateway's, the egress
proxy's), then runs the command.

    python3 forward.py PORT SOCKET [PORT SOCKET ...] -- COMMAND ARGS...
"""

import signal
import socket
import subprocess
import sys
import threading


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def _serve(server: socket.socket, path: str) -> None:
    while True:
        client, _ = server.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(path)
        except OSError:
            client.close()
            continue
        for a, b in ((client, upstream), (upstream, client)):
            threading.Thread(target=_pipe, args=(a, b), daemon=True).start()


def main() -> int:
    args = sys.argv[1:]
    if "--" not in args:
        print("usage: forward.py PORT SOCKET [PORT SOCKET ...] -- COMMAND ARGS...", file=sys.stderr)
        return 2
    split = args.index("--")
    pairs, cmd = args[:split], args[split + 1:]
    if not cmd or not pairs or len(pairs) % 2:
        print("usage: forward.py PORT SOCKET [PORT SOCKET ...] -- COMMAND ARGS...", file=sys.stderr)
        return 2
    for port, path in zip(pairs[::2], pairs[1::2]):
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", int(port)))
        server.listen(128)
        threading.Thread(target=_serve, args=(server, path), daemon=True).start()
    proc = subprocess.Popen(cmd)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda s, f: proc.send_signal(s))
    code = proc.wait()
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main())
