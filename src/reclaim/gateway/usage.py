"""Token counts from provider answers, plain JSON or server-sent events.

A stream that ends without its usage (the upstream left it out, or was cut off) is estimated, so
that no call goes unmetered: ceil(characters / 4) tokens of the text the stream delivered (message
text, tool-call arguments, reasoning), and the same rule over the request body for the input.
"""

from __future__ import annotations

import json
import math

CHARS_PER_TOKEN = 4
_NOT_TEXT = frozenset({"type", "role", "id", "index", "call_id", "item_id", "finishReason"})


def estimate(chars: int) -> int:
    """Tokens for `chars` characters by the documented rule: ceil(chars / 4)."""
    return math.ceil(chars / CHARS_PER_TOKEN)


def _chars(obj) -> int:
    """Characters of the text in a streamed delta: every string, less the labels."""
    if isinstance(obj, str):
        return len(obj)
    if isinstance(obj, dict):
        return sum(_chars(v) for k, v in obj.items() if k not in _NOT_TEXT)
    if isinstance(obj, list):
        return sum(_chars(v) for v in obj)
    return 0


def from_json(protocol: str, body: dict) -> tuple[int, int]:
    """(input tokens, output tokens) of a complete answer."""
    if protocol == "gemini":
        m = body.get("usageMetadata") or {}
        return int(m.get("promptTokenCount") or 0), int(m.get("candidatesTokenCount") or 0)
    u = body.get("usage") or {}
    if protocol == "anthropic":
        return int(u.get("input_tokens") or 0), int(u.get("output_tokens") or 0)
    if "prompt_tokens" in u:  # chat completions
        return int(u.get("prompt_tokens") or 0), int(u.get("completion_tokens") or 0)
    return int(u.get("input_tokens") or 0), int(u.get("output_tokens") or 0)  # responses API


class StreamUsage:
    """Feeds on a server-sent event stream as it passes, and keeps the usage it reports."""

    def __init__(self, protocol: str):
        self.protocol = protocol
        self.tokens_in = self.tokens_out = 0
        self.final = False  # the stream reported its full usage
        self.chars = 0  # characters of the text it delivered, for an estimate
        self._buf = b""

    def result(self, request: bytes) -> tuple[int, int, bool]:
        """(input tokens, output tokens, estimated): the reported usage, or where the stream ended
        without it, an estimate that never falls below what it did report."""
        self.feed(b"\n")  # a last event without its newline
        if self.final:
            return self.tokens_in, self.tokens_out, False
        return (self.tokens_in or estimate(len(request)), max(self.tokens_out, estimate(self.chars)), True)

    def feed(self, chunk: bytes) -> None:
        self._buf += chunk
        while b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            line = line.strip()
            if line.startswith(b"data:"):
                self._event(line[5:].strip())

    def _event(self, data: bytes) -> None:
        if not data or data == b"[DONE]":
            return
        try:
            ev = json.loads(data)
        except ValueError:
            return
        if not isinstance(ev, dict):
            return
        kind = ev.get("type")
        if self.protocol == "gemini":  # each chunk carries the usage so far; the last one a finishReason
            cands = ev.get("candidates") or []
            self.chars += sum(_chars((c.get("content") or {}).get("parts")) for c in cands if isinstance(c, dict))
            if ev.get("usageMetadata"):
                self.tokens_in, self.tokens_out = from_json("gemini", ev)
                self.final = any(isinstance(c, dict) and c.get("finishReason") for c in cands)
            return
        if self.protocol == "anthropic":
            if kind == "message_start":
                u = (ev.get("message") or {}).get("usage") or {}
                self.tokens_in = int(u.get("input_tokens") or 0)
                self.tokens_out = int(u.get("output_tokens") or 0)
            elif kind == "content_block_delta":
                self.chars += _chars(ev.get("delta"))
            elif kind == "message_delta" and (ev.get("usage") or {}).get("output_tokens") is not None:
                self.tokens_out = int(ev["usage"]["output_tokens"] or self.tokens_out)
                self.final = True
            return
        if ev.get("usage"):  # the last chat-completions chunk, with stream_options.include_usage
            self.tokens_in, self.tokens_out = from_json("openai", ev)
            self.final = True
        elif kind in ("response.completed", "response.incomplete", "response.failed"):  # responses API
            if (ev.get("response") or {}).get("usage"):
                self.tokens_in, self.tokens_out = from_json("openai", ev.get("response") or {})
                self.final = True
        elif isinstance(kind, str) and kind.endswith(".delta"):  # responses API: text, arguments, reasoning
            self.chars += _chars(ev.get("delta"))
        for choice in ev.get("choices") or []:  # chat completions
            if isinstance(choice, dict):
                self.chars += _chars(choice.get("delta"))
