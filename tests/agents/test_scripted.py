"""The scripted model: each provider's wire format, read back by a real client or a strict parser,
and the player's choice of shell tool among the tools real agents offer."""

from __future__ import annotations

import json
import subprocess

import httpx
import openai
import pytest

from reclaim.agents.scripted import (
    DONE,
    Player,
    Reply,
    ScriptedModel,
    Solutions,
    shell_tool,
    solution_steps,
    solution_text,
)
from reclaim.agents.scripted.player import aider_diff, calls_made
from reclaim.suites import bundled

STEP = "echo 'a \"quoted\" step' > out.txt"


@pytest.fixture
def model():
    with ScriptedModel() as m:
        yield m


def sse(text: str) -> list[tuple[str | None, dict | str]]:
    """Server-sent events as (event name, data), strictly: every event ends with a blank line."""
    assert text.endswith("\n\n"), text[-50:]
    out = []
    for block in text.strip("\n").split("\n\n"):
        name, data = None, None
        for line in block.split("\n"):
            field, _, value = line.partition(": ")
            if field == "event":
                name = value
            elif field == "data":
                data = value if value == "[DONE]" else json.loads(value)
            else:
                raise AssertionError(f"unexpected line {line!r}")
        out.append((name, data))
    return out


def test_chat_completions_streamed_with_a_tool_call_read_by_the_openai_client(model):
    model.push(Reply(content="thinking", tool_calls=[{"name": "bash", "arguments": {"command": STEP}}],
                     tokens=(321, 45)))
    client = openai.OpenAI(base_url=model.url, api_key="k")
    stream = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "go"}], stream=True,
                                            stream_options={"include_usage": True})
    text, args, usage, finish = "", "", None, None
    for chunk in stream:
        if chunk.usage:
            usage = chunk.usage
        for ch in chunk.choices:
            text += ch.delta.content or ""
            finish = ch.finish_reason or finish
            for tc in ch.delta.tool_calls or []:
                args += tc.function.arguments or ""
    assert text == "thinking" and json.loads(args) == {"command": STEP} and finish == "tool_calls"
    assert (usage.prompt_tokens, usage.completion_tokens) == (321, 45)


def test_responses_streamed_with_a_function_call_read_by_the_openai_client(model):
    model.push(Reply(content="ok", tool_calls=[{"name": "shell", "arguments": {"command": ["bash", "-lc", STEP]}}],
                     tokens=(500, 7)))
    client = openai.OpenAI(base_url=model.url, api_key="k")
    with client.responses.stream(model="m", input="go") as stream:
        final = stream.get_final_response()
    calls = [o for o in final.output if o.type == "function_call"]
    assert final.output_text == "ok" and json.loads(calls[0].arguments)["command"][2] == STEP
    assert (final.usage.input_tokens, final.usage.output_tokens) == (500, 7)


def test_anthropic_messages_streamed_as_the_api_sends_them(model):
    model.push(Reply(content="I will run it.", tool_calls=[{"name": "Bash", "arguments": {"command": STEP}}],
                     tokens=(1200, 30)))
    r = httpx.post(model.base + "/v1/messages", json={"model": "claude-x", "stream": True, "max_tokens": 100,
                                                      "messages": [{"role": "user", "content": "go"}]})
    events = sse(r.text)
    names = [n for n, _ in events]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    assert all(n == d["type"] for n, d in events)
    blocks: dict[int, dict] = {}
    for _, d in events:
        if d["type"] == "content_block_start":
            blocks[d["index"]] = {**d["content_block"], "json": ""}
        elif d["type"] == "content_block_delta":
            b = blocks[d["index"]]
            b["text" if d["delta"]["type"] == "text_delta" else "json"] += \
                d["delta"].get("text") or d["delta"].get("partial_json", "")
    assert blocks[0]["text"] == "I will run it." and blocks[1]["name"] == "Bash"
    assert json.loads(blocks[1]["json"]) == {"command": STEP}
    assert events[0][1]["message"]["usage"]["input_tokens"] == 1200
    assert events[-2][1]["usage"]["output_tokens"] == 30 and events[-2][1]["delta"]["stop_reason"] == "tool_use"


def test_gemini_streamed_and_plain(model):
    reply = Reply(content="Running.", tool_calls=[{"name": "run_shell_command", "arguments": {"command": STEP}}],
                  tokens=(800, 20))
    model.push(reply, reply)
    r = httpx.post(model.base + "/v1beta/models/gemini-x:streamGenerateContent?alt=sse", json={"contents": []})
    chunks = [d for _, d in sse(r.text)]
    parts = [p for c in chunks for p in c["candidates"][0]["content"]["parts"]]
    assert "".join(p.get("text", "") for p in parts) == "Running."
    assert [p["functionCall"] for p in parts if "functionCall" in p] == [{"name": "run_shell_command",
                                                                          "args": {"command": STEP}}]
    assert "finishReason" in chunks[-1]["candidates"][0] and "finishReason" not in chunks[0]["candidates"][0]
    assert chunks[-1]["usageMetadata"]["candidatesTokenCount"] == 20
    plain = httpx.post(model.base + "/v1beta/models/gemini-x:generateContent", json={"contents": []}).json()
    assert plain["usageMetadata"]["promptTokenCount"] == 800
    assert [s.protocol for s in model.served] == ["gemini", "gemini"] and model.served[0].stream


# the shell tools real agents offer, as their requests carry them
CLAUDE = {"name": "Bash", "input_schema": {"type": "object", "required": ["command"], "properties": {
    "command": {"type": "string"}, "timeout": {"type": "number"}, "description": {"type": "string"},
    "run_in_background": {"type": "boolean"}}}}
