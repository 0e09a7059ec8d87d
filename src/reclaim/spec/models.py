"""Pydantic models of a task: what a paper claims and what an agent gets to check it."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Finite = Annotated[float, Field(allow_inf_nan=False)]


class Strict(BaseModel):
    """Base for spec models: unknown keys are errors, not silently dropped."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Level(str, Enum):
    """How much the authors released, from easiest to hardest to reproduce."""

    run = "run"
    retrain = "retrain"
    reimplement = "reimplement"

    @property
    def rank(self) -> int:
        return _LEVEL_ORDER.index(self)


_LEVEL_ORDER = [Level.run, Level.retrain, Level.reimplement]


class Direction(str, Enum):
    """Which side of the target counts as reproducing it."""

    higher_is_better = "higher_is_better"
    lower_is_better = "lower_is_better"
    match = "match"


class Paper(Strict):
    title: str = Field(min_length=1, description="Title of the paper.")
    venue: str = Field(min_length=1, description="Conference or journal, e.g. 'NeurIPS'.")
    year: int = Field(ge=1900, le=2100, description="Year of publication.")
    authors: list[str] = Field(default_factory=list, description="Author names, in order.")
    ids: dict[str, str] = Field(
        default_factory=dict, description="Identifiers such as arxiv, doi, openreview."
    )
    urls: list[str] = Field(default_factory=list, description="Where the paper can be read.")
    text: str = Field(
        default="paper.md", description="Path of the paper text, relative to the task folder."
    )


class GitSource(Strict):
    url: str = Field(description="Repository URL or local path.")
    commit: str = Field(min_length=7, description="Commit to check out (full or abbreviated sha).")
    subdir: str | None = Field(default=None, description="Only this folder of the repository.")


class HttpSource(Strict):
    url: str = Field(description="HTTP(S) URL of a file.")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="Expected sha256 of the file.")


class HubSource(Strict):
    repo: str = Field(description="Hugging Face Hub repository id, e.g. 'org/name'.")
    revision: str = Field(description="Commit sha or tag to pin.")
    kind: Literal["model", "dataset"] = "model"


class MaterialRef(Strict):
    """One released artifact: a folder in the suite, or a pinned remote source."""

    path: str | None = Field(default=None, description="Folder or file relative to the task folder.")
    git: GitSource | None = None
    http: HttpSource | None = None
    hub: HubSource | None = None

    @model_validator(mode="after")
    def _exactly_one_source(self) -> MaterialRef:
        given = [k for k in ("path", "git", "http", "hub") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(
                f"give exactly one of path, git, http, hub (got {', '.join(given) or 'none'})"
            )
        return self

    @property
    def is_local(self) -> bool:
        return self.path is not None


class Materials(Strict):
    """What the authors released. Absent means not released."""

    code: MaterialRef | None = None
    data: MaterialRef | None = None
    weights: MaterialRef | None = None

    def released_level(self) -> Level:
        """The easiest level these materials allow."""
        if self.code and self.data and self.weights:
            return Level.run
        if self.code and self.data:
            return Level.retrain
        return Level.reimplement

    def allowed(self, level: Level) -> dict[str, MaterialRef]:
        """The materials an agent gets when the task is posed at ``level``."""
        kinds = {Level.run: ("code", "data", "weights"), Level.retrain: ("code", "data")}
        names = kinds.get(level, ("data",))
        return {n: getattr(self, n) for n in names if getattr(self, n) is not None}


class Target(Strict):
    claim: str = Field(min_length=1, description="The claim, in the paper's words.")
    metric: str = Field(
        pattern=r"^[A-Za-z_][A-Za-z0-9_.\-]*$",
        description="Key the agent must write in results.json.",
    )
    value: Finite = Field(description="The value the paper reports.")
    direction: Direction = Field(description="higher_is_better, lower_is_better or match.")
    where: str = Field(default="", description="Where in the paper, e.g. 'Table 2, row 3'.")


class Criteria(Strict):
    """How close is close enough. Tolerances widen the target on the losing side only,
    unless the direction is ``match``."""

    abs_tol: Finite | None = Field(default=None, ge=0, description="Absolute tolerance.")
    rel_tol: Finite | None = Field(default=None, ge=0, description="Relative tolerance (0.05 = 5%).")
    interval: tuple[Finite, Finite] | None = Field(
        default=None, description="[low, high]: the measured value must fall inside."
    )
    notes: str = Field(default="", description="Free text for the judge.")

    @model_validator(mode="after")
    def _one_kind(self) -> Criteria:
        tol = self.abs_tol is not None or self.rel_tol is not None
        if tol and self.interval is not None:
            raise ValueError("give either a tolerance (abs_tol/rel_tol) or an interval, not both")
        if not tol and self.interval is None:
            raise ValueError("give abs_tol, rel_tol or interval")
        if self.interval is not None and self.interval[0] > self.interval[1]:
            raise ValueError("interval must be [low, high] with low <= high")
        return self


class Budget(Strict):
    gpu_hours: Finite = Field(default=0.0, ge=0, description="GPU-hours the agent may use.")
    gpus: int = Field(default=0, ge=0, description="GPUs allocated to the trial.")
    wall_minutes: Finite = Field(gt=0, description="Wall-clock limit for the agent, in minutes.")
    cpus: int = Field(default=1, ge=1, description="CPU cores.")
    memory_gb: Finite = Field(default=4.0, gt=0, description="Memory in GiB.")
    disk_gb: Finite = Field(default=20.0, gt=0, description="Disk the workspace may take, in GiB (sparse holes are free).")
    money_usd: Finite | None = Field(default=None, ge=0, description="Money for model calls, in USD; none: no limit.")
    model_tokens: int | None = Field(default=None, ge=0, description="Model tokens (in + out); none: no limit.")

    @property
    def wall_seconds(self) -> float:
        return self.wall_minutes * 60.0


class Reference(Strict):
    """The reference solution. It never enters an agent's sandbox."""

    path: str = Field(default="reference", description="Folder of the solution, relative to the task.")
    entrypoint: str = Field(
        default="reproduce.sh", description="Script in that folder that writes results.json."
    )
    weakened: str | None = Field(
        default=None,
        description="Script in that folder that runs a genuinely weakened version of the experiment "
        "(fewer iterations, a wrong method) and writes its results.json; it must miss the target. "
        "Used by the adversarial baselines that test judges.",
    )


class TaskSpec(Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9\-]*$", description="Task id: lowercase, digits, dashes.")
    paper: Paper
    level: Level = Field(description="The level the task is posed at: run, retrain or reimplement.")
    materials: Materials = Field(default_factory=Materials)
    target: Target
    criteria: Criteria
    budget: Budget
    reference: Reference | None = Field(default_factory=Reference)
    tags: list[str] = Field(default_factory=list)

    def withheld(self) -> list[str]:
        """Materials released by the authors that the posed level keeps from the agent."""
        allowed = self.materials.allowed(self.level)
        return [
            n for n in ("code", "data", "weights")
            if getattr(self.materials, n) is not None and n not in allowed
        ]


class SuiteMeta(Strict):
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9\-_.]*$")
    version: str = Field(min_length=1)
    description: str = ""
    tasks: list[str] | None = Field(
        default=None, description="Task folders, in order; default: every folder with task.yaml."
    )

