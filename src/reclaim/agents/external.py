"""The coding agents people use, run as black boxes inside the sandbox, through the gateway.

Each adapter says how the tool is found or installed, how it is launched non-interactively
with the task, which environment points it at the gateway, and where its transcript goes.
Their homes (config, caches, transcripts) live under the trial's agent/ folder: untrusted.
"""

from __future__ import annotations

import json
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
    package: str
    """Its package: on npm (``npm``), else on PyPI, installed into a virtual environment of its own."""
    version: str
    """The version reclaim installs, and tested where ``tested``."""
    protocol: str
    argv: Callable[[str, str, str], list[str]]
    """(prompt, model, agent log dir inside) -> command line."""
    env: Callable[[str, str, str], dict[str, str]] = lambda model, url, logs: {}
    """(model, gateway url inside, agent log dir inside) -> extra environment."""
    npm: bool = False
    transcript: str = "stdout"
    tested: bool = False
    """Exercised against the real program at ``version`` in this project's tests."""
    unsupported: str = ""
    files: Callable[[str, str, str], dict[str, str]] = lambda model, url, logs: {}
    """(model, gateway url inside, agent log dir inside) -> files written into its home before it
    starts (relative path -> text): the settings it reads from files rather than the environment."""
    finish: tuple[str, ...] = ()
    """Shell steps that end its loop, where it ends on a command rather than a final answer
    (the scripted model plays them last)."""
    token_env: tuple[str, ...] = ()
    """Variables it reads its API key from, besides the providers' own (which the trial's
    environment already sets): they get the trial's gateway token."""
    python: str = ""
    """The Python it requires where reclaim's own will not do (e.g. "3.12"): its virtual
    environment is made with that interpreter (``python_for``)."""
    text: str = ""
    """Where it offers the model no shell tool but takes its changes from the answer's text: the
    edit format it is launched with (agents/scripted TEXT_FORMATS), in which the scripted model
    writes the solution."""

    @property
    def venv(self) -> bool:
        return not self.npm

    @property
    def install(self) -> str:
        return f"reclaim agents install {self.name}"

    @property
    def home(self) -> Path:
        """Where reclaim installs it: a folder of its own under agents_home()."""
        return agents_home() / self.name

    @property
    def bin_dir(self) -> Path:
        return self.home / ("node_modules/.bin" if self.npm else "bin")


def python_for(version: str) -> str:
    """An interpreter of Python ``version`` ("3.12"): reclaim's own if it is that version, else
    pythonX.Y on PATH, else pyenv's newest X.Y.*; else an AgentError saying what is missing."""
    if not version or sys.version.startswith(version + "."):
        return sys.executable
    found = shutil.which(f"python{version}")
    if found and "/shims/" not in found:  # a pyenv shim refuses a version not selected
        return found
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    versions = sorted(root.glob(f"{version}.*/bin/python{version}"),
                      key=lambda p: [int(x) if x.isdigit() else 0 for x in p.parents[1].name.split(".")])
    if versions:
        return str(versions[-1])
    raise AgentError(f"it needs Python {version}: no python{version} on PATH nor in {root}")


def install(tool: Tool) -> list[list[str]]:
    """The commands that install a tool at its pinned version, in a folder of its own."""
    if tool.npm:
        return [["npm", "install", "--no-fund", "--no-audit", "--prefix", str(tool.home),
                 f"{tool.package}@{tool.version}"]]
    return [[python_for(tool.python), "-m", "venv", str(tool.home)],
            [str(tool.home / "bin" / "pip"), "install", "--disable-pip-version-check",
             f"{tool.package}=={tool.version}"]]


