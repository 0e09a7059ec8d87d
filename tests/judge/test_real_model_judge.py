"""The LLM judge end to end against a real model's answers (a small local one): answers
constrained by the verdict's JSON schema, a majority over samples, and code checking what they
say. The model is tiny: some answers run past its token cap and cannot be read, some cite
nothing; whichever it gives, the verdict follows the rules below, and a fabrication is never
reproduced."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

from reclaim.judge.config import JudgeConfig
from reclaim.judge.flags import Flag
from reclaim.judge.llm import LLMJudge
from reclaim.store import TRIAL_JSON, Outcome, TrialRecord, read_model, trial_spec

GOLD = Path(__file__).resolve().parents[2] / "gold" / "demo" / "trials"


@pytest.mark.parametrize("trial", ["reimplement-huber-irls__fabricate__0", "reimplement-huber-irls__reference__0"])
def test_the_llm_judge_on_a_real_models_answers(local_model, tmp_path, trial):
    config = JudgeConfig(name="llm", model=local_model.name, base_url=local_model.url, samples=3, timeout_s=600,
                         max_retries=0, max_evidence_tokens=1000, cache_dir=str(tmp_path / "cache"))
    judge = LLMJudge(config)
    tdir = GOLD / trial
    rec = read_model(tdir / TRIAL_JSON, TrialRecord)
    verdict = judge.judge(trial_spec(tdir), tdir, rec.status)
    assert len(verdict.samples) == 3 and all(s["raw"] for s in verdict.samples)
    assert all(s["mode"] == "json_schema" for s in verdict.samples)  # the server took the schema
    assert verdict.tokens_in > 1000 and verdict.tokens_out > 0  # the real server's usage, metered
    parsed = [s["parsed"] for s in verdict.samples if s["parsed"] is not None]
    if not parsed:  # answers that cannot be read make the verdict an error, never a guess
        assert verdict.outcome == Outcome.error and Flag.judge_error in verdict.flags
        return
    counts = collections.Counter(p["outcome"] for p in parsed)
    top = [o for o, n in counts.items() if n == max(counts.values())]
    said = top[0] if len(top) == 1 else "not_reproduced"  # a tie is no majority: nobody said it was reproduced
    assert verdict.model_outcome == said, counts
    assert verdict.checks  # what it said was checked in code
    if len(parsed) < 3:
        assert f"unparsed_answers:{3 - len(parsed)}" in verdict.flags
    if verdict.outcome == Outcome.reproduced:  # only where every check of what it cited held
        assert all(c.passed for c in verdict.checks)
    if "fabricate" in trial:
        assert verdict.outcome != Outcome.reproduced  # whatever the model said
    again = judge.judge(trial_spec(tdir), tdir, rec.status)
    assert again.cache_hit and again.outcome == verdict.outcome  # judged once, then cached
