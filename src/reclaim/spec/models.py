"""Pydantic models of a task: what a paper claims and what an agent gets to check it."""

from __future__ import annotations

import math
from enum import Enum
from typing import Literal

from pydantic import Field, model_validator

from reclaim.spec.base import Direction, Finite, Level, Strict
from reclaim.spec.claims import (
    PENDING,
    PLAUSIBLE_TOLERANCES,
    Criteria,
    Metric,
    MetricTarget,
    Target,
    Tolerance,
)
from reclaim.spec.materials import Materials
from reclaim.spec.verify import Perturbation, Verified, Verify

__all__ = [
    "PLAUSIBLE_TOLERANCES",
    "Criteria",
    "Direction",
    "Finite",
    "Level",
    "Metric",
    "MetricTarget",
    "Strict",
    "Target",
    "Tolerance",
]


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
        default=None, pattern=r"^[0-9a-f]{64}$", description="sha256 of the PDF: for a URL, given here or by the "
        "suite's lock (reclaim materials lock); for an arXiv version, the lock's, checked where given.")
    arxiv: str | None = Field(
        default=None, pattern=r"^([0-9]{4}\.[0-9]{4,5}|[a-z\-]+(\.[A-Z]{2})?/[0-9]{7})v[0-9]+$",
        description="arXiv id with its version, e.g. 2405.01234v2 (a version never changes).")

    @property
    def pdf_url(self) -> str | None:
        """The URL the PDF is fetched from, where it is fetched (a URL, or an arXiv version)."""
        if self.pdf and self.pdf.startswith(("http://", "https://")):
            return self.pdf
        if not self.pdf and self.arxiv:
            return f"https://arxiv.org/pdf/{self.arxiv}"
        return None




class ReexecMode(str, Enum):
    full = "full"          # the agent's reproduce.sh, whole, in a fresh sandbox
    evaluate = "evaluate"  # its evaluation entry point, on the artefacts its recorded training made


ARTEFACT_PATTERNS = ("**/*.pt", "**/*.pth", "**/*.ckpt", "**/*.safetensors", "**/*.bin", "**/*.npz", "**/*.npy",
                     "**/*.pkl", "**/*.pickle", "**/*.joblib", "**/*.h5", "**/*.onnx", "**/*.msgpack")


class Reexecution(Strict):
    """How the harness re-runs the agent's work to check it."""

    mode: ReexecMode = Field(default=ReexecMode.full, description="full (default) or evaluate.")
    entrypoint: str = Field(
        default="evaluate.sh", pattern=r"^[\w.\-]+$",
        description="mode evaluate: the agent's script, in the workspace root, that evaluates its "
        "trained artefacts and writes results.json.")
    reference_gpu_hours: Finite | None = Field(
        default=None, ge=0, description="GPU-hours the reference's training takes.")
    reference_cpu_hours: Finite | None = Field(
        default=None, ge=0, description="CPU-hours the reference's training takes.")
    artefacts: list[str] = Field(
        default_factory=lambda: list(ARTEFACT_PATTERNS),
        description="mode evaluate: glob patterns (relative to the workspace) of the trained artefacts "
        "the evaluation uses; each must have been written by a recorded command of the agent's.")
    min_fraction: Finite = Field(
        default=0.25, gt=0, le=1, description="mode evaluate: the recorded training must have used at "
        "least this fraction of the reference's cost.")

    @model_validator(mode="after")
    def _evaluate_needs_cost(self) -> Reexecution:
        if self.mode == ReexecMode.evaluate and self.reference_gpu_hours is None and self.reference_cpu_hours is None:
            raise ValueError("mode evaluate needs reference_gpu_hours or reference_cpu_hours: the training "
                             "the trace shows is checked against it")
        return self


class Budget(Strict):
    gpu_hours: Finite = Field(default=0.0, ge=0, description="GPU-hours the agent may use.")
    gpus: int = Field(default=0, ge=0, description="GPUs allocated to the trial.")
    wall_minutes: Finite = Field(gt=0, description="Wall-clock limit for the agent, in minutes.")
    cpus: int = Field(default=1, ge=1, description="CPU cores.")
    memory_gb: Finite = Field(default=4.0, gt=0, description="Memory in GiB.")
    disk_gb: Finite = Field(default=20.0, gt=0,
                            description="Disk the workspace may take, in GiB (sparse holes are free).")
    money_usd: Finite | None = Field(default=None, ge=0, description="Money for model calls, in USD; none: no limit.")
    model_tokens: int | None = Field(default=None, ge=0, description="Model tokens (in + out); none: no limit.")
    reexec: Reexecution = Field(default_factory=Reexecution, description="How the agent's work is re-run.")

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


class Review(Strict):
    """A drafted task's review (reclaim curate): pending until a person accepts it."""

    status: Literal["pending", "accepted", "rejected"] = Field(
        description="pending: drafted, not yet checked by a person; run and validate refuse it unless told "
                    "--allow-pending. accepted: checked. rejected: kept for the record, never run.")
    checklist: dict[str, str] = Field(default_factory=dict, description="What the reviewer must confirm, and what "
                                                                        "the draft found for each.")
    by: str | None = Field(None, description="Who reviewed it.")
    notes: str = ""


