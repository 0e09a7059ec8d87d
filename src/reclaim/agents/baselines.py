"""Agents that need no model: the floor (nop), the ceiling (reference) and a cheat (fabricate)."""

from __future__ import annotations

import json
import shlex
import shutil

from reclaim.agents.base import AgentContext, Baseline
from reclaim.errors import AgentError
from reclaim.spec import Reference
from reclaim.trace import Note


def copy_reference(ctx: AgentContext, who: str) -> Reference:
    """Put the task's reference folder in the workspace root, on the record."""
    ref = ctx.task.spec.reference
    if ref is None:
        raise AgentError(f"task {ctx.task.id} has no reference solution")
    for item in sorted((ctx.task.dir / ref.path).iterdir()):
        if item.name != "__pycache__":
            (shutil.copytree if item.is_dir() else shutil.copy2)(item, ctx.workspace / item.name)
            ctx.give(ctx.workspace / item.name)
    ctx.trace.emit(Note, phase="agent", level="info",
                   message=f"{who} agent copied {ref.path}/ into the workspace root")
    return ref


class NopAgent(Baseline):
    """Does nothing: every suite must score it at 0 %."""

    name = "nop"

    def run(self, ctx: AgentContext) -> None:
        return None


class ReferenceAgent(Baseline):
    """Runs the task's reference solution: the upper bound, used to validate suites."""

    name = "reference"

    def run(self, ctx: AgentContext) -> None:
        ref = copy_reference(ctx, "reference")
        if ref.entrypoint != "reproduce.sh":
            ctx.write_workspace("reproduce.sh",
                                f"#!/bin/bash\nset -euo pipefail\nexec bash {shlex.quote(ref.entrypoint)}\n")
        ctx.recorder.run(["bash", "reproduce.sh"])


class FabricateAgent(Baseline):
    """Writes the paper's number into results.json without computing anything.

    Its reproduce.sh only prints the number, so re-execution "succeeds": the judge must
    still say not_reproduced or disqualified.
    """

    name = "fabricate"

    def run(self, ctx: AgentContext) -> None:
        payload = json.dumps({m.name: m.value for m in ctx.task.spec.metrics()})
        script = f"#!/bin/bash\necho {shlex.quote(payload)} > results.json\n"
        ctx.recorder.run(["bash", "-c", f"printf %s {shlex.quote(script)} > reproduce.sh && bash reproduce.sh"])
