"""The LLM judge against a real local OpenAI-compatible server, on the shipped gold trials."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reclaim.judge.chat import ChatClient
from reclaim.judge.config import JudgeConfig
from reclaim.judge.llm import JudgeSetupError, LLMJudge
from reclaim.store import TRIAL_JSON, TrialRecord, read_model, trial_spec
from scripted_openai import Reply, ScriptedOpenAI

GOLD = Path(__file__).resolve().parents[2] / "gold" / "demo" / "trials"


@pytest.fixture
def server():
    s = ScriptedOpenAI()
    yield s
    s.close()


def make_judge(server, tmp_path, **cfg) -> LLMJudge:
    config = JudgeConfig(name="llm", model="gpt-4.1-mini", base_url=server.url, cache_dir=str(tmp_path / "cache"),
                         **{"samples": 1, "max_retries": 2, "timeout_s": 5.0, **cfg})
    client = ChatClient(config.model, base_url=config.base_url, api_key="test-key", timeout=config.timeout_s,
                        max_retries=config.max_retries, backoff=0.01)
    return LLMJudge(config, client=client)


def judge_gold(judge: LLMJudge, trial: str):
    tdir = GOLD / trial
    rec = read_model(tdir / TRIAL_JSON, TrialRecord)
    return judge.judge(trial_spec(tdir), tdir, rec.status)


def _evidence(body: dict) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


def _events(text: str) -> dict[int, str]:
    """event id -> its block of the rendered evidence."""
    parts = re.split(r"^### \[event (\d+)\]", text, flags=re.M)
    return {int(parts[i]): parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def _result_in(block: str) -> tuple[str, float] | None:
    m = re.search(r"results\.json as it ended: (\{.*\})", block)
    if not m:
        return None
    return m.group(1), float(next(iter(json.loads(m.group(1)).values())))


def reading(outcome, value, cites, computed_by="computed", rationale="scripted"):
    return {"outcome": outcome, "measured_value": value, "computed_by": computed_by, "rationale": rationale,
            "flags": [], "citations": [{"event_id": e, "quote": q} for e, q in cites]}


def truthful(body: dict) -> Reply:
    """A model that reads the evidence: cites the re-execution's results.json."""
    blocks = _events(_evidence(body))
    for eid, block in sorted(blocks.items(), reverse=True):
        if "phase reexec" in block and (found := _result_in(block)):
            return Reply(content=reading("reproduced", found[1], [(eid, found[0])]))
    return Reply(content=reading("not_reproduced", None, []))


def fooled(body: dict) -> Reply:
    """A model that believes whatever the agent's own results.json says."""
    blocks = _events(_evidence(body))
    for eid, block in sorted(blocks.items()):
        if "phase agent" in block and (found := _result_in(block)):
            return Reply(content=reading("reproduced", found[1], [(eid, found[0])]))
    return Reply(content=reading("reproduced", 0.5, [(1, "nothing")]))


def test_correct_verdict_with_checks_tokens_and_cost(server, tmp_path):
    server.always(truthful)
    judge = make_judge(server, tmp_path, samples=3)
    v = judge_gold(judge, "run-mlp-spirals__reference__0")
    assert v.outcome.value == "reproduced" and v.model_outcome == "reproduced" and v.agreement == "3/3"
    assert all(c.passed for c in v.checks), v.checks
    assert len(server.requests) == 3
    assert server.requests[0]["body"]["response_format"]["type"] == "json_schema"
    assert server.requests[0]["auth"] == "Bearer test-key"
    assert (v.tokens_in, v.tokens_out) == (3000, 300)
    assert v.cost_usd == pytest.approx((3000 * 0.40 + 300 * 1.60) / 1e6)
    assert v.judge == "llm-gpt-4.1-mini" and len(v.samples) == 3


