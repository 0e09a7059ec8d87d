"""A hostile agent that hangs up mid-stream is still charged: the gateway reads the upstream's answer
to its end, meters it (or estimates it when the stream carries no usage), records the call, and
refuses calls once the budget is spent. Real sockets: a scripted upstream, the gateway, a raw client."""

from __future__ import annotations

import json
import math
import socket
import struct
from urllib.parse import urlsplit

import httpx
import pytest

from reclaim.gateway import Gateway, Upstreams
from reclaim.trace import BudgetEvent, ModelCall, TraceWriter, read_trace
from scripted_openai import Reply, ScriptedOpenAI

CHAT = {"model": "gpt-4.1-mini", "stream": True, "messages": [{"role": "user", "content": "count to a hundred"}]}
MESSAGES = {"model": "claude-haiku-4-5", "max_tokens": 100, "stream": True,
            "messages": [{"role": "user", "content": "count to a hundred"}]}


@pytest.fixture
def upstream():
    s = ScriptedOpenAI()
    yield s
    s.close()


@pytest.fixture
def gateway(upstream, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-provider-openai")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-provider-anthropic")
    gw = Gateway(Upstreams(openai_base_url=upstream.url, anthropic_base_url=upstream.base)).start()
    yield gw
    gw.stop()


def open_account(gateway, tmp_path, max_tokens):
    trace = TraceWriter(tmp_path / "trial" / "trace.jsonl")
    return gateway.open_account("t", trace, tmp_path / "trial" / "agent" / "llm-calls", max_tokens=max_tokens)


def hang_up(url: str, path: str, headers: dict[str, str], body: dict, *, reset: bool) -> bytes:
    """POST a streamed call, read up to its first event, and close the socket (with a RST if `reset`)."""
    u = urlsplit(url)
    data = json.dumps(body).encode()
    head = "".join(f"{k}: {v}\r\n" for k, v in {
        "Host": u.netloc, "Content-Type": "application/json", "Content-Length": str(len(data)), **headers}.items())
    sock = socket.create_connection((u.hostname, u.port), timeout=10)
    try:
        sock.sendall(f"POST {path} HTTP/1.1\r\n{head}\r\n".encode() + data)
        got = b""
        while b"\r\n\r\n" not in got or b"\n\n" not in got.split(b"\r\n\r\n", 1)[1]:
            piece = sock.recv(65536)
            assert piece, f"the gateway closed before the first event: {got!r}"
            got += piece
        if reset:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        return got
    finally:
        sock.close()


def model_calls(acct):
    acct.settle()
    return [e for e in read_trace(acct.trace.path) if isinstance(e, ModelCall)]


def test_openai_chat_hang_ups_are_metered_until_the_budget_refuses(upstream, gateway, tmp_path):
    acct = open_account(gateway, tmp_path, max_tokens=250)
    upstream.always(Reply(content="one two three four five six seven eight nine ten", tokens=(30, 20), pace=0.02))
    auth = {"Authorization": f"Bearer {acct.token}"}
    for i in range(5):
        first = hang_up(gateway.url, "/v1/chat/completions", auth, CHAT, reset=bool(i % 2))
        assert first.startswith(b"HTTP/1.1 200") and b'"role": "assistant"' in first
        acct.settle()
    calls = model_calls(acct)
    assert [(c.tokens_in, c.tokens_out, c.stream, c.status) for c in calls] == [(30, 20, True, 200)] * 5
    assert all("client disconnected" in c.error for c in calls)
    assert acct.tokens == 250 and acct.exhausted
    r = httpx.post(gateway.url + "/v1/chat/completions", json=CHAT, headers=auth)
    assert r.status_code == 403 and r.json()["error"]["code"] == "budget_exhausted"
    assert "250 of 250 tokens" in r.json()["error"]["message"]
    assert len(upstream.requests) == 5  # the refused call never reached the provider
    body = (acct.trace.path.parent / calls[0].response_file).read_text()
    assert '"usage"' in body and "[DONE]" in body  # the whole upstream stream, kept on the record
    gateway.close_account(acct)
    assert any(isinstance(e, BudgetEvent) and e.what == "model_exhausted" for e in read_trace(acct.trace.path))


