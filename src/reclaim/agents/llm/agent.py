"""The built-in LLM agent: a tool-calling loop whose model calls go through the gateway and
whose every command runs in the sandbox, on the record."""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from reclaim.agents.base import AgentContext
from reclaim.agents.llm.backends import BACKENDS, Call, ModelRefused
from reclaim.agents.llm.prompt import system_prompt
from reclaim.budget import BudgetExhausted
from reclaim.errors import AgentError
from reclaim.sandbox import Bind, SandboxError
from reclaim.trace import Note

WRITE = ("import base64, pathlib, sys; p = pathlib.Path(sys.argv[1]); p.parent.mkdir(parents=True, exist_ok=True); "
         "p.write_bytes(base64.b64decode(sys.argv[2]))")
OUTPUT_LIMIT = 10_000  # characters of a tool's output the model sees
CONDENSE_AFTER = 60_000  # characters of conversation before old outputs are shortened
KEEP_LAST = 6


@dataclass
class LLMOptions:
    protocol: str = "openai"
    stream: bool = False
    steps: int = 40
    command_timeout: float = 300.0
    model: str | None = None

    @classmethod
    def parse(cls, arg: str) -> LLMOptions:
        """'protocol=anthropic,stream=1,steps=20' -> options."""
        opts = cls()
        for part in filter(None, (p.strip() for p in arg.split(","))):
            key, _, value = part.partition("=")
            if key == "protocol" and value in BACKENDS:
                opts.protocol = value
            elif key == "stream":
                opts.stream = value.lower() in ("1", "true", "yes", "")
            elif key == "steps" and value.isdigit():
                opts.steps = int(value)
            elif key == "timeout":
                opts.command_timeout = float(value)
            elif key == "model" and value:
                opts.model = value
            else:
                raise AgentError(f"llm agent: unknown option '{part}' (protocol=openai|anthropic, "
                                 "stream=0|1, steps=N, timeout=SECONDS, model=NAME)")
        return opts


def _truncate(text: str, limit: int = OUTPUT_LIMIT) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return text[:half] + f"\n[... {len(text) - limit} characters cut; rerun with head/tail/grep to see them ...]\n" \
        + text[-half:]


class LLMAgent:
    """``llm`` or ``llm:protocol=anthropic,stream=1,steps=30``; the model comes from --model."""

    name = "llm"
    needs_model = True
    audited = False  # every step is a recorded command already

    def __init__(self, arg: str = ""):
        self.options = LLMOptions.parse(arg)
        self.model = self.options.model
        """Its own model ('llm:model=M'); None: the run's --model."""

    def binds(self, hidden: Sequence[Path] = ()) -> list[Bind]:
        return []

    def run(self, ctx: AgentContext) -> None:
        if ctx.model is None or not ctx.model.name:
            raise AgentError("the llm agent needs a model: reclaim run --agent llm --model NAME")
        spec = ctx.task.spec
        box = ctx.recorder.sandbox
        system = system_prompt(spec, ctx.recorder.deadline.remaining, box.workspace_inside)
        task_md = (ctx.workspace / "TASK.md").read_text(encoding="utf-8")
        model = BACKENDS[self.options.protocol](ctx.model.host_url, ctx.model.token, ctx.model.name,
                                                self.options.stream, system, task_md)
        summary = "stopped without submitting"
        for step in range(1, self.options.steps + 1):
            if ctx.recorder.deadline.expired:
                raise BudgetExhausted("wall-clock budget used up between steps")
            try:
                turn = model.ask()
            except ModelRefused as e:
                ctx.trace.emit(Note, phase="agent", level="warning", message=f"step {step}: model refused: {e}")
                summary = f"stopped: {e}"
                break
            ctx.trace.emit(Note, phase="agent", level="info", message=(
                f"step {step}: model said {turn.text[:500]!r}; tools: "
                + (", ".join(f"{c.name}({json.dumps(c.arguments)[:200]})" for c in turn.calls) or "none")))
            if not turn.calls:
                model.answer([], "Use a tool. When results.json and reproduce.sh are ready, call submit.")
                continue
            results, done = [], False
            for call in turn.calls:
                if call.name == "submit":
                    summary, done = str(call.arguments.get("summary", "")), True
                    results.append((call, "submitted"))
                else:
                    results.append((call, self._tool(ctx, call)))
            model.answer(results)
            if done:
                break
            if sum(len(json.dumps(m)) for m in model.messages) > CONDENSE_AFTER:
                n = model.condense(KEEP_LAST, 1_000)
                ctx.trace.emit(Note, phase="agent", level="info", message=f"condensed {n} old tool outputs")
        else:
            summary = f"stopped at the step limit ({self.options.steps})"
        ctx.write_log("final_message.md", summary + "\n")
        ctx.write_log("conversation.json", json.dumps(model.messages, indent=1, default=str))

    def _tool(self, ctx: AgentContext, call: Call) -> str:
        args, box = call.arguments, ctx.recorder.sandbox
        try:
            if call.name == "bash":
                timeout = float(args.get("timeout") or self.options.command_timeout)
                res = ctx.recorder.run(["bash", "-lc", str(args.get("command", ""))], timeout=timeout)
                out = res.stdout_path.read_text(errors="replace") + res.stderr_path.read_text(errors="replace")
                state = "timed out" if res.timed_out else f"exit code {res.exit_code}"
                return _truncate(f"[{state}]\n{out}")
            if call.name == "read_file":
                return _truncate(box.read_file(str(args.get("path", ""))).decode("utf-8", "replace"))
            if call.name == "write_file":
                # written by a recorded command, so the trace shows which step made the file
                path, content = str(args.get("path", "")), str(args.get("content", ""))
                res = ctx.recorder.run(["python3", "-c", WRITE, path, base64.b64encode(content.encode()).decode()])
                return f"wrote {path}" if res.ok else f"error: {res.stderr_path.read_text(errors='replace')[-2000:]}"
        except BudgetExhausted:
            raise
        except (OSError, SandboxError, ValueError) as e:
            return f"error: {e}"
        return f"error: unknown tool '{call.name}'"
