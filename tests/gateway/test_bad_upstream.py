"""A provider that misbehaves: malformed JSON, a truncated body, a stream cut mid-event, SSE garbage,
a 429 with Retry-After, a 503, a connection closed before any answer. Through the gateway each is an
answer the agent can handle (the provider's own status passed on, or a 502 that says why), every
call is recorded, metering never crashes, and the gateway goes on serving (issue 25)."""

from __future__ import annotations

import socket
import threading

import httpx
import pytest

from reclaim.gateway import Gateway, Upstreams
from reclaim.trace import ModelCall, TraceWriter, read_trace

BODY = (b'{"id": "x", "choices": [{"message": {"role": "assistant", "content": "hi"}}], '
        b'"usage": {"prompt_tokens": 5, "completion_tokens": 2}}')
ANSWERS = {
    "malformed-json": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n{not json",
    "truncated": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n" + BODY[:40],
    "sse-cut": (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
                b'data: {"choices": [{"delta": {"content": "he"}}]}\n\ndata: {"choi'),
    "sse-garbage": (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
                    b"\x00\xff\xfe garbage\n\ndata: [DONE]\n\n"),
    "rate-limited": (b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nContent-Type: application/json\r\n"
                     b'Content-Length: 33\r\n\r\n{"error": {"message": "slow it"}}'),
    "unavailable": b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n",
    "closed": b"",
    "fine": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(BODY) + BODY,
}


class RawUpstream:
    """Answers each request with the raw bytes of the kind the path names (/KIND/v1/...), then closes."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                head = b""
                while b"\r\n\r\n" not in head:
                    piece = conn.recv(65536)
                    if not piece:
                        break
                    head += piece
                kind = head.split(b" ", 2)[1].decode().split("/")[1] if b" " in head else "closed"
                try:
                    conn.sendall(ANSWERS.get(kind, b""))
                except OSError:
                    pass


@pytest.mark.parametrize("kind", list(ANSWERS))
def test_a_misbehaving_provider_is_an_answer_and_a_record_never_a_crash(kind, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-provider-openai")
    up = RawUpstream()
    gw = Gateway(Upstreams(openai_base_url=f"{up.url}/{kind}/v1")).start()
    try:
        trace = TraceWriter(tmp_path / "trial" / "trace.jsonl")
        acct = gw.open_account("t", trace, tmp_path / "trial" / "agent" / "llm-calls", max_tokens=None)
        body = {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "hi"}],
                "stream": kind.startswith("sse")}
        with httpx.Client(timeout=30) as client:
            for _ in range(2):  # and again: the gateway goes on serving
                try:
                    r = client.post(f"{gw.url}/v1/chat/completions", json=body,
                                    headers={"Authorization": f"Bearer {acct.token}"})
                    status = r.status_code
                except httpx.HTTPError:  # a stream cut short reaches the agent cut short: its to handle
                    status = None
                expected = {"rate-limited": 429, "unavailable": 503, "fine": 200}
                if kind in expected:
                    assert status == expected[kind]
                elif status is not None and status != 200:
                    assert status in (502, 504)
                if kind == "rate-limited":  # the provider's word on when to come back reaches the agent
                    assert r.headers.get("retry-after") == "1"
        acct.settle()
        calls = [e for e in read_trace(trace.path) if isinstance(e, ModelCall)]
        assert len(calls) == 2
        assert all(c.tokens_in >= 0 and c.tokens_out >= 0 for c in calls)
        if kind == "fine":
            assert calls[0].tokens_in == 5 and calls[0].tokens_out == 2
    finally:
        gw.stop()
        up.sock.close()


STREAMING = r"""
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(4)
print(s.getsockname()[1], flush=True)
conn, _ = s.accept()
head = b""
while b"\r\n\r\n" not in head:
    head += conn.recv(65536)
conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
while True:  # one event a tenth of a second, until killed
    conn.sendall(b'data: {"choices": [{"delta": {"content": "tok"}}]}\n\n')
    time.sleep(0.1)
"""


def test_an_upstream_killed_mid_stream_ends_the_call_and_the_next_is_a_502_never_a_hang(tmp_path, monkeypatch):
    import signal
    import subprocess
    import sys

    monkeypatch.setenv("OPENAI_API_KEY", "sk-provider-openai")
    up = subprocess.Popen([sys.executable, "-c", STREAMING], stdout=subprocess.PIPE, text=True)
    assert up.stdout is not None
    port = int(up.stdout.readline())
    gw = Gateway(Upstreams(openai_base_url=f"http://127.0.0.1:{port}/v1")).start()
    try:
        trace = TraceWriter(tmp_path / "trial" / "trace.jsonl")
        acct = gw.open_account("t", trace, tmp_path / "trial" / "agent" / "llm-calls", max_tokens=None)
        body = {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "hi"}], "stream": True}
        got, cut = b"", False
        with httpx.Client(timeout=30) as client:
            try:
                with client.stream("POST", f"{gw.url}/v1/chat/completions", json=body,
                                   headers={"Authorization": f"Bearer {acct.token}"}) as r:
                    for chunk in r.iter_bytes():
                        got += chunk
                        if got.count(b"data:") >= 3 and up.poll() is None:
                            up.send_signal(signal.SIGKILL)  # the provider's process dies mid-answer
            except httpx.HTTPError:
                cut = True
            assert up.wait(10) == -signal.SIGKILL and got.count(b"data:") >= 3
            again = client.post(f"{gw.url}/v1/chat/completions", json={**body, "stream": False},
                                headers={"Authorization": f"Bearer {acct.token}"})
            assert again.status_code == 502  # nobody listens there now: said at once
        acct.settle()
        calls = [e for e in read_trace(trace.path) if isinstance(e, ModelCall)]
        assert len(calls) == 2 and all(c.tokens_in >= 0 and c.tokens_out >= 0 for c in calls)
        assert cut or got.endswith(b"\n\n")  # the agent saw a stream cut short, or its events whole
    finally:
        gw.stop()
        if up.poll() is None:
            up.kill()
