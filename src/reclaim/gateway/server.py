"""The model gateway: an aiohttp proxy between agents and providers, one per run.

Agents authenticate with their trial's token; the provider keys stay in this process. Every
call is forwarded (streams pass through as they come), metered, charged to the trial's
budget and recorded in its trace. An agent that hangs up mid-answer is still charged: the
gateway stops writing to it but reads the upstream's answer to its end and meters that.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import shutil
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import aiohttp
from aiohttp import web
from pydantic import BaseModel, Field

from reclaim.budget import cost, load_prices
from reclaim.gateway.accounts import Account, BudgetSpent, model_of
from reclaim.gateway.usage import StreamUsage, from_json
from reclaim.tempdirs import owned_tempdir
from reclaim.trace import TraceWriter

PASSED_ON = {"retry-after", "retry-after-ms"}
RATE_LIMIT_PREFIXES = ("x-ratelimit-", "anthropic-ratelimit-")
"""The provider's headers an agent acts on (when to retry, what is left of its rate limits): passed on
unchanged; every other header stays between the gateway and the provider."""
STOP_WAIT_S = 10.0
"""How long stop() waits for calls still in flight (a slow provider) before it cuts them off."""

SOCKET_NAME = "gateway.sock"
FORWARDER = "forward.py"
ANTHROPIC_VERSION = "2023-06-01"


class Upstreams(BaseModel):
    """Where calls go. Recorded in run.json; the keys are read from the environment, never stored."""

    openai_base_url: str = Field(default_factory=lambda: os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1"))
    anthropic_base_url: str = Field(default_factory=lambda: os.environ.get("ANTHROPIC_BASE_URL", "https://api.anthropic.com"))
    gemini_base_url: str = Field(default_factory=lambda: os.environ.get(
        "GOOGLE_GEMINI_BASE_URL", "https://generativelanguage.googleapis.com"))
    prices_file: str | None = None


def _error(protocol: str, status: int, kind: str, message: str) -> web.Response:
    body: dict[str, object]
    if protocol == "gemini":
        body = {"error": {"code": status, "message": message, "status": kind.upper()}}
    elif protocol == "anthropic":
        body = {"type": "error", "error": {"type": kind, "message": message}}
    else:
        body = {"error": {"message": message, "type": kind, "code": kind}}
    return web.json_response(body, status=status)


class Gateway:
    def __init__(self, upstreams: Upstreams | None = None):
        self.upstreams = upstreams or Upstreams()
        self._keys = {"openai": os.environ.get("OPENAI_API_KEY", ""),
                      "anthropic": os.environ.get("ANTHROPIC_API_KEY", ""),
                      "gemini": os.environ.get("GEMINI_API_KEY", os.environ.get("GOOGLE_API_KEY", ""))}
        self.prices = load_prices(self.upstreams.prices_file)
        self.accounts: dict[str, Account] = {}
        self.socket_dir = owned_tempdir("gw")  # short: socket paths are limited
        self.socket_dir.chmod(0o755)  # sandboxes run as an unprivileged user: it must reach the socket
        self.socket = self.socket_dir / SOCKET_NAME
        shutil.copyfile(Path(__file__).with_name("forward.py"), self.socket_dir / FORWARDER)
        self.url = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self._calls: set[asyncio.Task] = set()  # forwarding tasks, held until their call is metered
        self._sites: dict[str, web.SockSite] = {}  # by token: where one trial's sandboxes reach it
        self._lock = threading.Lock()
        self._stopping = False
        # one writer: records land in the order the calls were answered
        self._recorder = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reclaim-gw-record")

    # lifecycle ---------------------------------------------------------------------------

    def start(self) -> Gateway:
        ready = threading.Event()
        loop = self._loop = asyncio.new_event_loop()

        def serve() -> None:
            asyncio.set_event_loop(loop)
            loop.run_until_complete(self._start())
            ready.set()
            loop.run_forever()

        self._thread = threading.Thread(target=serve, name="reclaim-gateway", daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    async def _start(self) -> None:
        app = web.Application(client_max_size=64 << 20)
        app.router.add_post("/v1/chat/completions", self._proxy)
        app.router.add_post("/v1/responses", self._proxy)
        app.router.add_post("/v1/messages", self._proxy)
        app.router.add_get("/v1/models", self._proxy)
        app.router.add_post("/v1beta/models/{action}", self._proxy)  # Gemini: models/NAME:generateContent
        app.router.add_get("/v1beta/models", self._proxy)
        self._session = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=30, sock_read=600),
            connector=aiohttp.TCPConnector(limit=256))
        # a client that hangs up must not cancel the metering of its call (the default since aiohttp
        # 3.9, said out loud; _proxy shields the forwarding as well)
        self._runner = web.AppRunner(app, access_log=None, handler_cancellation=False)
        await self._runner.setup()
        tcp = web.TCPSite(self._runner, "127.0.0.1", 0)
        await tcp.start()
        await web.UnixSite(self._runner, str(self.socket)).start()
        self.socket.chmod(0o666)
        server = tcp._server
        assert isinstance(server, asyncio.Server)  # what aiohttp's TCPSite listens with
        port = server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"

    def stop(self) -> None:
        if self._loop is None:
            return

        async def down() -> None:
            await self._http().close()
            await self._web().cleanup()

        with self._lock:  # what trials scheduled before this runs first; nothing after
            self._stopping = True
            done = asyncio.run_coroutine_threadsafe(down(), self._loop)
        try:
            done.result(STOP_WAIT_S)
        except (TimeoutError, concurrent.futures.TimeoutError):  # a provider still answering a call whose
            done.cancel()  # trial has ended (its budget ran out): the run's end does not wait on it, nor fail
        self._loop.call_soon_threadsafe(self._loop.stop)
        assert self._thread is not None  # started with the loop
        self._thread.join(10)
        self._recorder.shutdown(wait=True)
        self._loop = None
        shutil.rmtree(self.socket_dir, ignore_errors=True)

    def _http(self) -> aiohttp.ClientSession:
        """The upstream session (made on the loop by start())."""
        assert self._session is not None, "the model gateway is not started"
        return self._session

    def _web(self) -> web.AppRunner:
        """The app's runner (made on the loop by start())."""
        assert self._runner is not None, "the model gateway is not started"
        return self._runner

    def __enter__(self) -> Gateway:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # accounts ----------------------------------------------------------------------------

    def open_account(self, trial_id: str, trace: TraceWriter, calls_dir: Path, *,
                     max_tokens: int | None = None, max_usd: float | None = None,
                     models: frozenset[str] | None = None, listener: socket.socket | None = None) -> Account:
        """A trial's account; with ``listener`` (a socket listening in the trial's own network),
        the gateway also serves there until the account is closed."""
        acct = Account(trial_id, trace, calls_dir, max_tokens=max_tokens, max_usd=max_usd, models=models)
        if listener is not None:
            async def serve() -> web.SockSite:
                site = web.SockSite(self._web(), listener)
                await site.start()
                return site

            self._sites[acct.token] = self._on_loop(serve()).result(10)
        self.accounts[acct.token] = acct
        return acct

    def _on_loop(self, coro):
        """Schedule ``coro`` on the gateway's loop, ahead of a stop() that comes later; an error
        once the gateway has stopped (its cleanup closed every site)."""
        with self._lock:
            if self._stopping:
                coro.close()
                raise RuntimeError("the model gateway has stopped")
            assert self._loop is not None, "the model gateway is not started"
            return asyncio.run_coroutine_threadsafe(coro, self._loop)

    def close_account(self, acct: Account) -> None:
        """Stop accepting the trial's token and wait until every call it made is on the record."""
        self.accounts.pop(acct.token, None)
        site = self._sites.pop(acct.token, None)
        if site is not None:
            try:
                self._on_loop(site.stop()).result(10)
            except RuntimeError:  # the run is ending (Ctrl-C): stop() closes every site itself
                pass
        acct.settle()

    # proxy -------------------------------------------------------------------------------

    async def _proxy(self, request: web.Request) -> web.StreamResponse:
        protocol = ("anthropic" if request.path == "/v1/messages"
                    else "gemini" if request.path.startswith("/v1beta/") else "openai")
        auth = request.headers.get("Authorization", "")
        token = (auth[7:] if auth.startswith("Bearer ") else request.headers.get("x-api-key")
                 or request.headers.get("x-goog-api-key") or request.query.get("key", ""))
        acct = self.accounts.get(token)
        if acct is None:
            return _error(protocol, 401, "authentication_error",
                          "reclaim gateway: unknown or expired trial token")
        try:
            acct.check()
        except BudgetSpent as e:
            return _error(protocol, 403, "budget_exhausted", str(e))
        acct.in_flight += 1  # only this event loop's thread changes it

        async def metered() -> web.StreamResponse:
            try:
                return await self._forward(request, acct, protocol)
            finally:
                acct.in_flight -= 1

        # its own task, shielded: cancelling this handler (the client went away) leaves the call
        # to run to its end, be metered and recorded
        task = asyncio.ensure_future(metered())
        self._calls.add(task)
        task.add_done_callback(self._calls.discard)
        return await asyncio.shield(task)

    async def _forward(self, request: web.Request, acct: Account, protocol: str) -> web.StreamResponse:
        body = await request.read()
        payload = _json(body)
        stream = bool(payload.get("stream")) or ":streamGenerateContent" in request.path
        if stream and request.path == "/v1/chat/completions":
            payload.setdefault("stream_options", {})["include_usage"] = True  # usage in the last chunk
            body = json.dumps(payload).encode()
        asked = str(payload.get("model", "")) or _gemini_model(request.path)
        if request.method == "POST" and not acct.allows(asked):
            message = acct.refusal(asked)
            acct.pending.append(self._recorder.submit(
                acct.record, protocol=protocol, endpoint=request.path, model=asked, stream=stream, status=403,
                tokens_in=0, tokens_out=0, latency_s=0.0, cost_usd=0.0, request=body, response=message.encode(),
                error=message))
            return _error(protocol, 403, "permission_error", message)
        url, headers = self._route(protocol, request)
        t0 = time.perf_counter()
        raw = bytearray()
        tokens, estimated, meter = (0, 0), False, None
        status, error = 502, None
        resp = web.StreamResponse()
        client = _Client(request, resp)
        try:
            async with self._http().request(request.method, url, data=body or None, headers=headers) as up:
                status = up.status
                resp.set_status(up.status)
                resp.content_type = up.content_type or "application/json"
                for name, value in up.headers.items():  # when to come back: an agent that honours it needs it
                    if name.lower() in PASSED_ON or name.lower().startswith(RATE_LIMIT_PREFIXES):
                        resp.headers[name] = value
                await client.send()
                meter = StreamUsage(protocol) if stream and up.status == 200 else None
                # read to the end even once the client is gone: the answer is metered, not the delivery
                async for chunk in up.content.iter_any():
                    raw += chunk
                    if meter is not None:
                        meter.feed(chunk)
                    await client.send(chunk)
                await client.send(eof=True)
                if meter is None and up.status == 200:
                    tokens = from_json(protocol, _json(bytes(raw)))
                elif meter is None:
                    error = bytes(raw[:500]).decode("utf-8", "replace")
        except (TimeoutError, aiohttp.ClientError) as e:
            error = f"upstream unreachable: {str(e).strip() or 'no answer in time'}"
            if not resp.prepared:
                resp = _error(protocol, 502, "upstream_error", f"reclaim gateway: {error}")
        if meter is not None:  # a stream, whole or cut off: its usage, or an estimate
            tokens_in, tokens_out, estimated = meter.result(body)
            tokens = (tokens_in, tokens_out)
        error = _note(error, client.gone, estimated)
        latency = time.perf_counter() - t0
        model = str(payload.get("model", "")) or _gemini_model(request.path) or model_of(bytes(raw))
        if request.method == "POST":
            price = cost(self.prices, model, *tokens)
            # recorded after the answer went out, so the disk never slows the agent's call down
            acct.pending.append(self._recorder.submit(
                acct.record, protocol=protocol, endpoint=request.path, model=model, stream=stream,
                status=status, tokens_in=tokens[0], tokens_out=tokens[1], latency_s=latency,
                cost_usd=price, request=body, response=bytes(raw), error=error))
        return resp

    def _route(self, protocol: str, request: web.Request) -> tuple[str, dict[str, str]]:
        headers = {"Content-Type": "application/json", "Accept": request.headers.get("Accept", "*/*")}
        if protocol == "gemini":
            headers["x-goog-api-key"] = self._keys["gemini"]
            query = "&".join(f"{k}={v}" for k, v in request.query.items() if k != "key")
            return self.upstreams.gemini_base_url.rstrip("/") + request.path + (f"?{query}" if query else ""), headers
        if protocol == "anthropic":
            base = self.upstreams.anthropic_base_url.rstrip("/")
            headers["x-api-key"] = self._keys["anthropic"]
            headers["anthropic-version"] = request.headers.get("anthropic-version", ANTHROPIC_VERSION)
            if "anthropic-beta" in request.headers:
                headers["anthropic-beta"] = request.headers["anthropic-beta"]
            return base + request.path, headers
        base = self.upstreams.openai_base_url.rstrip("/")
        headers["Authorization"] = f"Bearer {self._keys['openai']}"
        return base + request.path.removeprefix("/v1"), headers


