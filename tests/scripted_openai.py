"""A real HTTP server on localhost speaking the OpenAI chat-completions protocol, scripted per test.

Each request takes the next scripted reply: a fixed answer, an HTTP error, a delay, or a
function of the request (a "model" that reads what it was sent). Every request is recorded.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    content: str | dict | None = None
    status: int = 200
    delay: float = 0.0
    tokens: tuple[int, int] = (1000, 100)
    message: str = ""


Script = Reply | Callable[[dict], Reply]


class ScriptedOpenAI:
    def __init__(self, json_schema: bool = True, json_object: bool = True):
        self.script: deque[Script] = deque()
        self.requests: list[dict] = []
        self.json_schema, self.json_object = json_schema, json_object
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def push(self, *replies: Script) -> ScriptedOpenAI:
        self.script.extend(replies)
        return self

    def always(self, reply: Script, n: int = 50) -> ScriptedOpenAI:
        return self.push(*([reply] * n))

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next(self, body: dict) -> Reply:
        fmt = (body.get("response_format") or {}).get("type")
        if (fmt == "json_schema" and not self.json_schema) or (fmt == "json_object" and not self.json_object):
            return Reply(status=400, message=f"response_format type {fmt} is not supported by this server")
        if not self.script:
            return Reply(status=500, message="script exhausted")
        item = self.script.popleft()
        return item(body) if callable(item) else item

    def _handler(self):
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                owner.requests.append({"path": self.path, "body": body,
                                       "auth": self.headers.get("Authorization", "")})
                if self.path.rstrip("/") != "/v1/chat/completions":
                    return self._send(404, {"error": {"message": "not found", "type": "invalid_request_error"}})
                reply = owner._next(body)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.status != 200:
                    kind = "rate_limit_error" if reply.status == 429 else "invalid_request_error" \
                        if reply.status < 500 else "server_error"
                    return self._send(reply.status, {"error": {"message": reply.message or "scripted error",
                                                               "type": kind}})
                content = reply.content if isinstance(reply.content, str) else json.dumps(reply.content)
                self._send(200, {
                    "id": f"chatcmpl-{len(owner.requests)}", "object": "chat.completion",
                    "created": int(time.time()), "model": body.get("model", "scripted"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": reply.tokens[0], "completion_tokens": reply.tokens[1],
                              "total_tokens": sum(reply.tokens)}})

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        return Handler
