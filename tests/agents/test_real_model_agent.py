"""The built-in agent for a few steps against a real model's answers (a small local one), through
the gateway: whatever the model answers (tool calls or none, well formed or not), the trial ends
on the record, metered, and a model that does not solve the task never reproduces it."""

from __future__ import annotations

from conftest import run_suite
from reclaim.gateway import Upstreams
from reclaim.suites import bundled
from reclaim.trace import ModelCall, Note, read_trace


def test_the_llm_agent_takes_a_few_steps_with_a_real_model(local_model, sandbox_name, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "local")
    rd, (rec,) = run_suite(bundled()["demo"], tmp_path / "runs", ["llm:steps=3"], sandbox_name,
                           tasks=["reimplement-huber-irls"], model=local_model.name,
                           upstreams=Upstreams(openai_base_url=local_model.url))
    assert rec.status.value == "completed", rec.error
    assert rec.outcome.value in ("not_reproduced", "disqualified")
    events = read_trace(rd.trial_dir(rec.trial_id) / "trace.jsonl")
    calls = [e for e in events if isinstance(e, ModelCall)]
    assert 1 <= len(calls) <= 3 and all(c.status == 200 and c.tokens_in > 0 and c.tokens_out > 0 for c in calls)
    assert rec.budget.model_tokens == sum(c.tokens_in + c.tokens_out for c in calls)
    assert any(isinstance(e, Note) and "step 1" in e.message for e in events)
