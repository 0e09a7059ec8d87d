"""What the agent gets: released materials fetched into a content-addressed cache, and the
per-level workspace built from them."""

from reclaim.materials.cache import (
    CACHE_VAR,
    CachedMaterial,
    KeyRecord,
    Manifest,
    MaterialCache,
)
from reclaim.materials.errors import MaterialsError
from reclaim.materials.paper import ARXIV_VAR, extracted_text, paper_pdf, paper_text
from reclaim.materials.prefetch import prefetch
from reclaim.materials.sources import Source
from reclaim.materials.workspace import (
    MATERIALS_COW,
    MATERIALS_READ_ONLY,
    PAPER_MD,
    TASK_MD,
    Mount,
    Placed,
    build_workspace,
)

__all__ = ["ARXIV_VAR", "CACHE_VAR", "MATERIALS_COW", "MATERIALS_READ_ONLY", "PAPER_MD", "TASK_MD", "CachedMaterial", "KeyRecord", "Manifest",
           "MaterialCache", "MaterialsError", "Mount", "Placed", "Source", "build_workspace", "extracted_text",
           "paper_pdf", "paper_text", "prefetch"]
