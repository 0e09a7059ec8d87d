"""The gateway between agents and a real (scripted) upstream: both protocols, streamed or not."""

from __future__ import annotations

import json

import httpx
import openai
import pytest

from reclaim.gateway import Gateway, Upstreams
from reclaim.trace import BudgetEvent, ModelCall, TraceWriter, read_trace
from scripted_openai import Reply, ScriptedOpenAI


@pytest.fixture
def upstream():
    s = ScriptedOpenAI()
    yield s
    s.close()


@pytest.fixture
def gateway(upstream, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-provider-openai")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-provider-anthropic")
    gw = Gateway(Upstreams(openai_base_url=upstream.url, anthropic_base_url=upstream.base)).start()
    yield gw
    gw.stop()


@pytest.fixture
def account(gateway, tmp_path):
    trace = TraceWriter(tmp_path / "trial" / "trace.jsonl")
    acct = gateway.open_account("t1", trace, tmp_path / "trial" / "agent" / "llm-calls")
    yield acct
    trace.close()


def calls(acct, gateway):
    acct.settle()
    return [e for e in read_trace(acct.trace.path) if isinstance(e, ModelCall)]


def test_openai_chat_plain_and_streamed(upstream, gateway, account):
    upstream.push(Reply(content="hello there", tokens=(11, 3)), Reply(content="streamed words", tokens=(12, 4)))
    client = openai.OpenAI(base_url=gateway.url + "/v1", api_key=account.token, max_retries=0)
    r = client.chat.completions.create(model="gpt-4.1-mini", messages=[{"role": "user", "content": "hi"}])
    assert r.choices[0].message.content == "hello there"
    chunks = client.chat.completions.create(model="gpt-4.1-mini", stream=True,
                                            messages=[{"role": "user", "content": "hi"}])
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "streamed words"
    assert [r["auth"] for r in upstream.requests] == ["Bearer sk-provider-openai"] * 2  # never the trial token
    plain, streamed = calls(account, gateway)
    assert (plain.tokens_in, plain.tokens_out, plain.stream) == (11, 3, False)
    assert (streamed.tokens_in, streamed.tokens_out, streamed.stream) == (12, 4, True)
    assert plain.cost_usd == pytest.approx((11 * 0.40 + 3 * 1.60) / 1e6)
    body = (account.trace.path.parent / plain.request_file).read_text()
    assert json.loads(body)["messages"][0]["content"] == "hi"
    assert "[DONE]" in (account.trace.path.parent / streamed.response_file).read_text()  # the raw stream