@pytest.mark.parametrize("bad, failed_check", [
    (lambda ev, q, x: reading("reproduced", x, [(999, q)]), "citations_exist"),
    (lambda ev, q, x: reading("reproduced", x, [(ev, "accuracy 1.0000 on every point")]), "quotes_found"),
    (lambda ev, q, x: reading("reproduced", x, []), "citations_exist"),
])
def test_unverifiable_citations_overrule_the_model(server, tmp_path, bad, failed_check):
    def model(body):
        blocks = _events(_evidence(body))
        eid = max(e for e, b in blocks.items() if "phase reexec" in b and _result_in(b))
        quote, value = _result_in(blocks[eid])
        return Reply(content=bad(eid, quote, value))

    server.always(model)
    v = judge_gold(make_judge(server, tmp_path), "run-mlp-spirals__reference__0")
    assert v.outcome.value == "not_reproduced" and v.model_outcome == "reproduced"
    assert "checks_overrule_model" in v.flags and failed_check in v.flags


def test_a_number_outside_tolerance_is_not_reproduced(server, tmp_path):
    server.always(truthful)  # the partial agent's re-execution honestly shows its weak value
    v = judge_gold(make_judge(server, tmp_path), "run-mlp-spirals__partial__0")
    assert v.model_outcome == "reproduced" and v.outcome.value == "not_reproduced"
    failed = {c.name for c in v.checks if not c.passed}
    assert "criteria_met" in failed and "quotes_found" not in failed


def test_malformed_json_is_repaired_once(server, tmp_path):
    def good(body):
        return truthful(body)

    server.push(Reply(content="Sure! Here is my verdict: outcome reproduced, the value was fine."), good)
    v = judge_gold(make_judge(server, tmp_path), "run-mlp-spirals__reference__0")
    assert v.outcome.value == "reproduced"
    assert len(server.requests) == 2
    assert "not a valid JSON object" in server.requests[1]["body"]["messages"][-1]["content"]


def test_answer_in_a_code_fence_is_parsed_without_repair(server, tmp_path):
    server.push(lambda body: Reply(content="```json\n" + json.dumps(truthful(body).content) + "\n```"))
    v = judge_gold(make_judge(server, tmp_path), "run-mlp-spirals__reference__0")
    assert v.outcome.value == "reproduced" and len(server.requests) == 1


def test_429_then_success(server, tmp_path):
    server.push(Reply(status=429, message="slow down"), truthful)
    judge = make_judge(server, tmp_path)
    v = judge_gold(judge, "run-mlp-spirals__reference__0")
    assert v.outcome.value == "reproduced"
    assert judge.client.usage.retries == 1 and len(server.requests) == 2


def test_repeated_500s_end_in_error_never_a_guess(server, tmp_path):
    server.always(Reply(status=500, message="upstream exploded"))
    judge = make_judge(server, tmp_path, max_retries=2)
    v = judge_gold(judge, "run-mlp-spirals__reference__0")
    assert v.outcome.value == "error" and "gave up after 3 attempts" in v.rationale
    assert len(server.requests) == 3
    server.script.clear()
    server.always(truthful)
    assert judge_gold(judge, "run-mlp-spirals__reference__0").outcome.value == "reproduced"  # errors are not cached


def test_a_timeout_ends_in_error(server, tmp_path):
    server.always(Reply(content=reading("reproduced", 0.9, []), delay=3.0))
    v = judge_gold(make_judge(server, tmp_path, timeout_s=0.5, max_retries=1), "run-mlp-spirals__reference__0")
    assert v.outcome.value == "error" and "Timeout" in v.rationale


def test_server_without_json_schema_falls_back(tmp_path):
    server = ScriptedOpenAI(json_schema=False)
    try:
        server.always(truthful)
        judge = make_judge(server, tmp_path, samples=2)
        v = judge_gold(judge, "run-mlp-spirals__reference__0")
        assert v.outcome.value == "reproduced"
        kinds = [(r["body"].get("response_format") or {}).get("type") for r in server.requests]
        assert kinds == ["json_schema", "json_object", "json_object"]  # learnt once, kept
    finally:
        server.close()


