"""What the agent gets: the per-level workspace built from a task's released materials."""

from reclaim.materials.workspace import (
    PAPER_MD,
    TASK_MD,
    MaterialsError,
    build_workspace,
)

__all__ = ["PAPER_MD", "TASK_MD", "MaterialsError", "build_workspace"]
