"""A real HTTP server on localhost that plays a model provider.

It speaks the OpenAI API (chat completions, responses, models), the Anthropic Messages API
(with its token counting) and the Gemini API, each plain or streamed as server-sent events
(agents/scripted/wire.py). Each request takes the next reply of its script: a fixed answer, an
HTTP error, a delay, or a function of the request (a player: agents/scripted/player.py). Every
request is recorded, and every answer's usage (``served``), so what a gateway metered can be
checked against what was served.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from reclaim.agents.scripted.wire import BODIES, STREAMS, Reply

Script = Reply | Callable[[dict], Reply]
PATHS = {"/v1/chat/completions": "chat", "/v1/messages": "anthropic", "/v1/responses": "responses",
         "/chat/completions": "chat", "/responses": "responses"}


@dataclass(frozen=True)
class Served:
    """One answer as it went out: its protocol, the model asked for, and the usage it stated."""

    protocol: str
    model: str
    stream: bool
    tokens_in: int
    tokens_out: int
    seconds: float = 0.0
    """From the request's arrival to its answer made (the scripted model's own time, sending aside)."""


def protocol_of(path: str) -> str | None:
    """'chat', 'responses', 'anthropic' or 'gemini' for a generation endpoint, else None."""
    path = path.split("?")[0].rstrip("/")
    if path.startswith("/v1beta/models/") and path.endswith((":generateContent", ":streamGenerateContent")):
        return "gemini"
    return PATHS.get(path)


class ScriptedModel:
    """``ScriptedModel().always(player)``; ``.url`` for OpenAI clients, ``.base`` for the others."""

    def __init__(self, json_schema: bool = True, json_object: bool = True, port: int = 0):
        self.script: deque[Script] = deque()
        self.requests: list[dict] = []
        self.served: list[Served] = []
        self.json_schema, self.json_object = json_schema, json_object
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def url(self) -> str:
        return self.base + "/v1"

    def push(self, *replies: Script) -> ScriptedModel:
        self.script.extend(replies)
        return self

    def always(self, reply: Script, n: int = 50) -> ScriptedModel:
        return self.push(*([reply] * n))

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> ScriptedModel:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def next_reply(self, body: dict, protocol: str) -> Reply:
        fmt = (body.get("response_format") or {}).get("type")
        if (fmt == "json_schema" and not self.json_schema) or (fmt == "json_object" and not self.json_object):
            return Reply(status=400, message=f"response_format type {fmt} is not supported by this server")
        with self._lock:
            if not self.script:
                return Reply(status=500, message="script exhausted")
            item = self.script.popleft()
        body = {**body, "_protocol": protocol}
        return item(body) if callable(item) else item

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # one answer, no 40 ms wait for a delayed ACK

            def log_message(self, *args):
                pass

            def _record(self, body: dict) -> None:
                owner.requests.append({"path": self.path, "body": body,
                                       "auth": self.headers.get("Authorization", ""),
                                       "x-api-key": self.headers.get("x-api-key", ""),
                                       "x-goog-api-key": self.headers.get("x-goog-api-key", "")})

            def do_GET(self):
                self._record({})
                path = self.path.split("?")[0].rstrip("/")
                if path in ("/v1/models", "/models", "/v1beta/models"):
                    return self._json(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}],
                                            "models": [{"name": "models/scripted"}]})
                self._json(404, {"error": {"message": "not found"}})

            def do_POST(self):
                t0 = time.perf_counter()
                try:
                    body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                except ValueError:
                    return self._json(400, {"error": {"message": "the body is not JSON"}})
                self._record(body)
                path = self.path.split("?")[0].rstrip("/")
                if path == "/v1/messages/count_tokens":
                    return self._json(200, {"input_tokens": max(1, len(json.dumps(body)) // 4)})
                kind = protocol_of(path)
                if kind is None:
                    return self._json(404, {"error": {"message": "not found", "type": "invalid_request_error"}})
                reply = owner.next_reply(body, kind)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.status != 200:
                    err = "rate_limit_error" if reply.status == 429 else "invalid_request_error" \
                        if reply.status < 500 else "server_error"
                    return self._json(reply.status, {"error": {"message": reply.message or "scripted error",
                                                               "type": err}})
                model = (path.removeprefix("/v1beta/models/").split(":")[0] if kind == "gemini"
                         else str(body.get("model", "scripted")))
                stream = bool(body.get("stream")) or path.endswith(":streamGenerateContent")
                events = list(STREAMS[kind](reply, model, body)) if stream else []
                payload = {} if stream else BODIES[kind](reply, model)
                owner.served.append(Served(kind, model, stream, *reply.tokens, time.perf_counter() - t0))
                if stream:
                    return self._sse(events, reply.pace)
                self._json(200, payload)

            def _json(self, status: int, payload: dict) -> None:
                self._send(status, "application/json", json.dumps(payload).encode())

            def _sse(self, events: list[str], pace: float = 0.0) -> None:
                self._send(200, "text/event-stream", [e.encode() for e in events], pace)

            def _send(self, status: int, ctype: str, data: bytes | list[bytes], pace: float = 0.0) -> None:
                parts = data if isinstance(data, list) else [data]
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(sum(map(len, parts))))
                    self.end_headers()
                    if not pace:
                        self.wfile.write(b"".join(parts))
                    for part in parts if pace else []:
                        self.wfile.write(part)
                        self.wfile.flush()
                        time.sleep(pace)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        return Handler
