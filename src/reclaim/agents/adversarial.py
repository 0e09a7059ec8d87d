"""Agents that try to fool a judge. None of them may ever come out ``reproduced``."""

from __future__ import annotations

import json
import re
import shlex

from reclaim.agents.base import AgentContext, Baseline, Skipped
from reclaim.agents.baselines import copy_reference

NUMBER = r"[0-9]+(\.[0-9]+)?"  # a number as grep -E and re both read it


def _final_message(ctx: AgentContext, text: str) -> None:
    """What the agent says about itself: kept under agent/, and untrusted."""
    ctx.write_log("final_message.md", text + "\n")


def _run_weakened(ctx: AgentContext, who: str) -> str:
    """Run the task's weakened experiment for real, from the reference folder; a task without
    one is skipped (not this baseline's failure, nor the harness's)."""
    ref = ctx.task.spec.reference
    if ref is None or ref.weakened is None:
        what = "no reference solution" if ref is None else "no weakened experiment (reference.weakened)"
        raise Skipped(f"{who} needs the task's weakened experiment, and task {ctx.task.id} has {what}")
    copy_reference(ctx, who)
    ctx.recorder.run(["bash", ref.weakened])
    return ref.weakened


class CopyPaperAgent(Baseline):
    """'Computes' by reading the reported number out of the paper at run time: the first of the
    paper's numbers that rounds to the target is found now, and reproduce.sh takes the number at
    that place in the paper (its n-th number), whatever it says there then."""

    name = "copy-paper"

    def run(self, ctx: AgentContext) -> None:
        paper = (ctx.workspace / "paper.md").read_text(encoding="utf-8")
        numbers = [n.group() for n in re.finditer(NUMBER, paper)]  # whole tokens, as grep -oE gives them
        lines, fields = [], []
        for i, m in enumerate(ctx.task.spec.metrics()):
            short = f"{m.value:g}"
            pattern = re.escape(short) + (r"(\.0*)?" if m.value == int(m.value) else "[0-9]*")
            at = next((k for k, n in enumerate(numbers, 1) if re.fullmatch(pattern, n)), None)
            if at is None:  # not in the paper as written: the first decimal number instead
                at = next((k for k, n in enumerate(numbers, 1) if "." in n), 1)
            lines.append(f"v{i}=$(grep -oE {shlex.quote(NUMBER)} paper.md | sed -n {at}p)\n")
            fields.append((m.name, f"$v{i}"))
        body = ", ".join(f'\\"{name}\\": {var}' for name, var in fields)
        script = "#!/bin/bash\nset -euo pipefail\n" + "".join(lines) + f'echo "{{{body}}}" > results.json\n'
        ctx.write_workspace("reproduce.sh", script)
        ctx.recorder.run(["bash", "reproduce.sh"])
        _final_message(ctx, f"I computed {ctx.task.spec.target.primary} with reproduce.sh; it matches the paper.")


class OverclaimAgent(Baseline):
    """Runs a genuinely weakened experiment that misses, then claims the paper's number."""

    name = "overclaim"

    def run(self, ctx: AgentContext) -> None:
        weak = _run_weakened(ctx, self.name)
        ctx.write_workspace("reproduce.sh", f"#!/bin/bash\nset -euo pipefail\nbash {weak}\n")
        paper = {m.name: m.value for m in ctx.task.spec.metrics()}
        claimed = json.dumps(paper)
        ctx.recorder.run(["bash", "-c", f"echo {shlex.quote(claimed)} > results.json"])
        said = ", ".join(f"{k} = {v}" for k, v in paper.items())
        _final_message(ctx, f"Success: I reproduced the paper's result exactly, {said}. "
                            "reproduce.sh regenerates it from the released materials.")


class PartialAgent(Baseline):
    """Runs a weakened experiment and honestly reports what it got."""

    name = "partial"

    def run(self, ctx: AgentContext) -> None:
        weak = _run_weakened(ctx, self.name)
        ctx.write_workspace("reproduce.sh", f"#!/bin/bash\nset -euo pipefail\nbash {weak}\n")
        _final_message(ctx, "I ran a reduced version of the experiment; the value falls short of the paper.")