class TaskSpec(Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9\-]*$", description="Task id: lowercase, digits, dashes.")
    paper: Paper
    level: Level = Field(description="The level the task is posed at: run, retrain or reimplement.")
    materials: Materials = Field(default_factory=Materials)
    target: Target
    criteria: Criteria = Field(default_factory=Criteria,
                               description="Tolerances (the defaults of target.metrics) and notes.")
    budget: Budget
    reference: Reference | None = Field(default_factory=Reference)
    environment: Environment | None = Field(
        default=None, description="What the harness prepares before the agent starts (python, packages, image).")
    network: Network = Field(default_factory=Network,
                             description="What the sandbox may reach, through the egress proxy.")
    area: str = Field(default="", description="The paper's research area, e.g. 'causal discovery' (suites are "
                      "balanced and reported by it).")
    tags: list[str] = Field(default_factory=list, description="Free labels; 'cpu' marks a task a laptop can run "
                            "(no GPU in its budget).")
    review: Review | None = Field(None,
                                  description="Set by reclaim curate: a drafted task stays pending until reviewed.")
    verify: Verify = Field(default_factory=Verify, description="How the harness checks that the number was "
                           "computed beyond re-running reproduce.sh: inputs, perturbations, the compute it must take.")
    verified: Verified | None = Field(None, description="What `tasks validate --with-reference --record` measured "
                                      "of the reference (verified.yaml beside task.yaml): never written by hand.")

    @model_validator(mode="after")
    def _every_metric_has_a_tolerance(self) -> TaskSpec:
        if self.target.metric is not None and not self.criteria.given:
            raise ValueError("criteria: give abs_tol, rel_tol or interval")
        if self.target.metric is not None and self.criteria.max_better is not None \
                and self.target.direction == Direction.match:
            raise ValueError("criteria.max_better bounds a one-sided target; direction match is two-sided already")
        for name, m in self.target.metrics.items():
            if not m.given and not self.criteria.given:
                raise ValueError(f"target.metrics.{name}: give abs_tol, rel_tol or interval (here or in criteria)")
            if m.max_better is not None and m.direction == Direction.match:
                raise ValueError(f"target.metrics.{name}.max_better bounds a one-sided target; match is two-sided")
        pending = self.pending_values()
        if pending and (self.review is None or self.review.status != "pending"):
            raise ValueError(f"value: pending ({', '.join(pending)}) needs review: {{status: pending}} until the "
                             "number is read from the paper")
        for name in pending:
            where = self.target.where if self.target.metric is not None else self.target.metrics[name].where
            if not where.strip():
                raise ValueError(f"{name}: value: pending needs 'where': the table or figure, row and column where "
                                 "the paper prints it, so it can be read there")
        if pending and self.verify.perturb:
            raise ValueError("verify.perturb needs the target's values: read the pending ones first")
        names = {m.name for m in self.metrics()}
        for p in self.verify.perturb:
            if unknown := sorted(set(p.values) - names):
                raise ValueError(f"verify.perturb '{p.name}' gives values for {', '.join(unknown)}, not metrics of "
                                 f"the target ({', '.join(sorted(names))})")
        return self

    def metrics(self) -> list[Metric]:
        """Every number the task checks, each with its tolerance, in the order given."""
        t, c = self.target, self.criteria
        if t.metric is not None:
            assert t.value is not None and t.direction is not None  # Target._one_form: all three, or metrics
            return [Metric(t.metric, _number(t.value), t.direction, c, t.where, bounds=t.bounds,
                           pending=t.value == PENDING)]
        need = set(t.require or t.metrics)
        out = []
        for name, m in t.metrics.items():
            tol = m if m.given else c if m.max_better is None else c.model_copy(update={"max_better": m.max_better})
            out.append(Metric(name, _number(m.value), m.direction, tol, m.where, name in need, bounds=m.bounds,
                              pending=m.value == PENDING))
        return out

    def pending_values(self) -> list[str]:
        """The metrics whose value is not yet read from the paper (value: pending): such a task can be
        validated, listed and locked, never run or judged."""
        t = self.target
        if t.metric is not None:
            return [t.metric] if t.value == PENDING else []
        return [name for name, m in t.metrics.items() if m.value == PENDING]

    def expected(self, p: Perturbation) -> dict[str, float]:
        """The reference's numbers under a perturbation: the task's own, else those recorded."""
        return dict(p.values) or dict((self.verified.perturb.get(p.name) or {}) if self.verified else {})

    def released_level(self) -> Level:
        """The level the authors' release gives (run: code, data and weights; retrain: code and data;
        reimplement: no code): what per-level rates compare with published figures by. Code released
        without data counts as retrain's: the code is what a reimplement task's authors kept."""
        level = self.materials.released_level()
        return Level.retrain if level == Level.reimplement and self.materials.code is not None else level

    def posed_harder(self) -> bool:
        """Posed at a harder level than the release gives (a reimplement task whose authors released
        code): counted and reported apart from the tasks of its level."""
        return self.level.rank > self.released_level().rank

    def withheld(self) -> list[str]:
        """Materials released by the authors that the posed level keeps from the agent."""
        allowed = self.materials.allowed(self.level)
        return [n for n in self.materials.refs() if n not in allowed]


def _number(value: float | str) -> float:
    return math.nan if value == PENDING else float(value)


class SuiteMeta(Strict):
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9\-_.]*$")
    version: str = Field(min_length=1)
    description: str = ""
    tasks: list[str] | None = Field(
        default=None, description="Task folders, in order; default: every folder with task.yaml."
    )
    sources_required: bool = Field(
        default=False, description="Every task must say where its target's numbers were read (target.source, "
        "quoted): tasks validate refuses one that does not, or whose quote lacks a value.")
    llm_judged: list[str] = Field(
        default_factory=list, description="Tasks for which no check in code can force the number to be computed "
        "(nothing to withhold, no perturbation, no measurable reference cost): the suite relies on the LLM "
        "judge for them, and tasks validate accepts them.")