def test_anthropic_messages_plain_and_streamed(upstream, gateway, account):
    upstream.push(Reply(content="bonjour", tokens=(21, 5)), Reply(content="streamed bonjour", tokens=(22, 6)))
    headers = {"x-api-key": account.token, "anthropic-version": "2023-06-01"}
    req = {"model": "claude-haiku-4-5", "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]}
    r = httpx.post(gateway.url + "/v1/messages", json=req, headers=headers)
    assert r.status_code == 200 and r.json()["content"][0]["text"] == "bonjour"
    with httpx.stream("POST", gateway.url + "/v1/messages", json={**req, "stream": True}, headers=headers) as s:
        events = [json.loads(line[5:]) for line in s.iter_lines() if line.startswith("data:")]
    text = "".join(e["delta"]["text"] for e in events if e["type"] == "content_block_delta")
    assert text == "streamed bonjour"
    assert upstream.requests[0]["x-api-key"] == "sk-provider-anthropic"
    plain, streamed = calls(account, gateway)
    assert (plain.protocol, plain.tokens_in, plain.tokens_out) == ("anthropic", 21, 5)
    assert (streamed.tokens_in, streamed.tokens_out, streamed.stream) == (22, 6, True)


def test_responses_api_and_models(upstream, gateway, account):
    upstream.push(Reply(content="resp text", tokens=(7, 2)), Reply(content="resp stream", tokens=(8, 3)))
    client = openai.OpenAI(base_url=gateway.url + "/v1", api_key=account.token, max_retries=0)
    assert client.responses.create(model="gpt-4.1", input="hi").output_text == "resp text"
    events = list(client.responses.create(model="gpt-4.1", input="hi", stream=True))
    assert events[-1].type == "response.completed"
    assert [m.id for m in client.models.list()] == ["scripted"]
    a, b = calls(account, gateway)
    assert (a.tokens_in, a.tokens_out, b.tokens_in, b.tokens_out) == (7, 2, 8, 3)


def test_unknown_token_is_refused(upstream, gateway, account):
    r = httpx.post(gateway.url + "/v1/chat/completions", json={"model": "m"},
                   headers={"Authorization": "Bearer sk-provider-openai"})
    assert r.status_code == 401 and "unknown or expired trial token" in r.text
    assert upstream.requests == []


def test_budget_exhaustion_answers_a_clear_error(upstream, gateway, tmp_path):
    trace = TraceWriter(tmp_path / "t" / "trace.jsonl")
    acct = gateway.open_account("t2", trace, tmp_path / "t" / "agent", max_tokens=1500)
    upstream.always(Reply(content="ok", tokens=(1000, 100)))
    client = openai.OpenAI(base_url=gateway.url + "/v1", api_key=acct.token, max_retries=0)
    client.chat.completions.create(model="m", messages=[{"role": "user", "content": "1"}])
    acct.settle()
    client.chat.completions.create(model="m", messages=[{"role": "user", "content": "2"}])  # reaches 2200
    acct.settle()
    with pytest.raises(openai.PermissionDeniedError) as info:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "3"}])
    assert "model budget is exhausted (2200 of 1500 tokens)" in str(info.value)
    assert acct.exhausted and len(upstream.requests) == 2
    gateway.close_account(acct)
    events = read_trace(trace.path)
    assert sum(isinstance(e, ModelCall) for e in events) == 2
    assert any(isinstance(e, BudgetEvent) and e.what == "model_exhausted" for e in events)


def test_upstream_down_is_a_502_on_the_record(tmp_path, monkeypatch):
    gw = Gateway(Upstreams(openai_base_url="http://127.0.0.1:9/v1")).start()
    try:
        trace = TraceWriter(tmp_path / "trace.jsonl")
        acct = gw.open_account("t3", trace, tmp_path / "agent")
        r = httpx.post(gw.url + "/v1/chat/completions", json={"model": "m", "messages": []},
                       headers={"Authorization": f"Bearer {acct.token}"})
        assert r.status_code == 502 and "upstream unreachable" in r.text
        gw.close_account(acct)
        (call,) = [e for e in read_trace(trace.path) if isinstance(e, ModelCall)]
        assert call.status == 502 and "unreachable" in call.error
    finally:
        gw.stop()


def test_gemini_generate_content_plain_and_streamed(upstream, tmp_path, monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "sk-provider-gemini")
    gw = Gateway(Upstreams(openai_base_url=upstream.url, gemini_base_url=upstream.base)).start()
    try:
        trace = TraceWriter(tmp_path / "g" / "trace.jsonl")
        acct = gw.open_account("tg", trace, tmp_path / "g" / "agent")
        upstream.push(Reply(content="ciao", tokens=(31, 4)), Reply(content="streamed ciao", tokens=(32, 7)))
        req = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
        r = httpx.post(gw.url + "/v1beta/models/gemini-2.5-flash:generateContent", json=req,
                       headers={"x-goog-api-key": acct.token})
        assert r.status_code == 200 and r.json()["candidates"][0]["content"]["parts"][0]["text"] == "ciao"
        with httpx.stream("POST", gw.url + "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
                          f"?alt=sse&key={acct.token}", json=req) as s:
            parts = [json.loads(line[5:])["candidates"][0]["content"]["parts"][0]["text"]
                     for line in s.iter_lines() if line.startswith("data:")]
        assert "".join(parts) == "streamed ciao"
        assert [r["x-goog-api-key"] for r in upstream.requests] == ["sk-provider-gemini"] * 2
        assert "key=" not in upstream.requests[1]["path"] and "alt=sse" in upstream.requests[1]["path"]
        a, b = calls(acct, gw)
        assert (a.protocol, a.model, a.tokens_in, a.tokens_out) == ("gemini", "gemini-2.5-flash", 31, 4)
        assert (b.stream, b.tokens_in, b.tokens_out) == (True, 32, 7)
        assert a.cost_usd == pytest.approx((31 * 0.30 + 4 * 2.50) / 1e6)
        trace.close()
    finally:
        gw.stop()


