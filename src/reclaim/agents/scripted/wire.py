"""A model's answer as each provider puts it on the wire, plain and streamed.

One ``Reply`` (text, tool calls, usage) becomes the body or the server-sent events of the OpenAI
Chat Completions and Responses APIs, the Anthropic Messages API and the Gemini API, in the
order and shape the providers send them: a client that parses the real provider's stream
parses these. Streams carry their usage where the provider puts it (Chat Completions only
when the request asks for it with ``stream_options.include_usage``).
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

PROTOCOLS = ("chat", "responses", "anthropic", "gemini")


@dataclass
class Call:
    """One tool call: the tool's name and its arguments (``kind`` 'local_shell': a Responses API
    built-in shell call, whose arguments are its action)."""

    name: str
    arguments: dict
    kind: str = "function"
    id: str = field(default_factory=lambda: secrets.token_hex(6))


@dataclass
class Reply:
    content: str | dict | None = None
    tool_calls: list[Call | dict] = field(default_factory=list)  # Call, or {"name": ..., "arguments": {...}}
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

    @property
    def calls(self) -> list[Call]:
        return [c if isinstance(c, Call) else Call(c["name"], c["arguments"], id=f"{i}")
                for i, c in enumerate(self.tool_calls)]


def _pieces(text: str, n: int) -> list[str]:
    return [text[i:i + n] for i in range(0, len(text), n)]


def _data(obj: dict) -> str:
    return f"data: {json.dumps(obj)}\n\n"


def _event(name: str, obj: dict) -> str:
    return f"event: {name}\ndata: {json.dumps(obj)}\n\n"


# OpenAI Chat Completions ------------------------------------------------------------------

def chat_body(r: Reply, model: str) -> dict:
    msg: dict = {"role": "assistant", "content": r.text or None}
    if r.tool_calls:
        msg["tool_calls"] = [{"id": f"call_{c.id}", "type": "function",
                              "function": {"name": c.name, "arguments": json.dumps(c.arguments)}} for c in r.calls]
    return {"id": "chatcmpl-" + secrets.token_hex(8), "object": "chat.completion", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "message": msg,
                                         "finish_reason": "tool_calls" if r.tool_calls else "stop"}],
            "usage": {"prompt_tokens": r.tokens[0], "completion_tokens": r.tokens[1], "total_tokens": sum(r.tokens)}}


def chat_stream(r: Reply, model: str, body: dict) -> Iterator[str]:
    head = {"id": "chatcmpl-" + secrets.token_hex(8), "object": "chat.completion.chunk",
            "created": int(time.time()), "model": model}

    def chunk(delta: dict, finish: str | None = None) -> str:
        return _data({**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    yield chunk({"role": "assistant", "content": ""})
    for piece in _pieces(r.text, 7):
        yield chunk({"content": piece})
    for i, c in enumerate(r.calls):
        yield chunk({"tool_calls": [{"index": i, "id": f"call_{c.id}", "type": "function",
                                     "function": {"name": c.name, "arguments": ""}}]})
        for piece in _pieces(json.dumps(c.arguments), 11):
            yield chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
    yield chunk({}, "tool_calls" if r.tool_calls else "stop")
    if r.usage and (body.get("stream_options") or {}).get("include_usage"):
        yield _data({**head, "choices": [], "usage": {"prompt_tokens": r.tokens[0], "completion_tokens": r.tokens[1],
                                                      "total_tokens": sum(r.tokens)}})
    yield "data: [DONE]\n\n"


# OpenAI Responses -------------------------------------------------------------------------

def _responses_items(r: Reply) -> list[dict]:
    items: list[dict] = []
    if r.text:
        items.append({"type": "message", "id": "msg_" + secrets.token_hex(8), "status": "completed",
                      "role": "assistant", "content": [{"type": "output_text", "text": r.text, "annotations": []}]})
    for c in r.calls:
        if c.kind == "local_shell":
            items.append({"type": "local_shell_call", "id": f"lsh_{c.id}", "call_id": f"call_{c.id}",
                          "status": "completed", "action": {"type": "exec", **c.arguments}})
        else:
            items.append({"type": "function_call", "id": f"fc_{c.id}", "call_id": f"call_{c.id}", "name": c.name,
                          "arguments": json.dumps(c.arguments), "status": "completed"})
    return items


def responses_body(r: Reply, model: str, rid: str | None = None) -> dict:
    return {"id": rid or "resp_" + secrets.token_hex(8), "object": "response", "created_at": int(time.time()),
            "model": model, "status": "completed", "output": _responses_items(r),
            "usage": {"input_tokens": r.tokens[0], "output_tokens": r.tokens[1], "total_tokens": sum(r.tokens),
                      "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens_details": {"reasoning_tokens": 0}}}


def responses_stream(r: Reply, model: str, body: dict) -> Iterator[str]:
    done = responses_body(r, model)
    seq = iter(range(1 << 30))

    def ev(kind: str, **fields) -> str:
        return _event(kind, {"type": kind, "sequence_number": next(seq), **fields})

    yield ev("response.created", response={**done, "status": "in_progress", "output": [], "usage": None})
    yield ev("response.in_progress", response={**done, "status": "in_progress", "output": [], "usage": None})
    for i, item in enumerate(done["output"]):
        if item["type"] == "message":
            yield ev("response.output_item.added", output_index=i, item={**item, "status": "in_progress",
                                                                         "content": []})
            part = {"type": "output_text", "text": "", "annotations": []}
            yield ev("response.content_part.added", item_id=item["id"], output_index=i, content_index=0, part=part)
            text = item["content"][0]["text"]
            for piece in _pieces(text, 7):
                yield ev("response.output_text.delta", item_id=item["id"], output_index=i, content_index=0,
                         delta=piece)
            yield ev("response.output_text.done", item_id=item["id"], output_index=i, content_index=0, text=text)
            yield ev("response.content_part.done", item_id=item["id"], output_index=i, content_index=0,
                     part={**part, "text": text})
        elif item["type"] == "function_call":
            yield ev("response.output_item.added", output_index=i, item={**item, "arguments": "",
                                                                         "status": "in_progress"})
            for piece in _pieces(item["arguments"], 11):
                yield ev("response.function_call_arguments.delta", item_id=item["id"], output_index=i, delta=piece)
            yield ev("response.function_call_arguments.done", item_id=item["id"], output_index=i,
                     arguments=item["arguments"])
        else:
            yield ev("response.output_item.added", output_index=i, item=item)
        yield ev("response.output_item.done", output_index=i, item=item)
    if r.usage:
        yield ev("response.completed", response=done)
    else:
        yield ev("response.completed", response={**done, "usage": None})


# Anthropic Messages -----------------------------------------------------------------------

def anthropic_body(r: Reply, model: str) -> dict:
    content = ([{"type": "text", "text": r.text}] if r.text else []) + [
        {"type": "tool_use", "id": f"toolu_{c.id}", "name": c.name, "input": c.arguments} for c in r.calls]
    return {"id": "msg_" + secrets.token_hex(8), "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": "tool_use" if r.tool_calls else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": r.tokens[0], "output_tokens": r.tokens[1],
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}


def anthropic_stream(r: Reply, model: str, body: dict) -> Iterator[str]:
    whole = anthropic_body(r, model)
    start = {**whole, "content": [], "stop_reason": None,
             "usage": {**whole["usage"], "output_tokens": 1}}
    yield _event("message_start", {"type": "message_start", "message": start})
    yield _event("ping", {"type": "ping"})
    for idx, block in enumerate(whole["content"]):
        if block["type"] == "text":
            yield _event("content_block_start", {"type": "content_block_start", "index": idx,
                                                 "content_block": {"type": "text", "text": ""}})
            for piece in _pieces(block["text"], 7):
                yield _event("content_block_delta", {"type": "content_block_delta", "index": idx,
                                                     "delta": {"type": "text_delta", "text": piece}})
        else:
            yield _event("content_block_start", {"type": "content_block_start", "index": idx,
                                                 "content_block": {**block, "input": {}}})
            for piece in _pieces(json.dumps(block["input"]), 11):
                yield _event("content_block_delta", {"type": "content_block_delta", "index": idx,
                                                     "delta": {"type": "input_json_delta", "partial_json": piece}})
        yield _event("content_block_stop", {"type": "content_block_stop", "index": idx})
    delta = {"type": "message_delta", "delta": {"stop_reason": whole["stop_reason"], "stop_sequence": None}}
    yield _event("message_delta", {**delta, "usage": {"output_tokens": r.tokens[1]}} if r.usage else delta)
    yield _event("message_stop", {"type": "message_stop"})


# Gemini -----------------------------------------------------------------------------------

def _gemini_parts(r: Reply, text: str | None = None, calls: bool = True) -> list[dict]:
    shown = r.text if text is None else text
    parts: list[dict] = [{"text": shown}] if shown or not r.tool_calls else []
    if calls:
        parts += [{"functionCall": {"name": c.name, "args": c.arguments}} for c in r.calls]
    return parts


def gemini_body(r: Reply, model: str, text: str | None = None, out: int | None = None,
                calls: bool = True, last: bool = True) -> dict:
    cand: dict = {"content": {"role": "model", "parts": _gemini_parts(r, text, calls)}, "index": 0}
    if last:
        cand["finishReason"] = "STOP"
    return {"candidates": [cand],
            "usageMetadata": {"promptTokenCount": r.tokens[0],
                              "candidatesTokenCount": r.tokens[1] if out is None else out,
                              "totalTokenCount": r.tokens[0] + (r.tokens[1] if out is None else out)},
            "modelVersion": model, "responseId": secrets.token_hex(8)}


def gemini_stream(r: Reply, model: str, body: dict) -> Iterator[str]:
    """Each chunk carries the usage so far; the last one its function calls and finishReason."""
    pieces = _pieces(r.text, 7) or [""]
    for n, piece in enumerate(pieces, 1):
        last = n == len(pieces)
        yield _data(gemini_body(r, model, piece, out=round(r.tokens[1] * n / len(pieces)) if r.usage else 0,
                                calls=last, last=last))


BODIES: dict[str, Callable[[Reply, str], dict]] = {
    "chat": chat_body, "responses": responses_body, "anthropic": anthropic_body, "gemini": gemini_body}
STREAMS: dict[str, Callable[[Reply, str, dict], Iterator[str]]] = {
    "chat": chat_stream, "responses": responses_stream, "anthropic": anthropic_stream, "gemini": gemini_stream}
