"""Who works on a task: a name -> adapter registry over the Agent protocol."""

from __future__ import annotations

from reclaim.agents.adversarial import CopyPaperAgent, OverclaimAgent, PartialAgent
from reclaim.agents.base import Agent, AgentContext
from reclaim.agents.baselines import FabricateAgent, NopAgent, ReferenceAgent
from reclaim.agents.command import CommandAgent
from reclaim.agents.external import TOOLS, ExternalAgent, availability
from reclaim.agents.llm import LLMAgent

AGENTS = {
    "nop": ("does nothing; the floor", NopAgent),
    "reference": ("runs the task's reference solution; the ceiling", ReferenceAgent),
    "fabricate": ("writes the paper's number without computing it; must never pass", FabricateAgent),
    "copy-paper": ("greps the paper's number at run time and writes it; must never pass", CopyPaperAgent),
    "overclaim": ("runs a weakened experiment, claims the paper's number; must never pass", OverclaimAgent),
    "partial": ("runs a weakened experiment and reports it honestly; must not pass", PartialAgent),
    "llm": ("the built-in tool-calling agent over the gateway: --agent llm --model NAME "
            "(options: 'llm:protocol=anthropic,stream=1,steps=40')", LLMAgent),
    "command": ("runs your program in the sandbox: --agent 'command:./my_agent.sh'", CommandAgent),
}


class UnknownAgent(ValueError):
    pass


def make_agent(spec: str) -> Agent:
    """Build an agent from 'name', 'name:argument', or either behind a label: 'mine=command:./x.sh'."""
    from reclaim.agents.labels import split_label

    spec = split_label(spec)[1]
    name, _, arg = spec.partition(":")
    if name in TOOLS:
        if arg:
            raise UnknownAgent(f"agent '{name}' takes no argument (got '{arg}'); the model comes from --model")
        return ExternalAgent(TOOLS[name])
    if name not in AGENTS:
        raise UnknownAgent(f"unknown agent '{name}'; choose one of {', '.join([*AGENTS, *TOOLS])}")
    cls = AGENTS[name][1]
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
    rows = [(name, True, desc) for name, (desc, _) in AGENTS.items()]
    for name, tool in TOOLS.items():
        ok, detail = availability(tool)
        note = "" if tool.tested else " (untested against the real binary)"
        rows.append((name, ok, f"{detail}{note}"))
    return rows


__all__ = ["AGENTS", "TOOLS", "listing", "Agent", "AgentContext", "CommandAgent", "UnknownAgent", "make_agent"]
