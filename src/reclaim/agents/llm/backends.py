"""Talking to a model through the gateway: OpenAI chat completions or Anthropic messages,
plain or streamed. Each backend keeps the conversation in its own protocol's shape."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import cast

import httpx
import openai
from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam

from reclaim.agents.llm.prompt import TOOLS
from reclaim.errors import AgentError


class ModelRefused(AgentError):
    """The gateway or the model said no (budget spent, bad request); the message says why."""


@dataclass
class Call:
    id: str
    name: str
    arguments: dict


@dataclass
class Turn:
    text: str
    calls: list[Call] = field(default_factory=list)


def _args(raw: str | dict) -> dict:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw or "{}")
    except ValueError:
        return {"_unparsed": raw}
    return value if isinstance(value, dict) else {"_unparsed": raw}


class OpenAIBackend:
    def __init__(self, base_url: str, token: str, model: str, stream: bool, system: str, task: str):
        self.client = openai.OpenAI(base_url=base_url + "/v1", api_key=token, max_retries=2, timeout=600)
        self.model, self.stream = model, stream
        self.messages: list[dict] = [{"role": "system", "content": system}, {"role": "user", "content": task}]
        self.tools = [{"type": "function", "function": t} for t in TOOLS]

    def _wire(self) -> tuple[list[ChatCompletionMessageParam], list[ChatCompletionToolParam]]:
        """The conversation and tools as the SDK types them: kept as plain dicts in the wire's
        shape (condense() edits them in place), which its TypedDicts describe."""
        return (cast("list[ChatCompletionMessageParam]", self.messages),
                cast("list[ChatCompletionToolParam]", self.tools))

    def ask(self) -> Turn:
        try:
            if not self.stream:
                messages, tools = self._wire()
                msg = self.client.chat.completions.create(model=self.model, messages=messages,
                                                          tools=tools).choices[0].message
                # only function tools are offered, so every call is a function call
                turn = Turn(msg.content or "", [Call(c.id, c.function.name, _args(c.function.arguments))
                                                for c in msg.tool_calls or [] if c.type == "function"])
            else:
                turn = self._streamed()
        except openai.APIStatusError as e:
            raise ModelRefused(f"HTTP {e.status_code}: {e.message}") from None
        entry: dict = {"role": "assistant", "content": turn.text or None}
        if turn.calls:
            entry["tool_calls"] = [{"id": c.id, "type": "function", "function": {
                "name": c.name, "arguments": json.dumps(c.arguments)}} for c in turn.calls]
        self.messages.append(entry)
        return turn

    def _streamed(self) -> Turn:
        text: list[str] = []
        calls: dict[int, dict[str, str]] = {}
        messages, tools = self._wire()
        for chunk in self.client.chat.completions.create(model=self.model, messages=messages,
                                                         tools=tools, stream=True):
            for choice in chunk.choices:
                d = choice.delta
                text.append(d.content or "")
                for tc in d.tool_calls or []:
                    slot = calls.setdefault(tc.index, {"id": "", "name": "", "args": ""})
                    slot["id"] = tc.id or slot["id"]
                    if tc.function:
                        slot["name"] = tc.function.name or slot["name"]
                        slot["args"] += tc.function.arguments or ""
        return Turn("".join(text), [Call(c["id"], c["name"], _args(c["args"])) for _, c in sorted(calls.items())])

    def answer(self, results: list[tuple[Call, str]], note: str = "") -> None:
        for call, output in results:
            self.messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
        if note:
            self.messages.append({"role": "user", "content": note})

    def condense(self, keep_last: int, limit: int) -> int:
        return _condense(self.messages, keep_last, limit, lambda m: m.get("role") == "tool", "content")


class AnthropicBackend:
    def __init__(self, base_url: str, token: str, model: str, stream: bool, system: str, task: str):
        self.http = httpx.Client(base_url=base_url, timeout=600,
                                 headers={"x-api-key": token, "anthropic-version": "2023-06-01"})
        self.model, self.stream, self.system = model, stream, system
        self.messages: list[dict] = [{"role": "user", "content": task}]
        self.tools = [{"name": t["name"], "description": t["description"], "input_schema": t["parameters"]}
                      for t in TOOLS]

    def ask(self) -> Turn:
        body = {"model": self.model, "max_tokens": 4096, "system": self.system, "tools": self.tools,
                "messages": self.messages, "stream": self.stream}
        if self.stream:
            blocks = self._streamed(body)
        else:
            r = self.http.post("/v1/messages", json=body)
            if r.status_code != 200:
                raise ModelRefused(f"HTTP {r.status_code}: {r.text[:500]}")
            blocks = r.json()["content"]
        self.messages.append({"role": "assistant", "content": blocks})
        text = "".join(b.get("text", "") for b in blocks if b["type"] == "text")
        return Turn(text, [Call(b["id"], b["name"], _args(b.get("input") or {})) for b in blocks
                           if b["type"] == "tool_use"])

    def _streamed(self, body: dict) -> list[dict]:
        blocks: dict[int, dict] = {}
        partial: dict[int, str] = {}
        with self.http.stream("POST", "/v1/messages", json=body) as r:
            if r.status_code != 200:
                raise ModelRefused(f"HTTP {r.status_code}: {r.read().decode()[:500]}")
            for line in r.iter_lines():
                if not line.startswith("data:"):
                    continue
                ev = json.loads(line[5:])
                if ev["type"] == "content_block_start":
                    blocks[ev["index"]] = dict(ev["content_block"])
                elif ev["type"] == "content_block_delta":
                    d = ev["delta"]
                    if d["type"] == "text_delta":
                        blocks[ev["index"]]["text"] = blocks[ev["index"]].get("text", "") + d["text"]
                    elif d["type"] == "input_json_delta":
                        partial[ev["index"]] = partial.get(ev["index"], "") + d["partial_json"]
        for i, raw in partial.items():
            blocks[i]["input"] = _args(raw)
        return [blocks[i] for i in sorted(blocks)]

    def answer(self, results: list[tuple[Call, str]], note: str = "") -> None:
        content = [{"type": "tool_result", "tool_use_id": c.id, "content": out} for c, out in results]
        if note:
            content.append({"type": "text", "text": note})
        self.messages.append({"role": "user", "content": content})

    def condense(self, keep_last: int, limit: int) -> int:
        def is_results(m):
            return m["role"] == "user" and isinstance(m["content"], list)
        n = 0
        for m in self.messages[:-keep_last] if keep_last else self.messages:
            if is_results(m):
                for block in m["content"]:
                    if block.get("type") == "tool_result" and len(str(block["content"])) > limit:
                        block["content"] = _stub(str(block["content"]), limit)
                        n += 1
        return n


def _stub(text: str, limit: int) -> str:
    return text[: limit // 2] + f"\n[condensed: {len(text) - limit // 2} more characters of this old output]"


def _condense(messages: list[dict], keep_last: int, limit: int, pick, key: str) -> int:
    """Shorten old tool outputs so the context stays small; the newest ``keep_last`` are kept."""
    n = 0
    for m in messages[:-keep_last] if keep_last else messages:
        if pick(m) and isinstance(m.get(key), str) and len(m[key]) > limit:
            m[key] = _stub(m[key], limit)
            n += 1
    return n


BACKENDS: dict[str, type[OpenAIBackend | AnthropicBackend]] = {"openai": OpenAIBackend, "anthropic": AnthropicBackend}
