"""The built-in agent's system prompt: every number of the claim, one or several."""

from __future__ import annotations

from reclaim.agents.llm.prompt import system_prompt
from reclaim.spec import load_task
from reclaim.suites import bundled


def test_a_multi_metric_target_names_every_metric():
    spec = load_task(bundled()["demo"] / "retrain-sim-dag")  # target.metrics: shd, tpr, fdr
    prompt = system_prompt(spec, 600, "/workspace")
    for m in spec.metrics():
        assert f"Metric `{m.name}`, reported {m.value:g} ({m.direction.value})." in prompt
    keys = ", ".join(f'"{m.name}": <the value your code computed>' for m in spec.metrics())
    assert f"results.json: {{{keys}}}" in prompt


def test_a_single_metric_target_reads_as_before():
    spec = load_task(bundled()["demo"] / "run-mlp-spirals")
    prompt = system_prompt(spec, 600, "/workspace")
    t = spec.target
    assert f"Metric `{t.metric}`, reported {t.value:g} ({t.direction.value}).\n" in prompt
    assert f'results.json: {{"{t.metric}": <the value your code computed>}}' in prompt
