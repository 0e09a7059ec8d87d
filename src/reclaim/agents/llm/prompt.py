"""What the built-in agent is told, and the tools it has."""

from __future__ import annotations

from reclaim.spec import TaskSpec

TOOLS = [
    {"name": "bash", "description": "Run a bash command in the workspace (the current directory). "
     "Output is truncated when long. Each command has a timeout.",
     "parameters": {"type": "object", "properties": {
         "command": {"type": "string", "description": "The command."},
         "timeout": {"type": "number", "description": "Seconds; default 300."}},
         "required": ["command"]}},
    {"name": "read_file", "description": "Read a text file of the workspace.",
     "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
    {"name": "write_file", "description": "Write a text file in the workspace (creates folders).",
     "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                    "required": ["path", "content"]}},
    {"name": "submit", "description": "Finish. Call it once results.json and reproduce.sh are in place.",
     "parameters": {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}},
]


def system_prompt(spec: TaskSpec, wall_seconds: float, workspace: str) -> str:
    t, b = spec.target, spec.budget
    money = f"${b.money_usd:g}" if b.money_usd is not None else "no set limit"
    # every number of the claim (one, or several under target.metrics)
    claimed = "\n".join(f"Metric `{m.name}`, reported {m.value:g} ({m.direction.value})."
                         + ("" if m.required else " Reported, not required.") for m in spec.metrics())
    keys = ", ".join(f'"{m.name}": <the value your code computed>' for m in spec.metrics())
    return f"""You are a careful research engineer reproducing one result of a paper, alone, in a sandbox.

Level: {spec.level.value}. The workspace {workspace} holds the paper (paper.md), TASK.md and the
released materials the level allows. There is no network.

The claim: {t.claim}
{claimed}

Budget: {wall_seconds:.0f} s of wall clock in all; model calls {money}. Work in small steps.

Before you call submit, leave in the workspace root:
1. results.json: {{{keys}}}
2. reproduce.sh: a bash script that regenerates results.json from the workspace. The harness
   deletes results.json and runs it again in a fresh sandbox where paper.md, TASK.md and the
   release's documents show other values in place of the paper's results; only what
   that re-execution computes counts. Never write a number by hand: that is fabrication."""