def _claude_env(m: str, url: str, logs: str) -> dict[str, str]:
    """Every model Claude Code may call set to the chosen one (its sub-agents and the haiku-class
    model of its side calls default to Anthropic's own names), and no traffic but the model's."""
    pinned = ("ANTHROPIC_MODEL", "ANTHROPIC_SMALL_FAST_MODEL", "ANTHROPIC_DEFAULT_HAIKU_MODEL",
              "ANTHROPIC_DEFAULT_SONNET_MODEL", "ANTHROPIC_DEFAULT_OPUS_MODEL", "CLAUDE_CODE_SUBAGENT_MODEL")
    return dict.fromkeys(pinned, m) | {
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1", "IS_SANDBOX": "1"}  # IS_SANDBOX: it runs as the sandbox's user, maybe root


def _codex_config(m: str, url: str, logs: str) -> dict[str, str]:
    """Codex reads its provider from config.toml (OPENAI_BASE_URL is not read): the gateway, over
    the Responses API, keyed by the trial's token; no analytics, no plugin sync."""
    return {".codex/config.toml": f"""model = "{m}"
model_provider = "reclaim"

[model_providers.reclaim]
name = "reclaim gateway"
base_url = "{url}/v1"
env_key = "OPENAI_API_KEY"
wire_api = "responses"

[analytics]
enabled = false

[features]
plugins = false
"""}


def _gemini_settings(m: str, url: str, logs: str) -> dict[str, str]:
    """API-key auth chosen (else the base URL makes it pick an auth it then refuses), no folder
    trust prompt (which would quietly undo --yolo), no usage statistics."""
    return {".gemini/settings.json": json.dumps({
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
        "privacy": {"usageStatisticsEnabled": False}, "model": {"disableLoopDetection": True}}, indent=2)}


def _aider_argv(p: str, m: str, logs: str) -> list[str]:
    """One message, then it exits. Its edits come in the diff edit format (SEARCH/REPLACE blocks,
    and ```bash blocks for the commands it offers to run: the format the scripted model writes).
    Not --yes-always: that answers no to running a command (aider 0.86 asks it with
    explicit_yes_required); with no terminal (the sandbox's stdin is /dev/null) every question
    takes its default, which is yes, commands included. Every model it may call (its weak model
    for summaries, its editor model) is the chosen one; no git, no URL scraping (it would offer
    to install a browser), no update check, no analytics."""
    om = f"openai/{m}"
    return ["aider", "--message", p, "--edit-format", "diff", "--model", om, "--weak-model", om,
            "--editor-model", om, "--no-fancy-input", "--no-pretty", "--no-git", "--no-auto-commits",
            "--no-detect-urls", "--no-check-update", "--no-show-release-notes", "--no-show-model-warnings",
            "--analytics-disable", "--chat-history-file", f"{logs}/aider.chat.md",
            "--input-history-file", f"{logs}/aider.input.history", "--llm-history-file", f"{logs}/aider.llm.history"]


def _aider_files(m: str, url: str, logs: str) -> dict[str, str]:
    """aider fetches litellm's model price list from GitHub unless its cache holds one: a
    non-empty cache that knows no model, so it asks litellm, which reads its own bundled copy
    (LITELLM_LOCAL_MODEL_COST_MAP), and nothing leaves the sandbox."""
    return {".aider/caches/model_prices_and_context_window.json":
            json.dumps({"reclaim": "offline: litellm's bundled model list is read instead"})}


TOOLS = {t.name: t for t in [
    Tool("claude-code", "claude", "@anthropic-ai/claude-code", "2.1.197", "anthropic",
         lambda p, m, logs: ["claude", "-p", p, "--output-format", "stream-json", "--verbose",
                             "--dangerously-skip-permissions", "--model", m],
         _claude_env, npm=True, tested=True),
    Tool("codex", "codex", "@openai/codex", "0.171.0", "openai",
         lambda p, m, logs: ["codex", "exec", "--json", "--skip-git-repo-check",
                             "--dangerously-bypass-approvals-and-sandbox", "-m", m, p],
         lambda m, url, logs: {"CODEX_HOME": f"{logs}/home/.codex"}, npm=True, files=_codex_config, tested=True),
    Tool("gemini-cli", "gemini", "@google/gemini-cli", "0.61.0", "gemini",
         lambda p, m, logs: ["gemini", "-p", p, "--yolo", "-m", m, "--output-format", "stream-json"],
         lambda m, url, logs: {"GOOGLE_GEMINI_BASE_URL": url, "GEMINI_MODEL": m}, npm=True,
         files=_gemini_settings, tested=True),
    # OpenHands' one-shot headless mode is its CLI (PyPI `openhands`, Python 3.12 only): openhands-ai
    # 1.x is the web app's server and has no openhands.core.main any more. It reads the model from
    # LLM_* only with --override-with-envs; its public skills it tries to git-clone from GitHub
    # (hard-coded, no switch), which fails in the sandbox and does not stop it.
    Tool("openhands", "openhands", "openhands", "1.16.0", "openai",
         lambda p, m, logs: ["openhands", "--headless", "--json", "--override-with-envs", "-t", p],
         lambda m, url, logs: {"LLM_MODEL": f"openai/{m}", "LLM_BASE_URL": f"{url}/v1",
                               "LITELLM_LOCAL_MODEL_COST_MAP": "True", "OPENHANDS_SUPPRESS_BANNER": "1"},
         token_env=("LLM_API_KEY",), python="3.12", tested=True),
    Tool("mini-swe-agent", "mini", "mini-swe-agent", "2.4.6", "openai",
         lambda p, m, logs: ["mini", "-y", "--exit-immediately", "-l", "0", "-m", f"openai/{m}", "-t", p,
                             "-o", f"{logs}/mini.traj.json"],
         lambda m, url, logs: {"MSWEA_CONFIGURED": "true", "MSWEA_COST_TRACKING": "ignore_errors",
                               "MSWEA_SILENT_STARTUP": "1", "MSWEA_GLOBAL_CONFIG_DIR": f"{logs}/home/mini",
                               "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
         transcript="mini.traj.json", tested=True, finish=("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",)),
    Tool("aider", "aider", "aider-chat", "0.86.2", "openai", _aider_argv,
         lambda m, url, logs: {"LITELLM_LOCAL_MODEL_COST_MAP": "True"},
         transcript="aider.chat.md", files=_aider_files, text="aider-diff", tested=True),
]}


def locate(tool: Tool) -> Path | None:
    """The tool's executable: reclaim's own install at the pinned version, else (npm tools) one
    on PATH, at whatever version the user installed."""
    exe = tool.bin_dir / tool.binary
    if exe.exists():
        return exe
    found = shutil.which(tool.binary) if tool.npm else None
    return Path(found) if found else None


def availability(tool: Tool) -> tuple[bool, str]:
    if tool.unsupported:
        return False, tool.unsupported
    exe = locate(tool)
    if exe is None:
        return False, f"not installed; install with: {tool.install} ({tool.package} {tool.version})"
    if not exe.is_relative_to(tool.home):
        return True, f"{exe} (the one on PATH, not reclaim's install of {tool.version}: {tool.install})"
    return True, f"{tool.package} {tool.version}"


def _venv_base(venv: Path) -> Path:
    """The install of the interpreter a virtual environment was made with (pyvenv.cfg's home is
    its bin folder): reclaim's own, or another Python's where the tool needs one."""
    cfg = venv / "pyvenv.cfg"
    for line in cfg.read_text(encoding="utf-8").splitlines() if cfg.is_file() else []:
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            return Path(value.strip()).resolve().parent
    return Path(sys.base_prefix).resolve()


@dataclass
class ExternalAgent:
    """A third-party coding agent; ``external:NAME`` or just its name."""

    tool: Tool
    model: str | None = None
    """Its own model ('codex:model=gpt-5'); None: the run's --model."""
    needs_model: bool = True
    audited: bool = True
    name: str = field(init=False)

    def __post_init__(self) -> None:
        self.name = self.tool.name

    def own_install(self) -> Path | None:
        """reclaim's own install of the tool (agents_home()/NAME), if that is what runs."""
        exe = locate(self.tool)
        return self.tool.home.resolve() if exe is not None and exe.is_relative_to(self.tool.home) else None

    def binds(self, hidden: Sequence[Path] = ()) -> list[Bind]:
        """Its own install, read-only and at its own path (its scripts name their interpreter, and
        npm's links their package), shared by every trial; for a Python agent its interpreter's
        install too (not reclaim's own environment: the agent's programs run with the trial's)."""
        home = self.own_install()
        if home is None:
            return []
        if self.tool.npm:
            return [Bind(home, str(home))]
        base = _venv_base(home)
        return [Bind(home, str(home)), *([] if str(base).startswith("/usr/") else [Bind(base, str(base))])]

    def run(self, ctx: AgentContext) -> None:
        ok, why = availability(self.tool)
        if not ok:
            raise AgentError(f"agent {self.name} cannot run here: {why}")
        if ctx.model is None or not ctx.model.name:
            raise AgentError(f"agent {self.name} needs a model: --model NAME")
        box = ctx.recorder.sandbox
        logs = box.inside(ctx.agent_logs)
        url = box.gateway_url(ctx.model.host_url)
        home = ctx.agent_logs / "home"
        home.mkdir(exist_ok=True)
        for rel, text in self.tool.files(ctx.model.name, url, logs).items():  # before the agent: a fresh folder
            (home / rel).parent.mkdir(parents=True, exist_ok=True)
            (home / rel).write_text(text, encoding="utf-8")
        ctx.give(home)
        env = ctx.env() | {"HOME": f"{logs}/home"} | self.tool.env(ctx.model.name, url, logs)
        env |= dict.fromkeys(self.tool.token_env, ctx.model.token)
        if (installed := self.own_install()) is not None:
            # the trial's environment first, so the tool's own Python is not what its commands get
            own = installed / ("node_modules/.bin" if self.tool.npm else "bin")
            env["PATH"] = f"{box.config.env.get('PATH', '/usr/local/bin:/usr/bin:/bin')}:{own}"
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