class _Client:
    """The agent's end of a call. The first write that fails (it hung up: the connection was reset,
    closed, or its handler cancelled) ends the writing; the call goes on, to be metered."""

    def __init__(self, request: web.Request, resp: web.StreamResponse):
        self.request, self.resp = request, resp
        self.gone: str | None = None

    async def send(self, chunk: bytes = b"", *, eof: bool = False) -> None:
        if self.gone is not None:
            return
        try:
            if not self.resp.prepared:
                await self.resp.prepare(self.request)
            if chunk:
                await self.resp.write(chunk)
            if eof:
                await self.resp.write_eof()
        except (OSError, RuntimeError) as e:  # aiohttp's ClientConnectionResetError is an OSError
            self.gone = f"{type(e).__name__}: {e}"


def _note(error: str | None, gone: str | None, estimated: bool) -> str | None:
    notes = [error] if error else []
    if gone is not None:
        notes.append(f"client disconnected before the answer was delivered ({gone}); "
                     "the upstream's answer was read to its end and metered")
    if estimated:
        notes.append("tokens estimated: the stream ended without its usage, so ceil(characters / 4) "
                     "of the streamed text and of the request")
    return "; ".join(notes) or None


def _gemini_model(path: str) -> str:
    """'/v1beta/models/gemini-2.5-pro:generateContent' -> 'gemini-2.5-pro'."""
    if not path.startswith("/v1beta/models/"):
        return ""
    return path.removeprefix("/v1beta/models/").split(":", 1)[0]


def _json(body: bytes) -> dict:
    try:
        data = json.loads(body) if body else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