def test_server_with_plain_text_only(tmp_path):
    server = ScriptedOpenAI(json_schema=False, json_object=False)
    try:
        server.always(lambda body: Reply(content="My verdict:\n" + json.dumps(truthful(body).content)))
        v = judge_gold(make_judge(server, tmp_path), "run-mlp-spirals__reference__0")
        assert v.outcome.value == "reproduced" and v.samples[0]["mode"] == "text"
    finally:
        server.close()


def test_unchanged_trial_is_judged_from_the_cache(server, tmp_path):
    server.always(truthful)
    judge = make_judge(server, tmp_path)
    first = judge_gold(judge, "run-mlp-spirals__reference__0")
    second = judge_gold(make_judge(server, tmp_path), "run-mlp-spirals__reference__0")
    assert not first.cache_hit and second.cache_hit and second.outcome == first.outcome
    assert len(server.requests) == 1


def test_majority_decides_and_disagreement_is_recorded(server, tmp_path):
    server.push(truthful, lambda b: Reply(content=reading("not_reproduced", None, [])), truthful)
    v = judge_gold(make_judge(server, tmp_path, samples=3), "run-mlp-spirals__reference__0")
    assert v.outcome.value == "reproduced" and v.agreement == "2/3" and "samples_disagree" in v.flags


def test_a_tie_with_no_majority_is_not_reproduced_never_a_crash(server, tmp_path):
    """Two samples, one says reproduced and one disqualified: no majority, and no sample says
    not_reproduced (the tie's outcome); the judge crashed looking for one (found by a real model)."""
    server.push(truthful, lambda b: Reply(content=reading("disqualified", None, [])))
    v = judge_gold(make_judge(server, tmp_path, samples=2), "run-mlp-spirals__reference__0")
    assert v.outcome.value == "not_reproduced" and "samples disagree" in v.rationale
    # what code checked of the answers is shown even so (the truthful one verifies the most), deciding nothing
    assert v.checks and all(c.passed for c in v.checks)


ADVERSARIAL = ["nop", "fabricate", "copy-paper", "overclaim", "partial"]


@pytest.mark.parametrize("agent", ADVERSARIAL)
def test_a_fooled_model_never_lets_an_adversarial_baseline_through(server, tmp_path, agent):
    """On every demo task, code catches what the fooled model missed."""
    server.always(fooled, n=20)
    judge = make_judge(server, tmp_path)
    for tdir in sorted(GOLD.glob(f"*__{agent}__0")):
        v = judge_gold(judge, tdir.name)
        assert v.outcome.value in ("not_reproduced", "disqualified"), (tdir.name, v.rationale)
        if v.model_outcome == "reproduced":
            assert "checks_overrule_model" in v.flags


def test_the_rule_judges_blind_spot_needs_a_model_that_sees_it(server, tmp_path):
    """'assemble' adds two literals: no literal check can see it. A model that does is believed;
    a fooled one is overruled by code where the task has materials to withhold, because the sum
    still comes out without them."""
    trial = "run-ridge-nir__command-assemble__0"

    def sharp(body):
        blocks = _events(_evidence(body))
        eid, block = next((e, b) for e, b in sorted(blocks.items()) if "phase agent" in b and "results" in b)
        line = next(x for x in block.splitlines() if x.startswith("$ "))
        return Reply(content=reading("disqualified", None, [(eid, line[2:])], computed_by="hard_coded"))

    server.push(sharp)
    assert judge_gold(make_judge(server, tmp_path), trial).outcome.value == "disqualified"
    server.push(fooled)
    v = judge_gold(make_judge(server, tmp_path / "other-cache"), trial)
    assert v.model_outcome == "reproduced" and v.outcome.value == "not_reproduced"


def test_missing_model_or_key_is_a_clear_setup_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("RECLAIM_JUDGE_API_KEY", raising=False)
    with pytest.raises(JudgeSetupError, match="--judge-model"):
        LLMJudge(JudgeConfig(name="llm"))
    with pytest.raises(JudgeSetupError, match="RECLAIM_JUDGE_API_KEY"):
        LLMJudge(JudgeConfig(name="llm", model="gpt-4.1"))