CODEX = {"type": "function", "name": "shell", "parameters": {"type": "object", "required": ["command"], "properties": {
    "command": {"type": "array", "items": {"type": "string"}}, "workdir": {"type": "string"},
    "timeout_ms": {"type": "number"}}}}
GEMINI = {"functionDeclarations": [
    {"name": "read_file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}},
    {"name": "run_shell_command", "parameters": {"type": "object", "required": ["command"], "properties": {
        "command": {"type": "string"}, "description": {"type": "string"}, "dir_path": {"type": "string"}}}}]}
OPENHANDS = {"type": "function", "function": {"name": "execute_bash", "parameters": {
    "type": "object", "required": ["command", "security_risk"], "properties": {
        "command": {"type": "string"}, "is_input": {"type": "string", "enum": ["true", "false"]},
        "security_risk": {"type": "string", "enum": ["LOW", "MEDIUM", "HIGH"]}}}}}


@pytest.mark.parametrize(("protocol", "tools", "want"), [
    ("anthropic", [{"name": "Read", "input_schema": {"properties": {"file_path": {}}}}, CLAUDE],
     ("Bash", "command", False)),
    ("responses", [CODEX], ("shell", "command", True)),
    ("gemini", [GEMINI], ("run_shell_command", "command", False)),
    ("chat", [OPENHANDS], ("execute_bash", "command", False)),
    ("responses", [{"type": "local_shell"}], ("local_shell", "command", True)),
])
def test_the_player_finds_the_shell_tool_each_agent_offers(protocol, tools, want):
    tool = shell_tool({"tools": tools}, protocol)
    assert (tool.name, tool.key, tool.argv) == want
    if tool.name == "execute_bash":
        assert tool.required == {"security_risk": "LOW"}


def test_the_player_plays_one_step_per_turn_then_finishes():
    player = Player(["ls", "bash reproduce.sh"])
    body = {"_protocol": "anthropic", "tools": [CLAUDE], "messages": [{"role": "user", "content": "go"}]}
    first = player(body)
    assert first.calls[0].name == "Bash" and first.calls[0].arguments["command"] == "ls"
    body["messages"] += [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "Bash",
                                                            "input": {"command": "ls"}}]},
                         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x"}]}]
    assert calls_made(body, "anthropic") == 1
    assert player(body).calls[0].arguments["command"] == "bash reproduce.sh"
    body["messages"] += body["messages"][1:]
    done = player(body)
    assert done.text == DONE and not done.tool_calls
    side = player({"_protocol": "anthropic", "messages": [{"role": "user", "content": "a title for this"}]})
    assert side.text == "ok" and not side.tool_calls  # no shell tool: a side request, the solution waits
    codex = player({"_protocol": "responses", "tools": [CODEX], "input": [
        {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c"},
        {"type": "function_call_output", "call_id": "c", "output": "x"}]})
    assert codex.calls[0].arguments["command"] == ["bash", "-lc", "bash reproduce.sh"]


def test_solutions_follow_the_task_the_request_quotes_and_the_steps_write_the_reference(tmp_path):
    demo = bundled()["demo"]
    steps = solution_steps(demo / "reimplement-huber-irls")
    both = Solutions({"reimplement-huber-irls": Player(steps), "retrain-bic-dag": Player(["true"])})
    body = {"_protocol": "chat", "tools": [{"type": "function", "function": {"name": "bash", "parameters": {
        "properties": {"command": {"type": "string"}}}}}],
        "messages": [{"role": "user", "content": "# Task: retrain-bic-dag\n..."}]}
    assert both(body).calls[0].arguments["command"] == "true"
    for step in steps[1:-1]:  # write the reference's files as the agent would
        subprocess.run(["bash", "-c", step], cwd=tmp_path, check=True)
    for f in (demo / "reimplement-huber-irls" / "reference").iterdir():
        if f.is_file() and not f.name.startswith(("ref_weak", "weakened")):
            assert (tmp_path / f.name).read_bytes() == f.read_bytes()


def test_an_agent_without_a_shell_tool_gets_the_solution_once_in_its_edit_format():
    """aider offers no tool: the whole solution in its diff format (a SEARCH/REPLACE block with an
    empty SEARCH creates each file) and a ```bash block running reproduce.sh, then 'done'."""
    demo = bundled()["demo"] / "reimplement-huber-irls"
    text = solution_text(demo, "aider-diff")
    lines = text.splitlines()
    for name in ("ref_huber.py", "reproduce.sh"):
        i = lines.index(name)
        assert lines[i + 1:i + 4] == ["```", "<<<<<<< SEARCH", "======="]
        body = lines[i + 4:lines.index(">>>>>>> REPLACE", i)]
        assert "\n".join(body) + "\n" == (demo / "reference" / name).read_text()
    assert "ref_weak_huber.py" not in lines and lines[-3:] == ["```bash", "bash reproduce.sh && cat results.json",
                                                               "```"]
    player = Player(solution_steps(demo), text=text)
    first = {"_protocol": "chat", "messages": [{"role": "user", "content": "# Task: reimplement-huber-irls"}]}
    assert player(first).text == text and not player(first).tool_calls
    later = {**first, "messages": [*first["messages"], {"role": "assistant", "content": text},
                                   {"role": "user", "content": "Output from bash reproduce.sh ..."}]}
    assert player(later).text == DONE
    summary = {"_protocol": "chat", "messages": [{"role": "user", "content": "# USER ...# ASSISTANT " + text}]}
    assert player(summary).text == DONE  # its summary of the chat quotes the solution: not said again
    with pytest.raises(ValueError, match="SEARCH/REPLACE marker"):
        aider_diff({"a.txt": "x\n=======\ny\n"}, "true")
    with pytest.raises(ValueError, match="no edit format"):
        solution_text(demo, "udiff")
