"""A scripted solution any agent can be driven by: it reads the tools the agent offers, picks the
one that runs shell commands, and calls it with the solution's steps, one per turn, then finishes.

The same steps drive every agent, whatever its protocol (agents/scripted/wire.py), so adapters
are compared on equal terms: what differs between two agents' trials is the adapter and the
program, never the model. A request that offers no shell tool (a title, a summary, a quota
check) is answered with a short text and does not advance the solution.

An agent that offers the model no tool at all (aider) edits files through the text of the
model's answer and runs the shell commands it suggests: for it the player says the whole
solution once, in that agent's edit format (``TEXT_FORMATS``), then that the task is done.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from reclaim.agents.scripted.wire import Call, Reply

SHELL_NAMES = ("bash", "shell", "run_shell_command", "exec_command", "shell_command", "execute_bash",
               "run_command", "execute_command", "terminal")
COMMAND_KEYS = ("command", "cmd", "commands", "script")
DONE = "The task is done: results.json and reproduce.sh are in the workspace."
SIDE = "ok"
HEREDOC = "RECLAIM_EOF"
RUN = "bash reproduce.sh && cat results.json"
TEXT_HEAD = "The reference solution: its files, then the command that runs it."


@dataclass(frozen=True)
class Tool:
    """The shell tool an agent offered: its name, the argument the command goes in, whether that
    argument is a list (argv) or a string, and its other required arguments."""

    name: str
    key: str
    argv: bool
    required: dict = field(default_factory=dict)
    kind: str = "function"


def tools_of(body: dict, protocol: str) -> list[tuple[str, dict]]:
    """(name, JSON schema of its arguments) of every function tool offered in the request."""
    out = []
    for t in body.get("tools") or []:
        if not isinstance(t, dict):
            continue
        if protocol == "gemini":
            for d in t.get("functionDeclarations") or t.get("function_declarations") or []:
                out.append((d.get("name", ""), d.get("parameters") or d.get("parametersJsonSchema") or {}))
        elif protocol == "anthropic":
            out.append((t.get("name", ""), t.get("input_schema") or {}))
        elif protocol == "chat":
            f = t.get("function") or {}
            out.append((f.get("name", ""), f.get("parameters") or {}))
        elif t.get("type") == "local_shell":
            out.append(("local_shell", {"local_shell": True}))
        else:
            out.append((t.get("name", ""), t.get("parameters") or {}))
    return out


def shell_tool(body: dict, protocol: str) -> Tool | None:
    """The offered tool that runs a shell command, or None."""
    best: tuple[int, Tool] | None = None
    for name, schema in tools_of(body, protocol):
        if schema.get("local_shell"):
            return Tool("local_shell", "command", True, kind="local_shell")
        props = schema.get("properties") or {}
        key = next((k for k in COMMAND_KEYS if k in props), None)
        low = name.lower()
        if key is None or not (low in SHELL_NAMES or "bash" in low or "shell" in low):
            continue
        rank = SHELL_NAMES.index(low) if low in SHELL_NAMES else len(SHELL_NAMES)
        required = {k: _filler(k, props.get(k) or {}) for k in schema.get("required") or [] if k != key}
        tool = Tool(name, key, (props[key] or {}).get("type") == "array", required)
        if best is None or rank < best[0]:
            best = (rank, tool)
    return best[1] if best else None


def _filler(key: str, schema: dict):
    kind = schema.get("type")
    if "enum" in schema:
        return schema["enum"][0]
    if kind in ("integer", "number"):
        return 600000 if key.endswith("_ms") else 600
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    if kind == "object":
        return {}
    return "." if key in ("workdir", "cwd", "directory", "dir_path") else "a scripted step"


def calls_made(body: dict, protocol: str) -> int:
    """How many tool calls the model made earlier in this conversation."""
    n = 0
    if protocol == "anthropic":
        for m in body.get("messages") or []:
            if m.get("role") == "assistant" and isinstance(m.get("content"), list):
                n += sum(1 for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use")
    elif protocol == "chat":
        n = sum(len(m.get("tool_calls") or []) for m in body.get("messages") or [] if m.get("role") == "assistant")
    elif protocol == "gemini":
        for c in body.get("contents") or []:
            if c.get("role") == "model":
                n += sum(1 for p in c.get("parts") or [] if isinstance(p, dict) and "functionCall" in p)
    else:
        items = body.get("input")
        n = sum(1 for i in items if isinstance(i, dict) and i.get("type") in
                ("function_call", "local_shell_call", "custom_tool_call")) if isinstance(items, list) else 0
    return n


@dataclass
class Player:
    """Plays ``steps`` (shell commands), one per turn, to whichever agent asks; ``finish``: the
    steps an agent needs to end its loop (mini-swe-agent's submit command), played last.
    ``text``: for an agent that offers no tool, the whole solution as one answer in its edit
    format (``solution_text``), said where no shell tool is offered and the request does not
    quote it yet."""

    steps: list[str]
    finish: list[str] = field(default_factory=list)
    tokens_out: int | None = None
    text: str = ""

    def __call__(self, body: dict) -> Reply:
        protocol = body.get("_protocol", "chat")
        tin = max(1, len(json.dumps(body)) // 4)
        tool = shell_tool(body, protocol)
        if tool is None and self.text:
            # said once: a later request quotes it (aider's next turn, or its summary of the chat)
            return self._reply(DONE if TEXT_HEAD in json.dumps(body) else self.text, [], tin)
        if tool is None:
            return self._reply(SIDE, [], tin)
        done = calls_made(body, protocol)
        plan = self.steps + self.finish
        if done >= len(plan):
            return self._reply(DONE, [], tin)
        cmd = plan[done]
        value: str | list[str] = ["bash", "-lc", cmd] if tool.argv else cmd
        call = Call(tool.name, {tool.key: value, **tool.required}, kind=tool.kind)
        return self._reply(f"Step {done + 1} of {len(plan)}.", [call], tin)

    def _reply(self, text: str, calls: list[Call], tin: int) -> Reply:
        out = self.tokens_out or max(1, (len(text) + sum(len(json.dumps(c.arguments)) for c in calls)) // 4)
        return Reply(content=text, tool_calls=list(calls), tokens=(tin, out))


def solution_files(task_dir: Path) -> dict[str, str]:
    """The files of a task's reference solution (its weakened variant left out), by relative path."""
    ref = task_dir / "reference"
    return {f.relative_to(ref).as_posix(): f.read_text(encoding="utf-8")
            for f in sorted(p for p in ref.rglob("*") if p.is_file())
            if not f.relative_to(ref).as_posix().startswith(("ref_weak", "weakened"))}


def solution_steps(task_dir: Path) -> list[str]:
    """The steps that solve a task by its reference solution: look around, write the reference's
    files into the workspace, run its reproduce.sh and show what came out."""
    steps = ["ls; head -5 TASK.md"]
    for rel, text in solution_files(task_dir).items():
        if HEREDOC in text:
            raise ValueError(f"{task_dir / 'reference' / rel}: holds the heredoc marker {HEREDOC}")
        folder = f"mkdir -p {Path(rel).parent.as_posix()} && " if "/" in rel else ""
        steps.append(f"{folder}cat > {rel} <<'{HEREDOC}'\n{text}{'' if text.endswith(chr(10)) else chr(10)}{HEREDOC}")
    steps.append(RUN)
    return steps


_AIDER_MARKS = re.compile(r"^(<{5,9} SEARCH>?|={5,9}|>{5,9} REPLACE)\s*$")


def aider_diff(files: dict[str, str], run: str) -> str:
    """aider's ``diff`` edit format: a SEARCH/REPLACE block per file, whose empty SEARCH creates
    it, and a ```bash block with the command, which aider offers to run (aider/coders/editblock_coder.py)."""
    out = [TEXT_HEAD, ""]
    for rel, text in files.items():
        if any(_AIDER_MARKS.match(line.strip()) for line in text.splitlines()):
            raise ValueError(f"{rel}: holds a line aider would read as a SEARCH/REPLACE marker")
        out += [rel, "```", "<<<<<<< SEARCH", "=======", *text.splitlines(), ">>>>>>> REPLACE", "```", ""]
    return "\n".join([*out, "```bash", run, "```", ""])


TEXT_FORMATS = {"aider-diff": aider_diff}
"""The edit formats of agents that take the model's changes from its text, by name (Tool.text)."""


def solution_text(task_dir: Path, fmt: str) -> str:
    """A task's reference solution as one answer in edit format ``fmt``: its files, then the
    command that runs reproduce.sh."""
    if fmt not in TEXT_FORMATS:
        raise ValueError(f"no edit format {fmt!r}; known: {', '.join(TEXT_FORMATS)}")
    return TEXT_FORMATS[fmt](solution_files(task_dir), RUN)


def task_of(body: dict) -> str | None:
    """The demo task a request is about, from the TASK.md it quotes."""
    m = re.search(r"# Task: ([A-Za-z0-9._-]+)", json.dumps(body))
    return m.group(1) if m else None


@dataclass
class Solutions:
    """A player per task, chosen by the task the request quotes (the TASK.md in its prompt)."""

    players: dict[str, Player]

    def __call__(self, body: dict) -> Reply:
        task = task_of(body)
        player = self.players.get(task or "") or (next(iter(self.players.values())) if len(self.players) == 1
                                                  else None)
        if player is None:
            return Reply(content=SIDE, tokens=(max(1, len(json.dumps(body)) // 4), 1))
        return player(body)
