"""How a judge is configured. Stored in run.json; never holds a key."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class JudgeConfig(BaseModel):
    name: Literal["rules", "llm"] = Field("rules", description="rules (offline) or llm.")
    model: str | None = Field(None, description="Model name, for the llm judge.")
    base_url: str | None = Field(None, description="OpenAI-compatible endpoint; default the provider's.")
    samples: int = Field(3, ge=1, le=15, description="Answers asked for; the majority decides.")
    max_evidence_tokens: int = Field(30_000, ge=1_000, description="Budget of the evidence bundle.")
    timeout_s: float = Field(120.0, gt=0, description="Per request.")
    max_retries: int = Field(4, ge=0, description="Retries on timeouts, 429 and 5xx.")
    prices_file: str | None = Field(None, description="YAML/JSON: model -> {input, output} USD per 1M tokens.")
    cache_dir: str | None = Field(None, description="Verdict cache; default $RECLAIM_CACHE_DIR or ~/.cache/reclaim.")

    @property
    def label(self) -> str:
        """The name verdicts are filed under: 'rules', or 'llm-<model>'."""
        if self.name == "rules":
            return "rules"
        safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in (self.model or "default"))
        return f"llm-{safe}"
