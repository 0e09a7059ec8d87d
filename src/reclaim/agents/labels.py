"""Agents named by the user: ``--agent NAME=SPEC``, and the rule that every label of a run is unique."""

from __future__ import annotations

import re

from reclaim.store import agent_label

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


def split_label(agent: str) -> tuple[str | None, str]:
    """'mine=command:./x.sh' -> ('mine', 'command:./x.sh'); a spec without a name -> (None, spec).
    The name is what comes before the first '=', when that '=' comes before any ':' or space."""
    head, eq, rest = agent.partition("=")
    if not eq or ":" in head or " " in head:
        return None, agent
    return head, rest


def label_problems(agents: list[str]) -> list[str]:
    """What is wrong with the run's agent labels, in words: a bad NAME, or two agents with one label."""
    out: list[str] = []
    seen: dict[str, str] = {}  # label -> the first agent that has it
    for a in agents:
        name, spec = split_label(a)
        if name is not None and not _NAME.match(name):
            out.append(f"--agent '{a}': the name '{name}' may hold only letters, digits, '-' and '_'")
            continue
        if name is not None and not spec.strip():
            out.append(f"--agent '{a}': nothing after '{name}='; write NAME=SPEC, e.g. mine=command:./agent.sh")
            continue
        label = agent_label(a)
        if label in seen:
            out.append(f"--agent '{seen[label]}' and --agent '{a}' share the label '{label}'; name one of them: "
                       f"--agent 'other={spec}'")
        else:
            seen[label] = a
    return out