def test_anthropic_hang_ups_are_metered_until_the_budget_refuses(upstream, gateway, tmp_path):
    acct = open_account(gateway, tmp_path, max_tokens=100)
    upstream.always(Reply(content="un deux trois quatre cinq six sept", tokens=(30, 20), pace=0.02))
    headers = {"x-api-key": acct.token, "anthropic-version": "2023-06-01"}
    for i in range(2):
        first = hang_up(gateway.url, "/v1/messages", headers, MESSAGES, reset=bool(i % 2))
        assert b"message_start" in first
        acct.settle()
    calls = model_calls(acct)
    assert [(c.protocol, c.tokens_in, c.tokens_out) for c in calls] == [("anthropic", 30, 20)] * 2
    assert all("client disconnected" in c.error for c in calls)
    r = httpx.post(gateway.url + "/v1/messages", json=MESSAGES, headers=headers)
    assert r.status_code == 403 and r.json()["error"]["type"] == "budget_exhausted"
    assert len(upstream.requests) == 2


def test_a_stream_without_usage_is_estimated_from_its_text(upstream, gateway, tmp_path):
    acct = open_account(gateway, tmp_path, max_tokens=150)
    text = "word " * 80  # 400 characters: 100 tokens by the ceil(chars / 4) rule
    upstream.push(Reply(content=text, tokens=(1, 1), usage=False, pace=0.005),
                  Reply(content=text, tokens=(1, 1), usage=False))
    auth = {"Authorization": f"Bearer {acct.token}"}
    hang_up(gateway.url, "/v1/chat/completions", auth, CHAT, reset=False)
    acct.settle()
    with httpx.stream("POST", gateway.url + "/v1/chat/completions", json=CHAT, headers=auth) as s:
        assert s.status_code == 200 and "[DONE]" in s.read().decode()  # read to its end: no hang-up
    hung, full = model_calls(acct)
    sent = (acct.trace.path.parent / hung.request_file).read_bytes()
    assert (hung.tokens_in, hung.tokens_out) == (math.ceil(len(sent) / 4), 100)
    assert (full.tokens_in, full.tokens_out) == (hung.tokens_in, 100)
    assert "client disconnected" in hung.error and "estimated" in hung.error
    assert "client" not in full.error and "estimated" in full.error
    r = httpx.post(gateway.url + "/v1/chat/completions", json=CHAT, headers=auth)
    assert r.status_code == 403 and "budget_exhausted" in r.text


def test_stopping_the_gateway_while_a_slow_provider_still_answers_cuts_the_call_off(upstream, monkeypatch,
                                                                                    tmp_path):
    """A run ends while a provider is still answering a call of a trial whose budget ran out: stop()
    waits a bounded time, then cuts the call off; the run's end is not a traceback (issue 25)."""
    import threading
    import time

    from reclaim.gateway import server

    monkeypatch.setenv("OPENAI_API_KEY", "sk-provider-openai")
    monkeypatch.setattr(server, "STOP_WAIT_S", 1.0)
    upstream.always(Reply(content="late", delay=30))
    gw = Gateway(Upstreams(openai_base_url=upstream.url)).start()
    acct = open_account(gw, tmp_path, max_tokens=None)
    body = {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "hi"}]}
    call = threading.Thread(target=lambda: httpx.post(f"{gw.url}/v1/chat/completions", json=body,
                                                      headers={"Authorization": f"Bearer {acct.token}"},
                                                      timeout=60), daemon=True)
    call.start()
    time.sleep(1.0)  # the call is with the provider now
    t0 = time.monotonic()
    gw.stop()  # raised TimeoutError before
    assert time.monotonic() - t0 < 20
