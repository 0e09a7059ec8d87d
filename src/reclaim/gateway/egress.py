"""The egress proxy: the only way from a sandbox to other hosts, one per run.

Each trial gets its own Unix socket (proxy.sock, bound into its sandbox beside ca.pem). It speaks
HTTP/1.1 as a forward proxy: absolute-form requests, and CONNECT, which is intercepted with the
run's certificate authority so that every HTTPS request is seen by its full URL too. Each request
is parsed with h11, decided by the trial's EgressPolicy on the normalised URL, forwarded as that
same URL with httpx (streamed both ways; the body is framed afresh, so nothing smuggled in the
client's framing reaches the upstream) and recorded. Upgrades (websocket, h2c) and HTTP/2 are
refused; a Host header or SNI naming another host than the request's is denied (the connection
and those checks are in egress_http.py).
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import socket
import ssl
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import h11
import httpx
from pydantic import BaseModel

from reclaim.gateway.egress_http import (
    Closed,
    Conn,
    EgressLimits,
    Tunnel,
    check_request,
    hostport,
)
from reclaim.gateway.pkgcache import PackageCache, serve_cached
from reclaim.gateway.policy import Decision, EgressPolicy
from reclaim.gateway.tls import CertificateAuthority, system_bundle
from reclaim.gateway.urls import Url
from reclaim.tempdirs import owned_tempdir

SOCKET_NAME = "proxy.sock"
BUNDLE_NAME = "ca.pem"
HOP = {"connection", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate",
       "te", "trailer", "transfer-encoding", "upgrade", "expect", "host"}
log = logging.getLogger(__name__)


class EgressRecord(BaseModel):
    ts: float
    method: str
    url: str
    host: str
    status: int
    bytes_up: int = 0
    bytes_down: int = 0
    allowed: bool
    rule: str
    forbidden: str | None = None
    duration_s: float = 0.0
    error: str | None = None
    raw: str | None = None
    """The request target as the client wrote it, when it differs from url."""


@dataclass
class _Trial:
    id: str
    policy: EgressPolicy
    record: Callable[[EgressRecord], None]
    folder: Path
    server: asyncio.AbstractServer | None = None
    conns: set[asyncio.Task] = field(default_factory=set)
    pending: list[Future] = field(default_factory=list)


class EgressProxy:
    def __init__(self, upstream_verify: str | bool | ssl.SSLContext | None = None,
                 limits: EgressLimits | None = None, package_cache: PackageCache | None = None):
        """upstream_verify: a CA bundle, an SSLContext, or None for the host's trust store;
        package_cache: where package files fetched once are kept for every later trial."""
        self.limits = limits or EgressLimits()
        self.package_cache = package_cache
        self._verify = upstream_verify if upstream_verify is not None else system_bundle()
        self.root = owned_tempdir("eg")  # short: socket paths are limited
        self.root.chmod(0o755)
        self.ca = CertificateAuthority()
        self._bundle: Path | None = None
        self.trials: dict[str, _Trial] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._client: httpx.AsyncClient | None = None
        self._recorder = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reclaim-egress-record")

    # lifecycle ---------------------------------------------------------------------------

    def start(self) -> EgressProxy:
        verify = ssl.create_default_context(cafile=self._verify) if isinstance(self._verify, str) else self._verify
        self._client = httpx.AsyncClient(  # trust_env: a proxy the host itself must use is honoured
            verify=verify, trust_env=True, follow_redirects=False, http2=False,
            timeout=httpx.Timeout(30, read=self.limits.upstream_timeout_s),
            limits=httpx.Limits(max_connections=256, max_keepalive_connections=32))
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="reclaim-egress", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._loop is None:
            return
        for trial_id in list(self.trials):
            self.close_trial(trial_id)
        asyncio.run_coroutine_threadsafe(self._http().aclose(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        assert self._thread is not None  # started with the loop
        self._thread.join(10)
        self._recorder.shutdown(wait=True)
        self._loop = None
        self.ca.close()
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> EgressProxy:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _started(self) -> asyncio.AbstractEventLoop:
        """The proxy's event loop (start() made it)."""
        assert self._loop is not None, "the egress proxy is not started"
        return self._loop

    def _http(self) -> httpx.AsyncClient:
        """The upstream client (start() made it)."""
        assert self._client is not None, "the egress proxy is not started"
        return self._client

    # trials ------------------------------------------------------------------------------

    def open_trial(self, trial_id: str, policy: EgressPolicy, record: Callable[[EgressRecord], None],
                   listener: socket.socket | None = None, place: str | None = None) -> Path:
        """A folder (0755) with the trial's proxy.sock and ca.pem, to bind into its sandbox;
        with ``listener`` (a socket listening in the sandbox's own network), the proxy accepts
        there instead, and the folder holds ca.pem alone. ``place``: the folder's name, in place
        of a random one, for sandboxes made one after the other that must look alike (a trial's
        re-runs: the mount table names the folder); at most one of them is open at a time."""
        if trial_id in self.trials:
            raise ValueError(f"egress proxy: trial {trial_id!r} is already open")
        if place is not None:
            if any(t.folder.name == place for t in self.trials.values()):
                raise ValueError(f"egress proxy: the folder {place!r} is in use")
            folder = self.root / place
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
        else:
            folder = Path(tempfile.mkdtemp(prefix="t", dir=self.root))
        folder.chmod(0o755)
        if self._bundle is None:  # written once a run; each trial's folder links it (root's, 0644)
            self._bundle = self.ca.ca_bundle(self.root / BUNDLE_NAME)
        try:
            os.link(self._bundle, folder / BUNDLE_NAME)
        except OSError:
            shutil.copyfile(self._bundle, folder / BUNDLE_NAME)
        trial = _Trial(trial_id, policy, record, folder)

        async def listen() -> None:
            def accept(r: asyncio.StreamReader, w: asyncio.StreamWriter):
                return self._accept(trial, r, w)

            if listener is not None:
                trial.server = await asyncio.start_server(accept, sock=listener)
                return
            trial.server = await asyncio.start_unix_server(accept, path=str(folder / SOCKET_NAME))
            (folder / SOCKET_NAME).chmod(0o666)  # sandboxes run as an unprivileged user

        asyncio.run_coroutine_threadsafe(listen(), self._started()).result(10)
        self.trials[trial_id] = trial
        return folder

    def close_trial(self, trial_id: str, grace_s: float = 10.0) -> None:
        """Close the trial's socket; wait (grace_s, then cut them off) for its connections, and
        until every request it made is on the record."""
        trial = self.trials.pop(trial_id, None)
        if trial is None:
            return

        async def close() -> None:
            assert trial.server is not None  # open_trial lists a trial once it listens
            trial.server.close()
            if trial.conns:
                _, late = await asyncio.wait(set(trial.conns), timeout=grace_s)
                for t in late:
                    t.cancel()
                await asyncio.gather(*late, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(close(), self._started()).result(grace_s + 30)
        for f in list(trial.pending):
            f.result()
        shutil.rmtree(trial.folder, ignore_errors=True)

    def _record(self, trial: _Trial, **fields) -> None:
        rec = EgressRecord(ts=time.time(), **fields)

        def write() -> None:
            try:
                trial.record(rec)
            except Exception:  # a failing recorder must not take the proxy down
                log.exception("egress: recording a request of trial %s failed", trial.id)

        trial.pending = [f for f in trial.pending if not f.done()]
        trial.pending.append(self._recorder.submit(write))

    # connections -------------------------------------------------------------------------

    async def _accept(self, trial: _Trial, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn, task = Conn(reader, writer, self.limits), asyncio.current_task()
        assert task is not None  # a connection is served in a task of its own
        trial.conns.add(task)
        try:
            if len(trial.conns) > self.limits.max_connections:
                rule = f"at most {self.limits.max_connections} concurrent connections"
                self._record(trial, method="", url="", host="", status=503, allowed=False, rule=rule,
                             error="connection refused: too many connections")
                await conn.reply(503, f"reclaim egress: {rule}")
            else:
                await self._serve(trial, conn, None)
        except (TimeoutError, Closed, ConnectionError, ssl.SSLError):
            pass
        except Exception:  # never down on client garbage: this connection ends, the proxy goes on
            log.exception("egress: connection of trial %s failed", trial.id)
        finally:
            trial.conns.discard(task)
            writer.close()

    async def _serve(self, trial: _Trial, conn: Conn, tunnel: Tunnel | None) -> None:
        while True:
            t0 = time.monotonic()
            try:
                event = await conn.head()
            except (TimeoutError, h11.RemoteProtocolError) as e:
                status, why = (408, "request head not complete in time") if isinstance(e, TimeoutError) else (
                    e.error_status_hint, f"bad request: {e}")
                self._record(trial, method="", url=f"https://{tunnel.host}:{tunnel.port}" if tunnel else "",
                             host=tunnel.host if tunnel else "", status=status, allowed=False,
                             rule="unparsable request", duration_s=time.monotonic() - t0, error=why)
                await conn.reply(status, f"reclaim egress: {why}")
                return
            if not isinstance(event, h11.Request):
                return  # idle, or closed
            if not await self._request(trial, conn, event, tunnel, time.monotonic()):
                return
            if conn.h11.our_state is h11.MUST_CLOSE or conn.h11.their_state is not h11.DONE:
                return
            conn.h11.start_next_cycle()

    async def _request(self, trial: _Trial, conn: Conn, req: h11.Request, tunnel: Tunnel | None,
                       t0: float) -> bool:
        """Decide, forward and record one request; False when the connection must end."""
        method, target = req.method.decode("ascii", "replace"), req.target.decode("ascii", "replace")
        headers = [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in req.headers]
        if method == "CONNECT" and tunnel is None and req.http_version in (b"1.0", b"1.1"):
            return await self._connect(trial, conn, target, t0)
        url, why, status, other = check_request(req, method, target, headers, tunnel, self.limits)
        d = trial.policy.decide(method, str(url)) if url else None
        # a Host header or SNI naming another host: recorded with that host's material, if any
        alt = trial.policy.decide(method, str(url._replace(host=other))) if url and other else None
        rec = {"method": method, "url": str(url) if url else target[:2000], "host": url.host if url else "",
               "raw": target[:2000] if url and str(url) != target else None,
               "forbidden": (d and d.forbidden) or (alt and alt.forbidden) or None}
        if d is not None and not d.allowed:
            why, status, rec["rule"] = d.rule, 403, d.rule
        elif why is not None:
            rec.update(rule=why, error=why)
        if why is not None:
            self._record(trial, **rec, status=status, allowed=False, duration_s=time.monotonic() - t0)
            await conn.reply(status, f"reclaim egress policy '{trial.policy.name}': {why}")
            return False
        assert url is not None and d is not None  # check_request gives a url wherever it gives no reason
        return await self._forward(trial, conn, method, url, headers, {**rec, "allowed": True, "rule": d.rule}, t0)

    async def _connect(self, trial: _Trial, conn: Conn, target: str, t0: float) -> bool:
        host, port = hostport(target)
        d = trial.policy.connect(host, port) if host else Decision(
            allowed=False, rule=f"bad CONNECT target {target[:200]!r}")
        rec = {"method": "CONNECT", "url": f"https://{host or target[:200]}:{port}", "host": host,
               "status": 200, "allowed": d.allowed, "rule": d.rule, "forbidden": d.forbidden}
        try:
            end = await conn.next(self.limits.header_timeout_s)
        except (TimeoutError, h11.RemoteProtocolError):
            end = None
        if not d.allowed or not isinstance(end, h11.EndOfMessage) or conn.h11.trailing_data[0]:
            rec["status"] = status = 403 if not d.allowed else 400
            why = d.rule if not d.allowed else "a CONNECT with a body, or data before the tunnel was established"
            self._record(trial, **rec, error=None if not d.allowed else why, duration_s=time.monotonic() - t0)
            await conn.reply(status, f"reclaim egress policy '{trial.policy.name}': {why}")
            return False
        # no read before start_tls: a ClientHello read into the plain buffer is lost to the TLS layer
        if isinstance(transport := conn.writer.transport, asyncio.ReadTransport):  # start_tls resumes it
            transport.pause_reading()
        await conn.send(h11.Response(status_code=200, headers=[], reason=b"Connection established"))
        error = None
        try:
            await conn.writer.start_tls(self.ca.server_context(host),
                                        ssl_handshake_timeout=self.limits.header_timeout_s)
            sslobj = conn.writer.get_extra_info("ssl_object")
            sni = getattr(sslobj, "reclaim_sni", None)
            inner = Conn(conn.reader, conn.writer, self.limits)
            await self._serve(trial, inner, Tunnel(host, port, sni))
        except (TimeoutError, OSError, ssl.SSLError, ConnectionError) as e:
            error = f"tunnel: {type(e).__name__}: {e}"
        except Closed as e:
            error = str(e)
        finally:
            self._record(trial, **rec, error=error, duration_s=time.monotonic() - t0)
        return False

    async def _forward(self, trial: _Trial, conn: Conn, method: str, url: Url,
                       headers: list[tuple[str, str]], rec: dict, t0: float) -> bool:
        tokens = {t.strip() for k, v in headers if k == "connection" for t in v.lower().split(",")}
        out = [(k, v) for k, v in headers if k not in HOP and k not in tokens]
        sizes = {"up": 0, "down": 0}
        waiting = conn.h11.they_are_waiting_for_100_continue

        async def body():
            if waiting:
                await conn.send(h11.InformationalResponse(status_code=100, headers=[]))
            while True:
                try:
                    ev = await conn.next(self.limits.idle_timeout_s)
                except h11.RemoteProtocolError as e:
                    raise Closed(f"bad request body: {e}") from None
                if isinstance(ev, h11.Data):
                    sizes["up"] += len(ev.data)
                    yield bytes(ev.data)
                elif isinstance(ev, h11.EndOfMessage):
                    return
                else:
                    raise Closed("client closed during the request body")

        framed = any(k in ("content-length", "transfer-encoding") for k, _ in headers)
        cache = self.package_cache if self.package_cache and not framed and self.package_cache.cacheable(
            method, str(url), headers) else None
        keep, error = True, None
        try:
            if not framed:
                await conn.next(self.limits.idle_timeout_s)  # its EndOfMessage
            if cache is not None and (hit := cache.lookup(str(url))) is not None:
                rec["status"], rec["rule"] = 200, rec["rule"] + "; served from the package cache"
                sizes["down"] = await serve_cached(conn.send, *hit)
                return True
            request = self._http().build_request(method, str(url), headers=out,
                                                 content=body() if framed else None)
            for k in ("accept", "accept-encoding", "user-agent"):  # httpx's defaults: the client's own only
                if k not in {n for n, _ in headers}:
                    request.headers.pop(k, None)
            try:
                resp = await self._http().send(request, stream=True)
            except httpx.HTTPError as e:
                rec["status"], error = 502, f"upstream: {type(e).__name__}: {e}"
                await conn.reply(502, f"reclaim egress: {error}")
                return False
            keeper = None
            try:
                rec["status"] = resp.status_code
                rh = [(k, v) for k, v in resp.headers.multi_items() if k.lower() not in HOP]
                await conn.send(h11.Response(status_code=resp.status_code, headers=rh,
                                             reason=resp.reason_phrase.encode("latin-1", "replace")))
                keeper = cache.writer(str(url), resp.headers.get("content-type", "")) if (
                    cache is not None and resp.status_code == 200 and "content-encoding" not in resp.headers) else None
                async for chunk in resp.aiter_raw():
                    sizes["down"] += len(chunk)
                    if keeper is not None:
                        keeper.write(chunk)
                    await conn.send(h11.Data(data=chunk))
                await conn.send(h11.EndOfMessage())
                if keeper is not None:
                    length = resp.headers.get("content-length")
                    keeper.finish(int(length) if length and length.isdigit() else None)
                    keeper = None
            except httpx.HTTPError as e:
                keep, error = False, f"upstream broke off: {type(e).__name__}: {e}"
            finally:
                if keeper is not None:  # broken off: what arrived is not the file
                    keeper.finish(-1)
                await resp.aclose()
        except Closed as e:
            keep, error = False, str(e)
        except TimeoutError:
            keep, error = False, "client idle in the request body"
        except asyncio.CancelledError:
            error = "cut off: the trial was closed"
            raise
        finally:
            self._record(trial, **rec, bytes_up=sizes["up"], bytes_down=sizes["down"],
                         duration_s=time.monotonic() - t0, error=error)
        return keep
