"""From inside the sandbox: the gateway is reachable, nothing else is, and no provider key is there."""

from __future__ import annotations

import json

import pytest

from conftest import run_suite, task_yaml, write_agent, write_suite
from reclaim.gateway import Upstreams
from reclaim.trace import ModelCall, read_trace
from scripted_openai import Reply, ScriptedOpenAI

pytestmark = pytest.mark.usefixtures("bwrap_only")

PROBE = r"""
python3 - <<'PY'
import json, os, socket, urllib.request
def call(url, body, headers):
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json", **headers})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)
base = os.environ["OPENAI_BASE_URL"]
r = call(base + "/chat/completions", {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "hi"}]},
         {"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"]})
print("OPENAI", r["choices"][0]["message"]["content"])
r = call(os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages", {"model": "claude-haiku-4-5", "max_tokens": 10,
         "messages": [{"role": "user", "content": "hi"}]}, {"x-api-key": os.environ["ANTHROPIC_API_KEY"]})
print("ANTHROPIC", r["content"][0]["text"])
for host, port in (("127.0.0.1", UPSTREAM_PORT), ("10.0.0.1", 80), ("1.1.1.1", 443)):
    try:
        socket.create_connection((host, port), timeout=2); print("REACHED", host)
    except OSError as e:
        print("BLOCKED", host)
PY
env > env.txt
ps -eo args > ps.txt
cat /proc/*/environ 2>/dev/null | tr '\0' '\n' > proc_env.txt
grep -rlE "sk-prov[i]der" /workspace /run /tmp /var /etc /agent-logs 2>/dev/null > found.txt || true
"""


def test_gateway_reachable_nothing_else_no_keys(tmp_path, sandbox_name, monkeypatch):
    upstream = ScriptedOpenAI()
    upstream.push(Reply(content="hello from openai", tokens=(5, 2)),
                  Reply(content="hello from anthropic", tokens=(6, 3)))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-provider-openai-secret")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-provider-anthropic-secret")
    port = upstream.base.rsplit(":", 1)[1]
    agent = write_agent(tmp_path / "probe.sh", PROBE.replace("UPSTREAM_PORT", port))
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    try:
        rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name,
                               upstreams=Upstreams(openai_base_url=upstream.url, anthropic_base_url=upstream.base))
    finally:
        upstream.close()
    tdir = rd.trial_dir(rec.trial_id)
    out = next((tdir / "logs").glob("agent-*.stdout")).read_text()
    err = next((tdir / "logs").glob("agent-*.stderr")).read_text()
    assert "OPENAI hello from openai" in out and "ANTHROPIC hello from anthropic" in out, err
    assert "REACHED" not in out and out.count("BLOCKED") == 3
    ws = tdir / "workspace"
    for name in ("env.txt", "ps.txt", "proc_env.txt"):
        assert "sk-provider" not in (ws / name).read_text(), name
    assert (ws / "found.txt").read_text() == ""
    assert "OPENAI_API_KEY=rcl-" in (ws / "env.txt").read_text()  # the trial's own token instead
    # the upstream saw the provider keys; the trace saw both calls with their tokens
    assert [r["auth"] or r["x-api-key"] for r in upstream.requests] == \
        ["Bearer sk-provider-openai-secret", "sk-provider-anthropic-secret"]
    model_calls = [e for e in read_trace(tdir / "trace.jsonl") if isinstance(e, ModelCall)]
    assert [(c.protocol, c.tokens_in, c.tokens_out) for c in model_calls] == [("openai", 5, 2), ("anthropic", 6, 3)]
    trial = json.loads((tdir / "trial.json").read_text())
    assert trial["budget"]["model_calls"] == 2 and trial["budget"]["model_tokens"] == 16
