"""The coding agents people use, run as black boxes inside the sandbox, through the gateway.

Each adapter says how the tool is found or installed, how it is launched non-interactively
with the task, which environment points it at the gateway, and where its transcript goes.
Their homes (config, caches, transcripts) live under the trial's agent/ folder: untrusted.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reclaim.agents.base import AgentContext
from reclaim.agents.transcripts import PARSERS
from reclaim.errors import AgentError
from reclaim.sandbox import Bind, untrusted
from reclaim.trace import Note

PROMPT = ("You are in a sandbox with no network, working on a research-reproduction task. Read TASK.md "
          "in the current directory and do what it asks: reproduce the paper's result by running code, "
          "then leave results.json and reproduce.sh in this directory. Never write a number by hand.\n\n")


def agents_home() -> Path:
    """Where reclaim keeps the virtual environments of Python-based agents."""
    return Path(os.environ.get("RECLAIM_AGENTS_HOME", Path.home() / ".local" / "share" / "reclaim" / "agents"))


@dataclass(frozen=True)
class Tool:
    name: str
    binary: str
    install: str
    protocol: str
    argv: Callable[[str, str, str], list[str]]
    """(prompt, model, agent log dir inside) -> command line."""
    env: Callable[[str, str, str], dict[str, str]] = lambda model, url, logs: {}
    """(model, gateway url inside, agent log dir inside) -> extra environment."""
    venv: bool = False
    transcript: str = "stdout"
    tested: bool = False
    """Exercised against the real binary in this project's tests."""
    unsupported: str = ""


def _venv_install(package: str, name: str) -> str:
    return f"reclaim agents install {name}"


VENV_PACKAGES = {"openhands": "openhands-ai", "mini-swe-agent": "mini-swe-agent", "aider": "aider-chat"}


def install(tool: Tool) -> list[list[str]]:
    """The commands that install a tool: a virtual environment of its own for Python agents."""
    if not tool.venv:
        return [tool.install.split()]
    venv = agents_home() / tool.name
    return [[sys.executable, "-m", "venv", str(venv)],
            [str(venv / "bin" / "pip"), "install", "--disable-pip-version-check", VENV_PACKAGES[tool.name]]]


