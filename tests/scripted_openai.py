"""A real HTTP server on localhost that plays a model provider, scripted per test.

It speaks the OpenAI API (chat completions, responses, models) and the Anthropic Messages API,
each plain or streamed as server-sent events. Each request takes the next scripted reply: a
fixed answer, an HTTP error, a delay, or a function of the request (a "model" that reads what
it was sent). A streamed reply can be paced (its events sent one at a time) and can leave out
its usage, as some servers do. Every request is recorded.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    content: str | dict | None = None
    tool_calls: list[dict] = field(default_factory=list)  # [{"name": ..., "arguments": {...}}]
    status: int = 200
    delay: float = 0.0
    tokens: tuple[int, int] = (1000, 100)
    message: str = ""
    pace: float = 0.0  # streamed: seconds between events, each sent on its own
    usage: bool = True  # streamed: False leaves the usage out (chat's usage chunk, Anthropic's message_delta)

    @property
    def text(self) -> str:
        if self.content is None:
            return ""
        return self.content if isinstance(self.content, str) else json.dumps(self.content)


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
    def base(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def url(self) -> str:
        return self.base + "/v1"

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
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # one answer, no 40 ms wait for a delayed ACK

            def log_message(self, *args):  # keep test output clean
                pass

            def do_GET(self):
                owner.requests.append({"path": self.path, "body": {}, "auth": self.headers.get("Authorization", "")})
                if self.path.rstrip("/") == "/v1/models":
                    return self._json(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})
                self._json(404, {"error": {"message": "not found"}})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                owner.requests.append({"path": self.path, "body": body,
                                       "auth": self.headers.get("Authorization", ""),
                                       "x-api-key": self.headers.get("x-api-key", ""),
                                       "x-goog-api-key": self.headers.get("x-goog-api-key", "")})
                path = self.path.split("?")[0].rstrip("/")
                if path.startswith("/v1beta/models/") and ":" in path:  # Gemini generateContent
                    reply = owner._next(body)
                    model = path.removeprefix("/v1beta/models/").split(":")[0]
                    if path.endswith(":streamGenerateContent"):
                        return self._sse(list(_gemini_stream(reply, model)), reply.pace)
                    return self._json(200, _gemini_body(reply, model))
                if path not in ("/v1/chat/completions", "/v1/messages", "/v1/responses"):
                    return self._json(404, {"error": {"message": "not found", "type": "invalid_request_error"}})
                reply = owner._next(body)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.status != 200:
                    kind = "rate_limit_error" if reply.status == 429 else "invalid_request_error" \
                        if reply.status < 500 else "server_error"
                    return self._json(reply.status, {"error": {"message": reply.message or "scripted error",
                                                               "type": kind}})
                model = body.get("model", "scripted")
                kind = {"/v1/chat/completions": "chat", "/v1/messages": "anthropic", "/v1/responses": "responses"}[path]
                if body.get("stream"):
                    return self._sse(list(STREAMS[kind](reply, model, body)), reply.pace)
                self._json(200, BODIES[kind](reply, model))

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


def _chat_body(r: Reply, model: str) -> dict:
    msg: dict = {"role": "assistant", "content": r.text or None}
    if r.tool_calls:
        msg["tool_calls"] = [{"id": f"call_{i}", "type": "function",
                              "function": {"name": t["name"], "arguments": json.dumps(t["arguments"])}}
                             for i, t in enumerate(r.tool_calls)]
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls" if r.tool_calls else "stop"}],
            "usage": {"prompt_tokens": r.tokens[0], "completion_tokens": r.tokens[1], "total_tokens": sum(r.tokens)}}


def _data(obj) -> str:
    return f"data: {json.dumps(obj)}\n\n"


def _chat_stream(r: Reply, model: str, body: dict):
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": int(time.time()), "model": model}
    yield _data({**head, "choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]})
    text = r.text
    for i in range(0, len(text), 7):
        yield _data({**head, "choices": [{"index": 0, "delta": {"content": text[i:i + 7]}, "finish_reason": None}]})
    for i, t in enumerate(r.tool_calls):
        args = json.dumps(t["arguments"])
        yield _data({**head, "choices": [{"index": 0, "finish_reason": None, "delta": {"tool_calls": [
            {"index": i, "id": f"call_{i}", "type": "function", "function": {"name": t["name"], "arguments": ""}}]}}]})
        for j in range(0, len(args), 11):
            yield _data({**head, "choices": [{"index": 0, "finish_reason": None, "delta": {"tool_calls": [
                {"index": i, "function": {"arguments": args[j:j + 11]}}]}}]})
    finish = "tool_calls" if r.tool_calls else "stop"
    yield _data({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    if r.usage and (body.get("stream_options") or {}).get("include_usage"):
        yield _data({**head, "choices": [], "usage": {"prompt_tokens": r.tokens[0], "completion_tokens": r.tokens[1],
                                                      "total_tokens": sum(r.tokens)}})
    yield "data: [DONE]\n\n"


def _anthropic_body(r: Reply, model: str) -> dict:
    content = ([{"type": "text", "text": r.text}] if r.text else []) + [
        {"type": "tool_use", "id": f"toolu_{i}", "name": t["name"], "input": t["arguments"]}
        for i, t in enumerate(r.tool_calls)]
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": model, "content": content,
            "stop_reason": "tool_use" if r.tool_calls else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": r.tokens[0], "output_tokens": r.tokens[1]}}


def _event(name: str, obj: dict) -> str:
    return f"event: {name}\ndata: {json.dumps(obj)}\n\n"


def _anthropic_stream(r: Reply, model: str, body: dict):
    msg = {**_anthropic_body(r, model), "content": [], "stop_reason": None,
           "usage": {"input_tokens": r.tokens[0], "output_tokens": 1}}
    yield _event("message_start", {"type": "message_start", "message": msg})
    idx = 0
    if r.text:
        yield _event("content_block_start", {"type": "content_block_start", "index": 0,
                                             "content_block": {"type": "text", "text": ""}})
        for i in range(0, len(r.text), 7):
            yield _event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                 "delta": {"type": "text_delta", "text": r.text[i:i + 7]}})
        yield _event("content_block_stop", {"type": "content_block_stop", "index": 0})
        idx = 1
    for i, t in enumerate(r.tool_calls):
        yield _event("content_block_start", {"type": "content_block_start", "index": idx + i, "content_block": {
            "type": "tool_use", "id": f"toolu_{i}", "name": t["name"], "input": {}}})
        args = json.dumps(t["arguments"])
        for j in range(0, len(args), 11):
            yield _event("content_block_delta", {"type": "content_block_delta", "index": idx + i,
                                                 "delta": {"type": "input_json_delta", "partial_json": args[j:j + 11]}})
        yield _event("content_block_stop", {"type": "content_block_stop", "index": idx + i})
    delta = {"type": "message_delta", "delta": {"stop_reason": "tool_use" if r.tool_calls else "end_turn"}}
    yield _event("message_delta", {**delta, "usage": {"output_tokens": r.tokens[1]}} if r.usage else delta)
    yield _event("message_stop", {"type": "message_stop"})


def _responses_body(r: Reply, model: str) -> dict:
    return {"id": "resp_1", "object": "response", "model": model, "status": "completed",
            "output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": r.text}]}],
            "usage": {"input_tokens": r.tokens[0], "output_tokens": r.tokens[1], "total_tokens": sum(r.tokens)}}


def _responses_stream(r: Reply, model: str, body: dict):
    for i in range(0, len(r.text), 7):
        yield _event("response.output_text.delta", {"type": "response.output_text.delta", "delta": r.text[i:i + 7]})
    yield _event("response.completed", {"type": "response.completed", "response": _responses_body(r, model)})


def _gemini_body(r: Reply, model: str, text: str | None = None, out: int | None = None) -> dict:
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": r.text if text is None else text}]},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": r.tokens[0],
                              "candidatesTokenCount": r.tokens[1] if out is None else out,
                              "totalTokenCount": sum(r.tokens)}, "modelVersion": model}


def _gemini_stream(r: Reply, model: str):
    pieces = [r.text[i:i + 7] for i in range(0, len(r.text), 7)] or [""]
    for n, piece in enumerate(pieces, 1):
        yield _data(_gemini_body(r, model, piece, out=round(r.tokens[1] * n / len(pieces))))


BODIES = {"chat": _chat_body, "anthropic": _anthropic_body, "responses": _responses_body}
STREAMS = {"chat": _chat_stream, "anthropic": _anthropic_stream, "responses": _responses_stream}
