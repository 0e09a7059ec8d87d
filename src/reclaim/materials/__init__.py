"""What the agent gets: released materials fetched into a content-addressed cache, and the
per-level workspace built from them."""

from reclaim.materials.cache import (
    CACHE_VAR,
    CachedMaterial,
    KeyRecord,
    Manifest,
    MaterialCache,
)
from reclaim.materials.environment import (
    ENV_INSIDE,
    RECORD,
    VENV_INSIDE,
    EnvironmentFailed,
    PreparedEnv,
    envs_root,
    pip_scripts,
    prepare,
    sandbox_env,
    trial_venv,
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

__all__ = [
    "ARXIV_VAR",
    "CACHE_VAR",
    "ENV_INSIDE",
    "MATERIALS_COW",
    "MATERIALS_READ_ONLY",
    "PAPER_MD",
    "RECORD",
    "TASK_MD",
    "VENV_INSIDE",
    "CachedMaterial",
    "EnvironmentFailed",
    "KeyRecord",
    "Manifest",
    "MaterialCache",
    "MaterialsError",
    "Mount",
    "Placed",
    "PreparedEnv",
    "Source",
    "build_workspace",
    "envs_root",
    "extracted_text",
    "paper_pdf",
    "paper_text",
    "pip_scripts",
    "prefetch",
    "prepare",
    "sandbox_env",
    "trial_venv",
]
