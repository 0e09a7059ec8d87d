"""URLs as the egress proxy decides on them: one normal form for every way of writing one.

Scheme and host case-folded (IDNA, IP literals in every notation made canonical), default ports
filled in, userinfo refused, percent-escapes of unreserved characters decoded, dot segments
removed; ``decoded`` is the widest reading a server might give a path, for denies.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from typing import NamedTuple
from urllib.parse import unquote, urlsplit

import idna

DEFAULT_PORTS = {"http": 80, "https": 443}
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_BAD = re.compile(r"[\x00-\x20\x7f]")


class Url(NamedTuple):
    scheme: str
    host: str
    port: int
    path: str
    query: str

    def __str__(self) -> str:
        port = "" if DEFAULT_PORTS.get(self.scheme) == self.port else f":{self.port}"
        return f"{self.scheme}://{self.host}{port}{self.path}" + (f"?{self.query}" if self.query else "")


def normalize_host(raw: str) -> str:
    """Lowercase, percent-decoded, IDNA (UTS 46), no trailing dot; IP literals in canonical form."""
    host = unquote(raw, errors="strict").strip().lower()
    if host.startswith("["):
        if not host.endswith("]") or "%" in host:
            raise ValueError(f"bad IPv6 literal {raw!r}")
        ip = ipaddress.IPv6Address(host[1:-1])
        return str(ip.ipv4_mapped) if ip.ipv4_mapped else f"[{ip.compressed}]"
    host = host.removesuffix(".")
    if not host or _BAD.search(host):
        raise ValueError(f"bad host {raw!r}")
    last = host.rsplit(".", 1)[-1]
    if re.fullmatch(r"[0-9a-fx.]+", host) and re.fullmatch(r"0x[0-9a-f]*|[0-9]+", last):
        try:  # every spelling of an IPv4 address: 2130706433, 0x7f.1, 0177.0.0.1
            return socket.inet_ntoa(socket.inet_aton(host))
        except OSError:
            raise ValueError(f"bad IPv4 literal {raw!r}") from None
    if re.fullmatch(r"[a-z0-9_.-]+", host):
        return host
    try:
        return idna.encode(host, uts46=True).decode("ascii")
    except idna.IDNAError as e:
        raise ValueError(f"bad host {raw!r}: {e}") from None


def _escape(m: re.Match) -> str:
    c = chr(int(m.group(1), 16))
    return c if c in _UNRESERVED else "%" + m.group(1).upper()


def remove_dot_segments(path: str) -> str:
    out: list[str] = []
    for seg in path.split("/")[1:]:
        if seg == "..":
            if len(out) > 0:
                out.pop()
        elif seg != ".":
            out.append(seg)
    res = "/" + "/".join(out)
    return res + "/" if path.split("/")[-1] in (".", "..") and not res.endswith("/") else res


def normalize_path(path: str) -> str:
    path = re.sub(r"%([0-9A-Fa-f]{2})", _escape, path or "/")
    return remove_dot_segments(path if path.startswith("/") else "/" + path)


def parse(url: str) -> Url:
    """The normalised form of an absolute http(s) URL; ValueError if it is not one."""
    if _BAD.search(url):
        raise ValueError("control characters or spaces in the URL")
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise ValueError(f"scheme {scheme or '(none)'!r} is not http or https")
    netloc = parts.netloc.rpartition("@")[2]  # userinfo is never forwarded
    if netloc.startswith("["):
        host, _, port = netloc[1:].partition("]")
        host, port = f"[{host}]", port.removeprefix(":") if port.startswith(":") else port or ""
        if port and not port.isdigit():
            raise ValueError(f"bad port in {netloc!r}")
    else:
        host, _, port = netloc.partition(":") if netloc.count(":") == 1 else (netloc, "", "")
    if port and not (port.isdigit() and 0 < int(port) < 65536):
        raise ValueError(f"bad port {port!r}")
    query = re.sub(r"%([0-9A-Fa-f]{2})", _escape, parts.query)
    return Url(scheme, normalize_host(host), int(port) if port else DEFAULT_PORTS[scheme],
               normalize_path(parts.path), query)


def decoded(path: str) -> str:
    """The widest reading a server might give a path: decoded until stable, '\\' as '/', '//'
    folded, ';params' dropped, dot segments removed."""
    for _ in range(4):
        nxt = unquote(path, errors="replace")
        if nxt == path:
            break
        path = nxt
    path = re.sub(r";[^/]*", "", re.sub(r"/{2,}", "/", path.replace("\\", "/")))
    return remove_dot_segments(path if path.startswith("/") else "/" + path)
