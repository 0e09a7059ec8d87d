"""A network namespace the harness makes for one phase of a trial, with its own servers listening
inside at the sandbox's loopback ports.

A sandbox with a network of its own (bwrap ``--unshare-net``) has only a loopback, so something
inside must listen there for the model gateway and the egress proxy. Without privileges that is a
small relay started in front of every command (gateway/forward.py): an interpreter's start, about
25 ms a command under the exec record. A root harness does better: it makes the namespace itself
(``unshare(CLONE_NEWNET)`` in a thread of its own, which moves that thread alone), brings its
loopback up, opens the listening sockets there, and starts each sandbox of the phase inside it
(``nsenter --net``, given the namespace by the harness's own descriptor path, so no descriptor of
it reaches the sandbox). The harness's servers then accept the sandbox's connections directly.

What a sandbox can do there is what it could do before: connect to those ports, and open its own
on a loopback nobody else shares. The listening sockets are root's and the sandbox's uid holds no
capability, so it can neither take their port (SO_REUSEPORT groups are per uid) nor change the
namespace. Each phase (the agent, every re-execution) gets a namespace of its own: nothing one
leaves on its loopback reaches the next.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import functools
import os
import shutil
import socket
import struct
import subprocess
import threading

from reclaim.errors import SandboxError

CLONE_NEWNET = 0x40000000
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1
_IFREQ = "16sh22x"  # struct ifreq: the name, then ifr_flags in the union


class NetnsError(SandboxError):
    """The namespace could not be made."""


@functools.cache
def _nsenter() -> str | None:
    return shutil.which("nsenter")


@functools.cache
def unavailable() -> str | None:
    """None when this process can make network namespaces for its sandboxes, else why not."""
    if os.geteuid() != 0:
        return "not root: sandboxes make their own network and relay to the harness's sockets"
    if _nsenter() is None:
        return "nsenter (util-linux) is not installed"
    try:
        ns = Netns.create([])
    except NetnsError as e:
        return str(e)
    try:  # entered the way every sandbox will be
        probe = subprocess.run([*ns.launcher(), "true"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as e:
        return f"nsenter does not run: {e}"
    finally:
        ns.close()
    if probe.returncode != 0:
        return f"nsenter cannot enter the namespace: {probe.stderr.strip()[-300:]}"
    return None


class Netns:
    """An empty network namespace with its loopback up; ``listeners`` are the harness's sockets
    bound inside it at 127.0.0.1, by port."""

    def __init__(self, fd: int, listeners: dict[int, socket.socket]):
        self.fd = fd
        self.listeners = listeners

    @classmethod
    def create(cls, ports: list[int]) -> Netns:
        made: dict = {}

        def inside() -> None:  # this thread alone moves to the new namespace, then ends
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                if libc.unshare(CLONE_NEWNET) != 0:
                    err = ctypes.get_errno()
                    raise NetnsError(f"cannot make a network namespace: {os.strerror(err) or errno.errorcode.get(err)}")
                made["fd"] = os.open("/proc/thread-self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                    flags = struct.unpack(_IFREQ, fcntl.ioctl(s, _SIOCGIFFLAGS, struct.pack(_IFREQ, b"lo", 0)))[1]
                    fcntl.ioctl(s, _SIOCSIFFLAGS, struct.pack(_IFREQ, b"lo", flags | _IFF_UP))
                made["listeners"] = {}
                for port in ports:
                    made["listeners"][port] = socket.create_server(("127.0.0.1", port), backlog=128)
            except NetnsError as e:
                made["error"] = e
            except OSError as e:
                made["error"] = NetnsError(f"cannot set up a network namespace: {e}")

        t = threading.Thread(target=inside, name="reclaim-netns")
        t.start()
        t.join()
        if "error" in made:
            for s in made.get("listeners", {}).values():
                s.close()
            if "fd" in made:
                os.close(made["fd"])
            raise made["error"]
        return cls(made["fd"], made["listeners"])

    def launcher(self) -> list[str]:
        """The prefix that starts a program in this namespace. The path is the harness's own
        descriptor, opened by nsenter (root): the program inherits no descriptor of it."""
        return [_nsenter() or "nsenter", f"--net=/proc/{os.getpid()}/fd/{self.fd}", "--"]

    def take(self, port: int) -> socket.socket:
        """The listening socket at ``port``, for the server that will own (and close) it."""
        return self.listeners.pop(port)

    def __del__(self) -> None:  # a phase that failed before it closed its namespace
        self.close()

    def close(self) -> None:
        """The namespace goes when its last process has and this descriptor is closed."""
        for s in self.listeners.values():
            s.close()
        self.listeners.clear()
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
