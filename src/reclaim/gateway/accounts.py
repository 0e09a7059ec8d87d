"""A trial's account at the gateway: its token, its budget, and where its calls are recorded."""

from __future__ import annotations

import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from reclaim.trace import BudgetEvent, ModelCall, TraceWriter


class BudgetSpent(Exception):
    """The trial may make no more model calls."""


@dataclass
class Account:
    trial_id: str
    trace: TraceWriter
    calls_dir: Path
    max_tokens: int | None = None
    max_usd: float | None = None
    models: frozenset[str] | None = None
    """The models this trial may call (the run's --model); None: any. A call for another (an agent's
    sub-agent or small-fast model left at its default) is refused before it reaches a provider."""
    token: str = field(default_factory=lambda: "rcl-" + secrets.token_urlsafe(24))
    tokens: int = 0
    usd: float = 0.0
    calls: int = 0
    exhausted: bool = False
    upstream_failures: int = 0
    """Calls the upstream never answered, or refused for its key (401): the set-up's fault, not the agent's."""
    upstream_reason: str = ""
    refused_models: dict[str, int] = field(default_factory=dict)
    """Model name -> calls refused because the run did not choose it."""
    pending: list = field(default_factory=list, repr=False)
    in_flight: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def settle(self, timeout: float = 60.0) -> None:
        """Wait until every call that reached the gateway is on the record."""
        deadline = time.monotonic() + timeout
        while self.in_flight > 0 and time.monotonic() < deadline:
            time.sleep(0.002)  # a handler between answering and filing its record
        while self.pending:
            self.pending.pop(0).result()

    def check(self) -> None:
        if self.exhausted:
            raise BudgetSpent(self.explain())

    def allows(self, model: str) -> bool:
        return self.models is None or model in self.models

    def refusal(self, model: str) -> str:
        with self._lock:
            self.refused_models[model] = self.refused_models.get(model, 0) + 1
        chosen = ", ".join(sorted(self.models or ()))
        return (f"reclaim gateway: this trial may call only the model the run chose ({chosen}); this call asked "
                f"for {model or 'no model'}. It was not sent to the provider. Configure the agent so that every "
                "model it uses (sub-agents, summaries, small fast models) is the chosen one.")

    def explain(self) -> str:
        parts = []
        if self.max_tokens is not None:
            parts.append(f"{self.tokens} of {self.max_tokens} tokens")
        if self.max_usd is not None:
            parts.append(f"${self.usd:.4f} of ${self.max_usd:g}")
        return ("reclaim: this trial's model budget is exhausted (" + ", ".join(parts) + "). No further "
                "model calls are possible; finish the task with what you have: leave results.json and "
                "reproduce.sh in the workspace.")

    def record(self, *, protocol: str, endpoint: str, model: str, stream: bool, status: int,
               tokens_in: int, tokens_out: int, latency_s: float, cost_usd: float | None,
               request: bytes, response: bytes, error: str | None = None) -> ModelCall:
        """Keep the call's bodies under the trial's records/, put it in the trace, and charge the budget."""
        with self._lock:
            self.calls += 1
            if (error or "").startswith("upstream unreachable") or status == 401:
                self.upstream_failures += 1
                self.upstream_reason = (error or f"HTTP {status}: {response[:200].decode('utf-8', 'replace')}")[:300]
            n = self.calls
            self.tokens += tokens_in + tokens_out
            self.usd += cost_usd or 0.0
            over = ((self.max_tokens is not None and self.tokens >= self.max_tokens)
                    or (self.max_usd is not None and self.usd >= self.max_usd))
            newly = over and not self.exhausted
            self.exhausted = self.exhausted or over
        self.calls_dir.mkdir(parents=True, exist_ok=True)
        req, resp = self.calls_dir / f"{n:04d}-request.json", self.calls_dir / f"{n:04d}-response.txt"
        req.write_bytes(request)
        resp.write_bytes(response)
        base = self.trace.path.parent
        event = self.trace.emit(
            ModelCall, phase="agent", protocol=protocol, endpoint=endpoint, model=model, stream=stream,
            status=status, tokens_in=tokens_in, tokens_out=tokens_out, latency_s=round(latency_s, 4),
            cost_usd=cost_usd, request_file=req.relative_to(base).as_posix(),
            response_file=resp.relative_to(base).as_posix(), error=error)
        if newly:
            self.trace.emit(BudgetEvent, phase="agent", what="model_exhausted", detail=self.explain())
        return event


def model_of(body: bytes) -> str:
    try:
        return str(json.loads(body).get("model", ""))
    except (ValueError, AttributeError):
        return ""
