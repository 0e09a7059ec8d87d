"""Talking to an OpenAI-compatible chat endpoint: structured output where the server has it,
JSON mode or a tolerant parse where it does not, and patient retries."""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar, cast

import openai
from openai.types.chat import ChatCompletionMessageParam
from pydantic import BaseModel, ValidationError

from reclaim.errors import JudgeError

M = TypeVar("M", bound=BaseModel)
MODES = ("json_schema", "json_object", "text")
_RETRYABLE = (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError,
              openai.InternalServerError)


class CallFailed(JudgeError):
    """The endpoint could not be reached or kept failing; the reason says how."""


@dataclass
class Usage:
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    retries: int = 0
    log: list[str] = field(default_factory=list)


class ChatClient:
    """One model behind one endpoint. Remembers which output mode the server accepts."""

    def __init__(self, model: str, *, base_url: str | None, api_key: str, timeout: float,
                 max_retries: int, backoff: float = 0.5, backoff_max: float = 30.0,
                 sleep: Callable[[float], None] = time.sleep):
        self.model = model
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0)
        self.max_retries = max_retries
        self.backoff, self.backoff_max, self.sleep = backoff, backoff_max, sleep
        self.mode = MODES[0]
        self.usage = Usage()

    def _create(self, messages: list[dict], schema: dict, name: str) -> str:
        kwargs: dict = {}
        if self.mode == "json_schema":
            kwargs["response_format"] = {"type": "json_schema",
                                         "json_schema": {"name": name, "schema": schema, "strict": True}}
        elif self.mode == "json_object":
            kwargs["response_format"] = {"type": "json_object"}
        for attempt in range(self.max_retries + 1):
            try:
                # the messages are plain dicts in the wire's shape; the SDK types them as TypedDicts
                wire = cast("list[ChatCompletionMessageParam]", messages)
                resp = self.client.chat.completions.create(model=self.model, messages=wire, **kwargs)
                break
            except _RETRYABLE as e:
                reason = f"{type(e).__name__}: {getattr(e, 'status_code', '') or ''} {e}".strip()
                self.usage.log.append(reason[:300])
                if attempt == self.max_retries:
                    raise CallFailed(f"gave up after {attempt + 1} attempts; last: {reason[:300]}") from None
                self.usage.retries += 1
                delay = min(self.backoff_max, self.backoff * 2 ** attempt)
                self.sleep(delay * (0.5 + random.random()))  # jitter: retries from many trials spread out
            except openai.BadRequestError as e:
                if self.mode != MODES[-1] and _format_refused(e):
                    self.mode = MODES[MODES.index(self.mode) + 1]
                    self.usage.log.append(f"server refused {kwargs.get('response_format', {}).get('type')}; "
                                          f"falling back to {self.mode}")
                    return self._create(messages, schema, name)
                raise CallFailed(f"the endpoint refused the request: {e}") from None
            except openai.APIStatusError as e:  # 401, 404 and the like: no point retrying
                raise CallFailed(f"HTTP {e.status_code} from the endpoint: {e}") from None
        self.usage.calls += 1
        if resp.usage is not None:
            self.usage.tokens_in += resp.usage.prompt_tokens or 0
            self.usage.tokens_out += resp.usage.completion_tokens or 0
        if not resp.choices:
            raise CallFailed("the endpoint answered with no choices")
        return resp.choices[0].message.content or ""

    def structured(self, messages: list[dict], model: type[M], name: str) -> tuple[M | None, str, str]:
        """(parsed answer or None, raw text, parse error). One repair request on a bad answer."""
        schema = strict_schema(model)
        text = self._create(messages, schema, name)
        parsed, error = tolerant_parse(text, model)
        if parsed is not None:
            return parsed, text, ""
        repair = messages + [
            {"role": "assistant", "content": text},
            {"role": "user", "content": f"That was not a valid JSON object for the schema ({error[:500]}). "
                                        "Reply with only the corrected JSON object, nothing else."}]
        text2 = self._create(repair, schema, name)
        parsed, error2 = tolerant_parse(text2, model)
        return parsed, text + "\n--- repair ---\n" + text2, "" if parsed is not None else error2


def _format_refused(e: openai.BadRequestError) -> bool:
    msg = str(e).lower()
    return any(w in msg for w in ("response_format", "json_schema", "json_object", "structured", "schema"))


def tolerant_parse(text: str, model: type[M]) -> tuple[M | None, str]:
    """Parse a model's answer: plain JSON, JSON in a code fence, or the outermost {...} in prose."""
    candidates = [text.strip()]
    fence = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
    if fence:
        candidates.append(fence.group(1).strip())
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start:end + 1])
    error = "no JSON object found"
    for c in candidates:
        try:
            return model.model_validate(json.loads(c)), ""
        except (json.JSONDecodeError, ValidationError) as e:
            error = str(e)
    return None, error


def strict_schema(model: type[BaseModel]) -> dict:
    """The model's JSON schema in the form strict structured output wants: every property
    required, no extra properties, references inlined."""
    schema = model.model_json_schema()
    defs = schema.pop("$defs", {})

    def fix(node):
        if isinstance(node, dict):
            if "$ref" in node:
                return fix(dict(defs[node["$ref"].split("/")[-1]]))
            node = {k: fix(v) for k, v in node.items() if k not in ("default", "title")}
            if node.get("type") == "object":
                node["additionalProperties"] = False
                node["required"] = list(node.get("properties", {}))
            return node
        if isinstance(node, list):
            return [fix(x) for x in node]
        return node

    return fix(schema)
