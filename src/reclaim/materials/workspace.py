"""Building a trial's workspace: exactly the materials the posed level allows, nothing else."""

from __future__ import annotations

import shutil
from pathlib import Path

from reclaim.spec import Task, TaskSpec

TASK_MD = "TASK.md"
PAPER_MD = "paper.md"


class MaterialsError(Exception):
    """A material could not be placed in the workspace."""


def build_workspace(task: Task, workspace: Path, workspace_inside: str = "/workspace") -> list[str]:
    """Fill an empty ``workspace`` for ``task``; return the names of the materials placed there."""
    spec = task.spec
    if workspace.exists() and any(workspace.iterdir()):
        raise MaterialsError(f"workspace {workspace} is not empty")
    workspace.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(task.dir / spec.paper.text, workspace / PAPER_MD)
    placed = []
    for name, ref in spec.materials.allowed(spec.level).items():
        if not ref.is_local:
            raise MaterialsError(
                f"{task.dir / 'task.yaml'}: materials.{name}: remote sources are not fetched yet; "
                f"put the files in the task folder and set materials.{name}.path")
        src = task.dir / ref.path
        dest = workspace / name
        if src.is_dir():
            shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            dest.mkdir()
            shutil.copy2(src, dest / src.name)
        placed.append(name)
    (workspace / TASK_MD).write_text(task_md(spec, placed, workspace_inside), encoding="utf-8")
    return placed


def task_md(spec: TaskSpec, placed: list[str], workspace_inside: str) -> str:
    t, c, b = spec.target, spec.criteria, spec.budget
    if c.interval is not None:
        accept = f"the value must lie in [{c.interval[0]}, {c.interval[1]}]"
    else:
        parts = [f"absolute {c.abs_tol}" if c.abs_tol is not None else "",
                 f"relative {c.rel_tol}" if c.rel_tol is not None else ""]
        accept = "tolerance " + " and ".join(p for p in parts if p)
    got = ", ".join(f"`{p}/`" for p in placed) or "nothing but the paper"
    lines = [
        f"# Task: {spec.id}",
        "",
        f"Reproduce a result of the paper *{spec.paper.title}* ({spec.paper.venue} {spec.paper.year}).",
        f"The paper is `paper.md`. Level: **{spec.level.value}** — you have: {got}.",
        "",
        "## The claim",
        "",
        f"> {t.claim}",
        "",
        f"- metric: `{t.metric}`" + (f" ({t.where})" if t.where else ""),
        f"- reported value: {t.value}",
        f"- direction: {t.direction.value}",
        f"- acceptance: {accept}",
    ]
    if c.notes:
        lines.append(f"- notes: {c.notes}")
    lines += [
        "",
        "## Budget",
        "",
        f"- wall clock: {b.wall_minutes:g} min (the run is stopped when it runs out)",
        f"- GPUs: {b.gpus}, GPU-hours: {b.gpu_hours:g}; CPUs: {b.cpus}; memory: {b.memory_gb:g} GiB",
        "- model calls: " + (", ".join(x for x in (
            f"${b.money_usd:g}" if b.money_usd is not None else "",
            f"{b.model_tokens} tokens" if b.model_tokens is not None else "") if x) or "no limit")
        + " (through the harness's gateway only)",
        "- network: none",
        "",
        "## What to leave behind",
        "",
        f"Your workspace is `{workspace_inside}`. Before you stop, leave in its root:",
        "",
        f"1. `results.json`: a JSON object mapping `{t.metric}` to the value you measured, e.g. "
        f"`{{\"{t.metric}\": 0.0}}`.",
        "2. `reproduce.sh`: a bash script that regenerates `results.json` from the workspace. "
        "The harness deletes `results.json`, `paper.md` and `TASK.md` and runs it again in a fresh "
        "sandbox; only a value that this re-execution computes counts. Restating the paper's number, "
        "or writing any number into a file by hand, is fabrication and disqualifies the trial.",
        "",
    ]
    return "\n".join(lines)
