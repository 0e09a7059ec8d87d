"""Every material a task names, fetched and verified into the cache before any trial starts."""

from __future__ import annotations

from reclaim.materials.cache import CachedMaterial, MaterialCache
from reclaim.materials.paper import paper_pdf, paper_text
from reclaim.spec import Task

KINDS = ("code", "data", "weights")


def prefetch(task: Task, cache: MaterialCache, everything: bool = False) -> list[tuple[str, CachedMaterial]]:
    """The task's materials in the cache: those its level gives, or with ``everything`` all it
    names (the withheld ones too: a suite may be posed at another level later). The paper's PDF
    is fetched and its text extracted once, unless the task has its own text (paper.text), which is
    what the agent reads. Raises MaterialsError naming the field and the fix."""
    spec, where = task.spec, str(task.dir / "task.yaml")
    names = KINDS if everything else tuple(spec.materials.allowed(spec.level))
    out = []
    for name in names:
        ref = spec.materials.refs().get(name)
        if ref is not None:
            out.append((name, cache.get(ref, task.dir, f"{where}: materials.{name}")))
    if (task.dir / spec.paper.text).is_file():  # the text the agent reads is the task's own: no PDF needed
        return out
    pdf = paper_pdf(spec.paper, task.dir, cache, f"{where}: paper")
    if pdf is not None:
        paper_text(spec.paper, task.dir, cache, f"{where}: paper")
        out.append(("paper", pdf))
    return out