TOOLS = {t.name: t for t in [
    Tool("claude-code", "claude", "npm install -g @anthropic-ai/claude-code", "anthropic",
         lambda p, m, logs: ["claude", "-p", p, "--output-format", "stream-json", "--verbose",
                             "--dangerously-skip-permissions", "--model", m],
         lambda m, url, logs: {"ANTHROPIC_MODEL": m, "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1",
                               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}),
    Tool("codex", "codex", "npm install -g @openai/codex", "openai",
         lambda p, m, logs: ["codex", "exec", "--json", "--skip-git-repo-check",
                             "--dangerously-bypass-approvals-and-sandbox", "-m", m, p],
         lambda m, url, logs: {"CODEX_HOME": f"{logs}/home/.codex"}),
    Tool("gemini-cli", "gemini", "npm install -g @google/gemini-cli", "gemini",
         lambda p, m, logs: ["gemini", "-p", p, "--yolo", "-m", m],
         lambda m, url, logs: {"GOOGLE_GEMINI_BASE_URL": url, "GEMINI_MODEL": m}),
    Tool("openhands", "python", _venv_install("openhands-ai", "openhands"), "openai",
         lambda p, m, logs: ["python", "-m", "openhands.core.main", "-t", p],
         lambda m, url, logs: {"LLM_MODEL": f"openai/{m}", "LLM_BASE_URL": f"{url}/v1", "RUNTIME": "local",
                               "WORKSPACE_BASE": ".", "FILE_STORE_PATH": f"{logs}/openhands"},
         venv=True),
    Tool("mini-swe-agent", "mini", _venv_install("mini-swe-agent", "mini-swe-agent"), "openai",
         lambda p, m, logs: ["mini", "-y", "--exit-immediately", "-l", "0", "-m", f"openai/{m}", "-t", p,
                             "-o", f"{logs}/mini.traj.json"],
         lambda m, url, logs: {"MSWEA_CONFIGURED": "true", "MSWEA_COST_TRACKING": "ignore_errors",
                               "MSWEA_SILENT_STARTUP": "1", "MSWEA_GLOBAL_CONFIG_DIR": f"{logs}/home/mini",
                               "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
         venv=True, transcript="mini.traj.json", tested=True),
    Tool("aider", "aider", _venv_install("aider-chat", "aider"), "openai",
         lambda p, m, logs: ["aider", "--message", p, "--yes-always", "--no-git", "--no-auto-commits",
                             "--no-check-update", "--no-show-model-warnings", "--analytics-disable",
                             "--model", f"openai/{m}", "--chat-history-file", f"{logs}/aider.chat.md"],
         venv=True, transcript="aider.chat.md"),
]}


def locate(tool: Tool) -> Path | None:
    """The tool's executable on this machine, or None."""
    if tool.venv:
        exe = agents_home() / tool.name / "bin" / tool.binary
        return exe if exe.exists() else None
    found = shutil.which(tool.binary)
    return Path(found) if found else None


def availability(tool: Tool) -> tuple[bool, str]:
    if tool.unsupported:
        return False, tool.unsupported
    exe = locate(tool)
    return (True, str(exe)) if exe else (False, f"not installed; install with: {tool.install}")


@dataclass
class ExternalAgent:
    """A third-party coding agent; ``external:NAME`` or just its name."""

    tool: Tool
    needs_model: bool = True
    audited: bool = True
    name: str = field(init=False)

    def __post_init__(self) -> None:
        self.name = self.tool.name

    def binds(self, hidden: Sequence[Path] = ()) -> list[Bind]:
        if self.tool.venv and locate(self.tool) is not None:
            venv = (agents_home() / self.tool.name).resolve()
            # at its own path: its scripts name their interpreter, whose install comes in with it
            # (not reclaim's own environment: the agent's programs run with the trial's)
            base = Path(sys.base_prefix).resolve()
            return [Bind(venv, str(venv)), *([] if str(base).startswith("/usr/") else [Bind(base, str(base))])]
        return []

    def run(self, ctx: AgentContext) -> None:
        ok, why = availability(self.tool)
        if not ok:
            raise AgentError(f"agent {self.name} cannot run here: {why}")
        if ctx.model is None or not ctx.model.name:
            raise AgentError(f"agent {self.name} needs a model: --model NAME")
        box = ctx.recorder.sandbox
        logs = box.inside(ctx.agent_logs)
        (ctx.agent_logs / "home").mkdir(exist_ok=True)
        ctx.give(ctx.agent_logs / "home")
        url = box.gateway_url(ctx.model.host_url)
        env = ctx.env() | {"HOME": f"{logs}/home"} | self.tool.env(ctx.model.name, url, logs)
        if self.tool.venv:
            venv_bin = str((agents_home() / self.tool.name).resolve() / "bin")
            # the trial's environment first, so the tool's own Python is not what its commands get
            env["PATH"] = f"{box.config.env.get('PATH', '/usr/local/bin:/usr/bin:/bin')}:{venv_bin}"
        task = (ctx.workspace / "TASK.md").read_text(encoding="utf-8")
        res = ctx.recorder.run(self.tool.argv(PROMPT + task, ctx.model.name, logs), env=env)
        parse = PARSERS.get(self.tool.name)
        transcript: str | None
        if self.tool.transcript == "stdout":  # the harness's own capture: read its ends only
            transcript = untrusted.read_ends(res.stdout_path, 16 << 20)[0].decode("utf-8", "replace")
        else:
            transcript = ctx.read_log(self.tool.transcript)
        if parse is not None and transcript:
            for step in parse(transcript)[:500]:
                ctx.trace.emit(Note, phase="agent", level="info", message=f"[untrusted transcript] {step[:1000]}")
