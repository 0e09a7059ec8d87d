"""Token counts from provider answers, plain JSON or server-sent events."""

from __future__ import annotations

import json


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
        self._buf = b""

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
        if self.protocol == "gemini":  # each chunk carries the usage so far
            if ev.get("usageMetadata"):
                self.tokens_in, self.tokens_out = from_json("gemini", ev)
            return
        if self.protocol == "anthropic":
            if ev.get("type") == "message_start":
                u = (ev.get("message") or {}).get("usage") or {}
                self.tokens_in = int(u.get("input_tokens") or 0)
                self.tokens_out = int(u.get("output_tokens") or 0)
            elif ev.get("type") == "message_delta":
                self.tokens_out = int((ev.get("usage") or {}).get("output_tokens") or self.tokens_out)
            return
        if ev.get("usage"):  # the last chat-completions chunk, with stream_options.include_usage
            self.tokens_in, self.tokens_out = from_json("openai", ev)
        elif ev.get("type") == "response.completed":  # responses API
            self.tokens_in, self.tokens_out = from_json("openai", ev.get("response") or {})
