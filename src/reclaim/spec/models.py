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
        default="paper.md",
        description="Path of the paper text, relative to the task folder. When that file is absent, "
        "the text is extracted from paper.pdf or paper.arxiv.")
    pdf: str | None = Field(
        default=None, description="The paper's PDF: an http(s) URL, or a path relative to the task folder.")
    pdf_sha256: str | None = Field(
        default=None, pattern=r"^[0-9a-f]{64}$", description="sha256 of the PDF (required for a URL).")
    arxiv: str | None = Field(
        default=None, pattern=r"^([0-9]{4}\.[0-9]{4,5}|[a-z\-]+(\.[A-Z]{2})?/[0-9]{7})v[0-9]+$",
        description="arXiv id with its version, e.g. 2405.01234v2 (a version never changes).")

    @model_validator(mode="after")
    def _pdf_pinned(self) -> Paper:
        if self.pdf and self.pdf.startswith(("http://", "https://")) and self.pdf_sha256 is None:
            raise ValueError("a PDF URL needs pdf_sha256, so a changed file is an error, not a new input")
        return self


class GitSource(Strict):
    url: str = Field(description="Repository URL (https, ssh, file://) or local path.")
    commit: str = Field(pattern=r"^[0-9a-f]{40}$", description="Full sha of the commit to check out.")
    subdir: str | None = Field(default=None, description="Only this folder of the repository.")


class HttpSource(Strict):
    url: str = Field(pattern=r"^https?://", description="HTTP(S) URL of a file or archive.")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="Expected sha256 of the file.")
    unpack: bool | None = Field(
        default=None, description="Unpack an archive (.zip, .tar, .tar.gz, .tgz, .tar.xz, .tar.bz2); "
        "default: by the URL's suffix.")
    name: str | None = Field(default=None, description="File name to give it; default: the URL's last part.")


class HubSource(Strict):
    repo: str = Field(pattern=r"^[A-Za-z0-9][\w.\-]*(/[\w.\-]+)?$",
                      description="Hugging Face Hub repository id, e.g. 'org/name'.")
    revision: str = Field(pattern=r"^[0-9a-f]{40}$", description="Full commit sha to pin.")
    kind: Literal["model", "dataset"] = "model"
    files: list[str] = Field(default_factory=list, description="Only files matching these patterns.")


class MaterialRef(Strict):
    """One released artifact: a folder in the suite, or a pinned remote source."""

    path: str | None = Field(default=None, description="Folder or file relative to the task folder.")
    git: GitSource | None = None
    http: HttpSource | None = None
    hub: HubSource | None = None
    mirrors: list[str] = Field(
        default_factory=list,
        description="URL prefixes or hosts of forks, archives and mirrors of this material: denied "
        "with it when the posed level withholds it.")

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


class Environment(Strict):
    """What the harness prepares before the agent starts, once per declaration, and records.

    Without one, a trial gets a bare Python (the system's) and a writable prefix to install
    into; nothing of reclaim's own interpreter or the host's wheel folders is visible."""

    python: str | None = Field(default=None, pattern=r"^3\.[0-9]+$",
                               description="Python version, e.g. '3.11'; default: the system's python3.")
    requirements: str | None = Field(
        default=None, description="A requirements file, relative to the task folder (e.g. code/requirements.txt).")
    packages: list[str] = Field(default_factory=list, description="pip requirement strings, e.g. 'numpy>=1.24'.")
    system: list[str] = Field(
        default_factory=list,
        description="System (Debian) packages: installed into a container image; with bwrap they must "
        "already be on the host.")
    image: str | None = Field(default=None, description="Container image (container backend).")
    dockerfile: str | None = Field(
        default=None, description="Dockerfile relative to the task folder, built once (container backend).")
    host_python: bool = Field(
        default=False, description="Give the agent reclaim's own interpreter and its packages "
        "(what older suites relied on; recorded).")


class NetworkPolicy(str, Enum):
    none = "none"          # nothing
    gateway = "gateway"    # the model gateway only
    packages = "packages"  # + the package indexes pip/uv/conda/npm are configured to use
    allowlist = "allowlist"  # + the hosts and URL prefixes listed, and the released materials


class Network(Strict):
    policy: NetworkPolicy = Field(default=NetworkPolicy.packages, description="none, gateway, packages or allowlist.")
    allow: list[str] = Field(
        default_factory=list, description="Hosts ('example.org', '*.example.org') or URL prefixes "
        "('https://host/path/') an allowlist adds.")

    @model_validator(mode="after")
    def _allow_needs_allowlist(self) -> Network:
        if self.allow and self.policy != NetworkPolicy.allowlist:
            raise ValueError("'allow' is only read with policy: allowlist")
        return self


class TaskSpec(Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9\-]*$", description="Task id: lowercase, digits, dashes.")
    paper: Paper
    level: Level = Field(description="The level the task is posed at: run, retrain or reimplement.")
    materials: Materials = Field(default_factory=Materials)
    target: Target
    criteria: Criteria
    budget: Budget
    reference: Reference | None = Field(default_factory=Reference)
    environment: Environment | None = Field(
        default=None, description="What the harness prepares before the agent starts (python, packages, image).")
    network: Network = Field(default_factory=Network, description="What the sandbox may reach, through the egress proxy.")
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

