"""Third-party transcripts turned into one-line steps for the trace. They are the agents' own
accounts, so every step is marked untrusted; the harness's command record stays the evidence."""

from __future__ import annotations

import json


def _lines(text: str):
    for line in text.splitlines():
        try:
            yield json.loads(line)
        except ValueError:
            continue


def claude_code(text: str) -> list[str]:
    steps = []
    for ev in _lines(text):
        if ev.get("type") == "assistant":
            for block in (ev.get("message") or {}).get("content") or []:
                if block.get("type") == "text" and block.get("text"):
                    steps.append(f"said: {block['text'][:300]}")
                elif block.get("type") == "tool_use":
                    steps.append(f"tool {block.get('name')}: {json.dumps(block.get('input'))[:300]}")
        elif ev.get("type") == "result":
            steps.append(f"result: {str(ev.get('result'))[:300]}")
    return steps


def codex(text: str) -> list[str]:
    steps = []
    for ev in _lines(text):
        item = ev.get("item") or ev.get("msg") or {}
        kind = item.get("type") or ev.get("type")
        detail = item.get("command") or item.get("text") or item.get("message") or ""
        if detail:
            steps.append(f"{kind}: {str(detail)[:300]}")
    return steps


def mini_swe_agent(text: str) -> list[str]:
    try:
        traj = json.loads(text)
    except ValueError:
        return []
    steps = []
    for m in traj.get("messages") or []:
        if m.get("role") != "assistant":
            continue
        if m.get("content"):
            steps.append(f"said: {str(m['content'])[:300]}")
        for call in m.get("tool_calls") or []:
            fn = call.get("function") or {}
            steps.append(f"tool {fn.get('name')}: {str(fn.get('arguments'))[:300]}")
    return steps


def gemini_cli(text: str) -> list[str]:
    """gemini --output-format stream-json: one event a line (message, tool_use, tool_result, result)."""
    steps = []
    for ev in _lines(text):
        kind = ev.get("type")
        if kind == "message" and ev.get("role") == "assistant" and ev.get("content"):
            steps.append(f"said: {str(ev['content'])[:300]}")
        elif kind == "tool_use":
            steps.append(f"tool {ev.get('tool_name')}: {json.dumps(ev.get('parameters'))[:300]}")
        elif kind == "result":
            steps.append(f"result: {str(ev.get('status') or ev.get('response') or '')[:300]}")
    return steps


def aider(text: str) -> list[str]:
    return [line[:300] for line in text.splitlines() if line.startswith(("#### ", "> "))]


def openhands(text: str) -> list[str]:
    """openhands --headless --json: one event a line (MessageEvent, ActionEvent, ObservationEvent)."""
    steps = []
    for ev in _lines(text):
        if not isinstance(ev, dict):
            continue
        if ev.get("kind") == "ActionEvent" and isinstance(ev.get("action"), dict):
            act = ev["action"]
            what = act.get("command") if isinstance(act.get("command"), str) else json.dumps(act)
            steps.append(f"tool {ev.get('tool_name') or act.get('kind')}: {what[:300]}")
        elif ev.get("kind") == "MessageEvent" and ev.get("source") == "agent":
            content = (ev.get("llm_message") or {}).get("content") or []
            said = "".join(c.get("text", "") for c in content if isinstance(c, dict)) if isinstance(content, list) \
                else str(content)
            steps.append(f"said: {said[:300]}")
    return steps


PARSERS = {"claude-code": claude_code, "codex": codex, "gemini-cli": gemini_cli, "mini-swe-agent": mini_swe_agent,
           "aider": aider, "openhands": openhands}
