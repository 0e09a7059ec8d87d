"""Building a trial's workspace: exactly the materials the posed level allows, nothing else.

Materials come from the content-addressed cache (cache.py) and are bound read-only at
``<workspace>/<kind>``: a trial costs no copy and no byte of disk, however large the data. Only
the paper's text, TASK.md and an empty mount point per material are written into the
workspace. Where a backend cannot bind (the ``process`` sandbox), the material is copied.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from reclaim.judge import acceptance
from reclaim.materials.cache import MaterialCache
from reclaim.materials.errors import MaterialsError
from reclaim.materials.paper import paper_text
from reclaim.spec import Metric, Task, TaskSpec

TASK_MD = "TASK.md"
PAPER_MD = "paper.md"
MATERIALS_READ_ONLY = "materials (read-only, from the cache): "
MATERIALS_COW = "materials (copy-on-write over the cache): "
"""The trace note's opening that names each material's cache object (judge/evidence_originals.py reads it)."""

__all__ = ["MATERIALS_COW", "MATERIALS_READ_ONLY", "PAPER_MD", "TASK_MD", "MaterialsError", "Mount", "Placed",
           "build_workspace", "task_md"]


@dataclass(frozen=True)
class Mount:
    """One material, as the trial sees it: a read-only object of the cache at ``<workspace>/<name>``."""

    name: str
    host: Path
    digest: str
    files: dict[str, str]
    source: str
    bytes: int


@dataclass
class Placed:
    names: list[str] = field(default_factory=list)
    mounts: list[Mount] = field(default_factory=list)
    copied: bool = False

    def provided(self) -> dict[str, str]:
        """Every file the materials put in the workspace (``data/x.csv``) -> sha256."""
        return {f"{m.name}/{rel}": digest for m in self.mounts for rel, digest in m.files.items()}


def build_workspace(task: Task, workspace: Path, workspace_inside: str = "/workspace",
                    cache: MaterialCache | None = None, bind: bool = True, writable: bool = False) -> Placed:
    """Fill an empty ``workspace`` for ``task``; the materials to bind are in the result."""
    spec = task.spec
    cache = cache or MaterialCache()
    if workspace.exists() and any(workspace.iterdir()):
        raise MaterialsError(f"workspace {workspace} is not empty")
    workspace.mkdir(parents=True, exist_ok=True)
    where = f"{task.dir / 'task.yaml'}"
    text = paper_text(spec.paper, task.dir, cache, f"{where}: paper")
    (workspace / PAPER_MD).write_text(text, encoding="utf-8")
    placed = Placed(copied=not bind)
    for name, ref in spec.materials.allowed(spec.level).items():
        got = cache.get(ref, task.dir, f"{where}: materials.{name}")
        dest = workspace / name
        if bind:
            dest.mkdir()  # the mount point
        else:
            shutil.copytree(got.path, dest, symlinks=True)
            for p in [dest, *dest.rglob("*")]:
                if not p.is_symlink():
                    os.chmod(p, os.stat(p).st_mode | 0o200)
        placed.mounts.append(Mount(name, got.path, got.digest, dict(got.files), got.source, got.bytes))
        placed.names.append(name)
    (workspace / TASK_MD).write_text(task_md(spec, placed.names, workspace_inside, read_only=bind and not writable),
                                     encoding="utf-8")
    return placed


def task_md(spec: TaskSpec, placed: list[str], workspace_inside: str, read_only: bool = True) -> str:
    t, c, b = spec.target, spec.criteria, spec.budget
    metrics = spec.metrics()
    got = ", ".join(f"`{p}/`" for p in placed) or "nothing but the paper"
    lines = [
        f"# Task: {spec.id}",
        "",
        f"Reproduce a result of the paper *{spec.paper.title}* ({spec.paper.venue} {spec.paper.year}).",
        f"The paper is `paper.md`. Level: **{spec.level.value}** — you have: {got}"
        + (" (read-only: copy what you need to change)." if read_only and placed else
           " (yours to change in place: the harness records what you change)." if placed else "."),
        "",
        "## The claim",
        "",
        f"> {t.claim}",
        "",
        *_metric_lines(spec, metrics),
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
        f"- network: {network_line(spec)}",
        "- environment: `python3` and `pip` are a virtual environment of your own; install what you "
        "need into it" + (f" (given: {', '.join(spec.environment.packages)})"
                          if spec.environment and spec.environment.packages else ""),
        "",
        "## What to leave behind",
        "",
        f"Your workspace is `{workspace_inside}`. Before you stop, leave in its root:",
        "",
        "1. `results.json`: a JSON object mapping " + " and ".join(f"`{m.name}`" for m in metrics)
        + " to the value" + ("s" if len(metrics) > 1 else "") + " you measured, e.g. `"
        + json.dumps({m.name: 0.0 for m in metrics}) + "`.",
        "2. `reproduce.sh`: a bash script that regenerates `results.json` from the workspace. "
        "The harness deletes `results.json` and runs it again in a fresh sandbox, where `paper.md`, "
        "`TASK.md` and the release's documents show other values in place of the paper's results "
        "(its settings stay); only a value that this re-execution computes counts. Restating the paper's number, "
        "or writing any number into a file by hand, is fabrication and disqualifies the trial."
        + (" The re-runs that withhold, scramble or rewrite the released data show it without your "
           "changes to it: whatever you derive from it (a cache, a preprocessed file), `reproduce.sh` "
           "must derive again where it is missing." if not read_only and {"data", "weights"} & set(placed) else ""),
        "",
    ]
    if spec.verify.inputs:
        named = ", ".join(f"`{k}` (the paper's setting: `{v}`)" for k, v in spec.verify.inputs.items())
        lines += [f"`reproduce.sh` must take {named} from the environment and pass "
                  f"{'it' if len(spec.verify.inputs) == 1 else 'them'} to the experiment: the harness sets "
                  f"{'it' if len(spec.verify.inputs) == 1 else 'them'} as the paper has "
                  f"{'it' if len(spec.verify.inputs) == 1 else 'them'} (also while you work), and runs "
                  "`reproduce.sh` again with other values, checking what comes out.", ""]
    return "\n".join(lines)


def _acceptance(m: Metric) -> str:
    c = m.criteria
    if c.interval is not None:
        text = f"the value must lie in [{c.interval[0]}, {c.interval[1]}]"
    else:
        parts = [f"absolute {c.abs_tol}" if c.abs_tol is not None else "",
                 f"relative {c.rel_tol}" if c.rel_tol is not None else ""]
        text = "tolerance " + " and ".join(p for p in parts if p)
    if m.direction.value != "match" and c.interval is None:
        high = m.direction.value == "higher_is_better"
        bound = acceptance(m).plausible_high if high else acceptance(m).plausible_low
        if bound == m.value:
            text += "; the paper's value is the best the metric allows"
        elif math.isfinite(bound):
            text += f"; a value {'above' if high else 'below'} {bound:g} is implausibly better and not accepted"
    return text


def _metric_lines(spec: TaskSpec, metrics: list[Metric]) -> list[str]:
    if spec.target.metric is not None:
        m = metrics[0]
        return [f"- metric: `{m.name}`" + (f" ({m.where})" if m.where else ""),
                f"- reported value: {m.value}", f"- direction: {m.direction.value}",
                f"- acceptance: {_acceptance(m)}"]
    need = [m.name for m in metrics if m.required]
    lines = [f"- where in the paper: {spec.target.where}"] if spec.target.where else []
    lines += [f"- metrics (all must hold: {', '.join(f'`{n}`' for n in need)}):" if len(need) < len(metrics)
              else "- metrics (every one must hold):"]
    for m in metrics:
        lines.append(f"  - `{m.name}`" + (f" ({m.where})" if m.where else "")
                     + f": reported {m.value}, {m.direction.value}, {_acceptance(m)}"
                     + ("" if m.required else " (reported, not required)"))
    return lines


def network_line(spec: TaskSpec) -> str:
    policy = spec.network.policy.value
    if policy == "none":
        return "none"
    if policy == "gateway":
        return "none but the model gateway"
    line = "the package indexes (pip, uv, conda, npm) through the harness's proxy, every request recorded"
    if policy == "allowlist":
        line += "; also " + ", ".join(spec.network.allow + ["the released materials' own URLs"])
    if spec.withheld():
        line += f"; the withheld {', '.join(spec.withheld())} and their mirrors are denied"
    return line
