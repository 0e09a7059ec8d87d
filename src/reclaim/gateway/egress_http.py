"""One client connection of the egress proxy (gateway/egress.py), spoken as HTTP/1.1 with h11 under
the proxy's limits, and what a request must be before any policy is asked about it: absolute-form,
HTTP/1.x, no upgrade, its Host header and TLS server name naming the host it asks for.
"""

from __future__ import annotations

import asyncio
from http.client import responses
from typing import NamedTuple

import h11
from pydantic import BaseModel

from reclaim.gateway.urls import Url, parse


class EgressLimits(BaseModel):
    max_header_bytes: int = 64 << 10
    header_timeout_s: float = 30.0    # a whole request head (slowloris), and a TLS handshake
    idle_timeout_s: float = 120.0     # no byte from the client, between requests or in a body
    upstream_timeout_s: float = 300.0
    max_connections: int = 64         # concurrent, per trial


class Closed(Exception):
    """The client went away, or broke the protocol: end the connection."""


class Tunnel(NamedTuple):
    host: str
    port: int
    sni: str | None


class Conn:
    """One client connection: its h11 state, its streams and the limits they are read under."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, limits: EgressLimits):
        self.reader, self.writer, self.limits = reader, writer, limits
        self.h11 = h11.Connection(h11.SERVER, max_incomplete_event_size=limits.max_header_bytes)

    async def next(self, timeout: float):
        while True:
            event = self.h11.next_event()
            if event is not h11.NEED_DATA:
                return event
            try:
                data = await asyncio.wait_for(self.reader.read(65536), timeout)
            except OSError as e:
                raise Closed(f"read failed: {e}") from None
            self.h11.receive_data(data)

    async def head(self):
        """The next request head: its first byte within idle_timeout_s (None if none comes: an
        idle keep-alive), the whole head within header_timeout_s (slowloris)."""
        event = self.h11.next_event()
        if event is not h11.NEED_DATA:
            return event  # pipelined: already here
        if not self.h11.trailing_data[0]:
            try:
                data = await asyncio.wait_for(self.reader.read(65536), self.limits.idle_timeout_s)
            except (TimeoutError, OSError):
                return None
            self.h11.receive_data(data)
        return await asyncio.wait_for(self.next(self.limits.header_timeout_s), self.limits.header_timeout_s)

    async def send(self, *events) -> None:
        try:
            for e in events:
                if (data := self.h11.send(e)) is not None:
                    self.writer.write(data)
            await asyncio.wait_for(self.writer.drain(), self.limits.idle_timeout_s)
        except (TimeoutError, OSError) as e:
            raise Closed(f"client gone: {type(e).__name__}: {e}") from None

    async def reply(self, status: int, text: str) -> None:
        """A plain-text answer, then the connection closes."""
        body = text.encode() + b"\n"
        headers = [("content-type", "text/plain; charset=utf-8"), ("content-length", str(len(body))),
                   ("connection", "close")]
        try:
            await self.send(h11.Response(status_code=status, reason=phrase(status), headers=headers),
                            h11.Data(data=body), h11.EndOfMessage())
        except h11.LocalProtocolError:  # state broken by the client: a plain answer, then close
            self.writer.write(b"HTTP/1.1 %d %s\r\nconnection: close\r\ncontent-length: %d\r\n\r\n%s"
                              % (status, phrase(status), len(body), body))


def check_request(req: h11.Request, method: str, target: str, headers: list[tuple[str, str]],
                  tunnel: Tunnel | None, limits: EgressLimits) -> tuple[Url | None, str | None, int, str | None]:
    """(the normalised URL, why the request is refused whatever the policy, status, another host named)."""
    names = {k for k, _ in headers}
    size = len(req.target) + sum(len(k) + len(v) + 4 for k, v in req.headers)
    if size > limits.max_header_bytes:  # h11 lets a head that came whole be up to a read longer
        return None, f"request head of {size} bytes, over {limits.max_header_bytes}", 431, None
    if req.http_version not in (b"1.0", b"1.1") or method == "PRI":
        return None, f"HTTP/{req.http_version.decode('ascii', 'replace')} is not spoken here: HTTP/1.1 only", 505, None
    if method == "CONNECT":
        return None, "CONNECT inside a tunnel", 400, None
    if tunnel is not None and target.startswith("/"):
        target = f"https://{tunnel.host}:{tunnel.port}{target}"
    if not target.lower().startswith(("http://", "https://")):
        return None, ("this is a proxy: requests must be absolute-form (GET http://host/path HTTP/1.1)"
                      if tunnel is None else f"bad request target {target[:200]!r} in a tunnel"), 400, None
    try:
        url = parse(target)
    except ValueError as e:
        return None, f"invalid URL {target[:200]!r}: {e}", 400, None
    if tunnel is not None and (url.scheme, url.host, url.port) != ("https", tunnel.host, tunnel.port):
        return url, f"a request for {url.host}:{url.port} in a tunnel to {tunnel.host}:{tunnel.port}", 403, url.host
    if tunnel is not None and tunnel.sni and (sni := hostport(tunnel.sni)[0]) != tunnel.host:
        return url, f"TLS server name {tunnel.sni[:200]!r} does not match the tunnel to {tunnel.host}", 403, sni
    for h in (v for k, v in headers if k == "host"):
        if (got := hostport(h, url.scheme)) != (url.host, url.port):
            return (url, f"Host header {h[:200]!r} does not match the request's host {url.host}:{url.port}",
                    403, got[0] or None)
    if "upgrade" in names or "http2-settings" in names:
        return url, "protocol upgrades (websocket, h2c) are not proxied", 403, None
    if "content-length" in names and "transfer-encoding" in names:
        return url, "both Content-Length and Transfer-Encoding", 400, None
    return url, None, 0, None


def phrase(status: int) -> bytes:
    return responses.get(status, "Error").encode()


def hostport(authority: str, scheme: str = "https") -> tuple[str, int]:
    """(host, port) of 'host[:port]', normalised, the scheme's port by default; ('', 0) if bad."""
    try:
        u = parse(f"{scheme}://{authority}/")
    except ValueError:
        return "", 0
    return (u.host, u.port) if "@" not in authority and "/" not in authority else ("", 0)