def test_a_trial_listener_serves_until_its_account_closes(upstream, tmp_path, monkeypatch):
    """A root harness hands the gateway a socket listening in the trial's own network
    (sandbox/netns.py); the gateway serves there until the account closes, and an account closed
    after the gateway stopped (Ctrl-C tearing the run down) neither fails nor waits."""
    import socket

    monkeypatch.setenv("OPENAI_API_KEY", "sk-provider-openai")
    gw = Gateway(Upstreams(openai_base_url=upstream.url)).start()
    trace = TraceWriter(tmp_path / "trace.jsonl")
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    acct = gw.open_account("tl", trace, tmp_path / "calls", listener=listener)
    r = httpx.get(f"http://127.0.0.1:{port}/v1/models", headers={"Authorization": f"Bearer {acct.token}"})
    assert r.status_code == 200
    gw.close_account(acct)
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/v1/models", headers={"Authorization": f"Bearer {acct.token}"})

    late = gw.open_account("tm", trace, tmp_path / "calls2", listener=socket.create_server(("127.0.0.1", 0)))
    gw.stop()
    gw.close_account(late)  # its site went with the gateway's cleanup: nothing to fail on
    with pytest.raises(RuntimeError, match="stopped"):
        gw.open_account("tn", trace, tmp_path / "calls3", listener=socket.create_server(("127.0.0.1", 0)))
    trace.close()


def test_a_model_the_run_did_not_choose_is_refused_before_the_provider(upstream, gateway, tmp_path):
    """An agent whose sub-agent or small-fast model is left at its default would bill the user for a
    model they did not choose: the gateway refuses it in the caller's protocol, and records it."""
    upstream.always(Reply(content="fine", tokens=(5, 1)), n=3)
    trace = TraceWriter(tmp_path / "trial" / "trace.jsonl")
    acct = gateway.open_account("t2", trace, tmp_path / "trial" / "llm-calls", models=frozenset({"chosen-1"}))
    ok = httpx.post(gateway.url + "/v1/messages", headers={"x-api-key": acct.token},
                    json={"model": "chosen-1", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]})
    other = httpx.post(gateway.url + "/v1/messages", headers={"x-api-key": acct.token},
                       json={"model": "claude-opus-4-8", "max_tokens": 5, "messages": []})
    gemini = httpx.post(gateway.url + "/v1beta/models/gemini-2.5-flash:generateContent",
                        headers={"x-goog-api-key": acct.token}, json={"contents": []})
    assert ok.status_code == 200 and other.status_code == 403 and gemini.status_code == 403
    assert other.json()["error"]["type"] == "permission_error" and "chosen-1" in other.json()["error"]["message"]
    assert gemini.json()["error"]["code"] == 403
    assert len(upstream.requests) == 1  # only the chosen model's call went out
    refused = [c for c in calls(acct, gateway) if c.status == 403]
    assert [c.model for c in refused] == ["claude-opus-4-8", "gemini-2.5-flash"]
    assert all(c.tokens_in == 0 and c.cost_usd == 0.0 and "not sent to the provider" in c.error for c in refused)
    assert acct.refused_models == {"claude-opus-4-8": 1, "gemini-2.5-flash": 1}
    trace.close()
