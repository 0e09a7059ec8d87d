"""The LLM judge: a model reads the evidence bundle; code checks what it says (combine.py)."""

from __future__ import annotations

import os
from pathlib import Path

from reclaim.budget import cost, load_prices
from reclaim.errors import JudgeError
from reclaim.judge.cache import VerdictCache, cache_dir, cache_key
from reclaim.judge.chat import CallFailed, ChatClient
from reclaim.judge.claim import metric
from reclaim.judge.combine import combine, majority
from reclaim.judge.config import JudgeConfig
from reclaim.judge.criteria import acceptance
from reclaim.judge.evidence import build_evidence
from reclaim.judge.flags import Flag
from reclaim.judge.prompt import PROMPT_VERSION, Reading, messages
from reclaim.judge.rules import RulesJudge
from reclaim.judge.verdict import Verdict
from reclaim.spec import TaskSpec
from reclaim.store import Outcome, Status

KEY_VARS = ("RECLAIM_JUDGE_API_KEY", "OPENAI_API_KEY")


class JudgeSetupError(JudgeError, ValueError):
    """The judge cannot be configured as asked; the message says what to set."""


def api_key(base_url: str | None) -> str:
    for var in KEY_VARS:
        if os.environ.get(var):
            return os.environ[var]
    if base_url:
        return "none"  # local servers (vLLM, llama.cpp, Ollama) accept any key
    raise JudgeSetupError("the llm judge needs a key: set RECLAIM_JUDGE_API_KEY (or OPENAI_API_KEY), "
                          "or point --judge-base-url at a local OpenAI-compatible server")


class LLMJudge:
    name = "llm"
    version = PROMPT_VERSION
    offline = False

    @classmethod
    def from_config(cls, config: JudgeConfig) -> LLMJudge:
        return cls(config)

    def __init__(self, config: JudgeConfig, client: ChatClient | None = None):
        if not config.model:
            raise JudgeSetupError("the llm judge needs a model: --judge-model NAME")
        self.config = config
        self.label = config.label
        self.client = client or ChatClient(config.model, base_url=config.base_url,
                                           api_key=api_key(config.base_url), timeout=config.timeout_s,
                                           max_retries=config.max_retries)
        self.prices = load_prices(config.prices_file)
        self.cache = VerdictCache(cache_dir(config.cache_dir))
        self.rules = RulesJudge()

    def judge(self, spec: TaskSpec, trial_dir: Path, status: Status) -> Verdict:
        rules = self.rules.judge(spec, trial_dir, status)
        base = rules.model_copy(update={"judge": self.label, "judge_version": self.version,
                                        "model": self.config.model, "citations": rules.citations})
        if status == Status.budget_exhausted:
            return base  # nothing to read: the agent was stopped
        findings = [f"rule judge: {rules.outcome.value}: {rules.rationale}"]
        findings += [f"rule flag: {f}" for f in rules.flags]
        findings += [f"dependence check {f.check}: " + ("not applied" if not f.applied else "passed" if f.passed
                     else "FAILED") + f": {f.detail}" for f in rules.dependence]
        ev = build_evidence(trial_dir, spec, max_tokens=self.config.max_evidence_tokens, findings=findings)
        text = ev.render()
        key = cache_key(ev.model_dump_json(), self.config.model, PROMPT_VERSION, self.config.samples)
        if (hit := self.cache.get(key)) is not None:
            return hit.model_copy(update={"cache_hit": True})
        before = (self.client.usage.tokens_in, self.client.usage.tokens_out)
        readings, samples = [], []
        try:
            for _ in range(self.config.samples):
                parsed, raw, error = self.client.structured(messages(text), Reading, "verdict")
                samples.append({"raw": raw, "parsed": parsed.model_dump() if parsed else None,
                                "error": error or None, "mode": self.client.mode})
                if parsed is not None:
                    readings.append(parsed)
        except CallFailed as e:
            return self._error(base, f"judge model call failed: {e}", samples, before)
        if not readings:
            return self._error(base, "no answer of the judge model could be parsed", samples, before)
        outcome, checks, flags, why = combine(readings, ev, acceptance(metric(spec, spec.target.primary)), rules)
        said, agreement = majority(readings)
        if len(readings) < len(samples):
            flags.append(f"unparsed_answers:{len(samples) - len(readings)}")
        if len({r.outcome for r in readings}) > 1:
            flags.append(Flag.samples_disagree)
        if Flag.provenance_incomplete in rules.flags and Flag.provenance_incomplete not in flags:
            flags.append(Flag.provenance_incomplete)  # what the literal checks could not read, whoever decides
        verdict = base.model_copy(update={
            "outcome": outcome, "rationale": why, "flags": flags, "checks": checks,
            "model_outcome": said, "agreement": agreement, "samples": samples,
            "evidence_tokens": ev.tokens(), **self._spend(before)})
        self.cache.put(key, verdict)
        return verdict

    def _spend(self, before: tuple[int, int]) -> dict:
        t_in = self.client.usage.tokens_in - before[0]
        t_out = self.client.usage.tokens_out - before[1]
        return {"tokens_in": t_in, "tokens_out": t_out,
                "cost_usd": cost(self.prices, self.config.model or "", t_in, t_out)}

    def _error(self, base: Verdict, why: str, samples: list, before: tuple[int, int]) -> Verdict:
        """Never a guessed outcome: the judge failed, so the verdict is error (and not cached)."""
        return base.model_copy(update={"outcome": Outcome.error, "rationale": why, "samples": samples,
                                       "flags": [Flag.judge_error], **self._spend(before)})
