"""Who works on a task: a name -> adapter registry over the Agent protocol."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from reclaim.errors import AgentError

if TYPE_CHECKING:
    from reclaim.agents.base import Agent

# name -> (what it does, "module:Class"); a class is imported only when an agent is made, so
# listing agents (and every command that only names them) never loads a model client.
AGENTS = {
    "nop": ("does nothing; the floor", "reclaim.agents.baselines:NopAgent"),
    "reference": ("runs the task's reference solution; the ceiling", "reclaim.agents.baselines:ReferenceAgent"),
    "fabricate": ("writes the paper's number without computing it; must never pass",
                  "reclaim.agents.baselines:FabricateAgent"),
    "copy-paper": ("greps the paper's number at run time and writes it; must never pass",
                   "reclaim.agents.adversarial:CopyPaperAgent"),
    "overclaim": ("runs a weakened experiment, claims the paper's number; must never pass",
                  "reclaim.agents.adversarial:OverclaimAgent"),
    "partial": ("runs a weakened experiment and reports it honestly; must not pass",
                "reclaim.agents.adversarial:PartialAgent"),
    "llm": ("the built-in tool-calling agent over the gateway: --agent llm --model NAME "
            "(options: 'llm:protocol=anthropic,stream=1,steps=40')", "reclaim.agents.llm:LLMAgent"),
    "command": ("runs your program in the sandbox: --agent 'command:./my_agent.sh'",
                "reclaim.agents.command:CommandAgent"),
}

# Public names, imported on first use: `from reclaim.agents import CommandAgent` still works.
_LAZY = {
    "Agent": "reclaim.agents.base", "AgentContext": "reclaim.agents.base",
    "CommandAgent": "reclaim.agents.command", "LLMAgent": "reclaim.agents.llm",
    "NopAgent": "reclaim.agents.baselines", "ReferenceAgent": "reclaim.agents.baselines",
    "FabricateAgent": "reclaim.agents.baselines", "CopyPaperAgent": "reclaim.agents.adversarial",
    "OverclaimAgent": "reclaim.agents.adversarial", "PartialAgent": "reclaim.agents.adversarial",
    "TOOLS": "reclaim.agents.external", "ExternalAgent": "reclaim.agents.external",
    "availability": "reclaim.agents.external",
    "CLAIM_VARS": "reclaim.agents.base", "ModelAccess": "reclaim.agents.base", "Skipped": "reclaim.agents.base",
    "label_problems": "reclaim.agents.labels", "split_label": "reclaim.agents.labels",
}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'reclaim.agents' has no attribute '{name}'")


def agent_class(name: str) -> type:
    module, _, cls = AGENTS[name][1].partition(":")
    return getattr(importlib.import_module(module), cls)


class UnknownAgent(AgentError):
    """No agent by that name or spec."""


def make_agent(spec: str) -> Agent:
    """Build an agent from 'name', 'name:argument', or either behind a label: 'mine=command:./x.sh'."""
    from reclaim.agents.external import TOOLS, ExternalAgent
    from reclaim.agents.labels import split_label

    spec = split_label(spec)[1]
    name, _, arg = spec.partition(":")
    if name in TOOLS:
        key, _, model = arg.partition("=")
        if arg and (key != "model" or not model):
            raise UnknownAgent(f"agent '{name}' takes only 'model=NAME' (got '{arg}'), e.g. '{name}:model=M'; "
                               "without it, the model comes from --model")
        return ExternalAgent(TOOLS[name], model=model or None)
    if name not in AGENTS:
        raise UnknownAgent(f"unknown agent '{name}'; choose one of {', '.join([*AGENTS, *TOOLS])}")
    cls = agent_class(name)
    if name in ("command", "llm"):
        try:
            return cls(arg)
        except ValueError as e:
            raise UnknownAgent(str(e)) from None
    if arg:
        raise UnknownAgent(f"agent '{name}' takes no argument (got '{arg}')")
    return cls()


def listing() -> list[tuple[str, bool, str]]:
    """(name, available here, description or how to install) for every agent."""
    from reclaim.agents.external import TOOLS, availability

    rows = [(name, True, desc) for name, (desc, _) in AGENTS.items()]
    for name, tool in TOOLS.items():
        ok, detail = availability(tool)
        note = (f"; tested against the real program, version {tool.version}" if tool.tested
                else "; untested against the real program")
        rows.append((name, ok, f"{detail}{note}"))
    return rows


__all__ = ["AGENTS", "TOOLS", "Agent", "AgentContext", "CommandAgent", "UnknownAgent", "listing", "make_agent"]
