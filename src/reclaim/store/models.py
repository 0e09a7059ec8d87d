"""What is kept on disk for a run and its trials (DESIGN.md, "A trial on disk")."""

from __future__ import annotations

import hashlib
from enum import Enum
from typing import Any, ClassVar

from pydantic import BaseModel, Field, ValidationInfo, model_validator

from reclaim.budget import Limit
from reclaim.errors import ReportError

FROM_DISK = "from_disk"
"""Validation context key: the data was read from a record (a missing format_version means 1)."""


class NewerRecord(ReportError):
    """A record written by a newer reclaim than this one: refused, never misread."""


class Status(str, Enum):
    """Where a trial is in its lifecycle."""

    running = "running"
    completed = "completed"
    budget_exhausted = "budget_exhausted"
    error = "error"
    skipped = "skipped"
    """The agent does not apply to the task (TrialRecord.note says why): nothing was judged."""


class Outcome(str, Enum):
    """The final word on a trial. ``error`` is the harness's failure, never the agent's;
    ``skipped``: the agent does not apply to the task (an adversarial baseline on a task with no
    weakened experiment), neither the agent's failure nor the harness's. Rates leave both out."""

    reproduced = "reproduced"
    not_reproduced = "not_reproduced"
    budget_exhausted = "budget_exhausted"
    disqualified = "disqualified"
    error = "error"
    skipped = "skipped"


class Versioned(BaseModel):
    """A record with a format version: written at the current one; one written by an older
    reclaim (an earlier version, or none: 1) is read as it is, its later fields at their
    defaults; one written by a newer reclaim is refused, saying so."""

    FORMAT: ClassVar[int] = 1
    format_version: int = Field(1, description="The record's format; a newer reclaim may add fields, never "
                                               "change one.")

    def model_post_init(self, context: Any) -> None:
        if "format_version" not in self.model_fields_set:  # made here, not read: the current format
            self.format_version = type(self).FORMAT

    @model_validator(mode="before")
    @classmethod
    def _not_newer(cls, data: Any, info: ValidationInfo) -> Any:
        if isinstance(data, dict):
            if "format_version" not in data and (info.context or {}).get(FROM_DISK):
                data = {**data, "format_version": 1}  # written before records said their format
            got = data.get("format_version", 1)
            if isinstance(got, int) and got > cls.FORMAT:
                raise NewerRecord(f"a {cls.__name__} of format {got} was written by a newer reclaim; this one "
                                  f"reads formats up to {cls.FORMAT}: upgrade reclaim (pip install -U reclaim)")
        return data


MAX_RETRIES = 2
"""How many times a trial that ended in a harness ``error`` is run again (so at most 3 attempts)."""


class RunSpec(BaseModel):
    """run.json: what was asked. Enough to finish the run from its directory alone."""

    run_id: str
    created: float
    reclaim_version: str
    suite_dir: str = Field(description="The suite's folder when the run began (or where --resume --suite found it).")
    suite_hash: str = Field("",
                            description="sha256 over the run's task hashes: the suite by content, wherever it lies.")
    suite_name: str
    suite_version: str
    task_hashes: dict[str, str] = Field(description="Content hash of every task in the run.")
    suite_lock: str | None = Field(None, description="sha256 of the suite's suite.lock, where it has one: the "
                                   "lock whose file hashes the run's fetches had to match.")
    tasks: list[str]
    agents: list[str] = Field(description="Agent specs as given, e.g. 'reference' or 'command:./a.sh'.")
    seeds: list[int]
    judge: str = Field(description="Label of the run's judge: 'rules' or 'llm-<model>'.")
    judge_config: dict = Field(default_factory=dict, description="The judge's settings (no keys).")
    sandbox: str
    jobs: int
    budget_scale: float = 1.0
    model: str | None = Field(None, description="The model agents are asked to use (--model).")
    gpus: str | None = Field(None, description="--gpus: auto, none, nvml, fake:N or indices like 0,1.")
    executor: str = Field("local", description="Where trials run: local or slurm.")
    slurm: dict = Field(default_factory=dict, description="Slurm options: partition, account, margin.")
    upstreams: dict = Field(default_factory=dict, description="Where the gateway forwards (no keys).")
    max_retries: int = Field(MAX_RETRIES, ge=0, description="Runs again of a trial that ended in a harness error.")
    materials_cache: str | None = Field(None, description="The materials cache (default ~/.cache/reclaim/materials).")
    offline: bool = Field(False, description="Materials from the cache only; nothing is fetched.")
    image: str | None = Field(None, description="Container image for tasks that name none (--image).")
    runs_root: str | None = Field(
        None, description="The runs root whose index lists this run (the run may lie elsewhere).")
    private: bool = Field(False, description="--private: records readable by their owner alone (0600/0700).")

    def trial_total(self) -> int:
        return len(self.tasks) * len(self.agents) * len(self.seeds)

    def trial_keys(self) -> list[tuple[str, str, int]]:
        return [(t, a, s) for t in self.tasks for a in self.agents for s in self.seeds]


class BudgetUse(BaseModel):
    wall_limit_s: float = Field(description="The agent's wall-clock limit in seconds (budget scale applied).")
    agent_wall_s: float = Field(0.0, description="Wall-clock seconds the agent used.")
    model_calls: int = Field(0, description="Model calls the gateway metered.")
    model_tokens: int = Field(0, description="Model tokens (in and out) the gateway metered.")
    model_usd: float = Field(0.0, description="What the model calls cost, by the price table.")
    reexec_wall_s: float = Field(0.0, description="Wall time of every re-execution together (the fresh "
                                                 "one, and those without or with changed materials).")
    gpus: int = Field(0, description="GPUs the budget gave the trial.")
    gpu_hours_allocated: float = Field(0.0, description="GPUs x agent wall time, as clusters count it.")
    gpu_hours_limit: float = Field(0.0, description="GPU-hours the budget allowed.")
    gpu_hours_busy: float | None = Field(None, description="GPU-hours the GPUs were busy (NVML samples).")
    energy_wh: float | None = Field(None, description="GPU energy, watt-hours (NVML samples).")
    gpu_ids: list[int] = Field(default_factory=list, description="Which GPUs it held (their indices).")
    gpu_wait_s: float = Field(0.0, description="Waiting for free GPUs, before the clock started.")
    agent_cpu_s: float | None = Field(None, description="CPU seconds of the agent phase (cgroup); None: unmetered.")
    agent_peak_memory_mb: float | None = Field(None, description="Peak memory of the agent phase (cgroup).")
    reexec_cpu_s: float | None = Field(None, description="CPU seconds of every re-execution together (cgroup).")
    reexec_peak_memory_mb: float | None = Field(None, description="Peak memory of the re-executions (cgroup).")


class TrialRecord(Versioned):
    """trial.json: written atomically at every change of status."""

    FORMAT: ClassVar[int] = 2
    """1: before format_version, limit and failed_phase; 2: with them."""

    trial_id: str = Field(description="<task>__<agent label>__<seed>: the trial's folder name.")
    run_id: str = Field(description="The run it belongs to.")
    task: str = Field(description="The task id.")
    level: str = Field(description="The level the task was posed at: run, retrain or reimplement.")
    released_level: str | None = Field(
        None, description="The level the authors' release gives, where the task was posed harder than it (a "
                          "reimplement task whose code was released): reports count it apart. None: the same.")
    agent: str = Field(description="The agent's label (agent_label of its spec).")
    seed: int = Field(description="Which of the (task, agent)'s seeds this is.")
    spec_hash: str = Field(description="Content hash of the task it ran: --resume refuses a task that changed.")
    status: Status = Field(description="Where the trial is in its life; running until it ends.")
    outcome: Outcome | None = Field(None, description="The judge's final word (or error, skipped); None while running.")
    judge: str | None = Field(None, description="The label of the judge whose verdict is verdict.json.")
    measured: float | None = Field(
        None, description="The primary number as the re-execution computed it (the verdict's).")
    target: float | None = Field(None, description="The paper's primary number.")
    started: float = Field(description="Unix time the trial began.")
    finished: float | None = Field(None, description="Unix time it ended; None while running.")
    sandbox: str = Field(description="The sandbox backend its commands ran in.")
    isolated: bool = Field(description="False only under the process backend: no isolation at all.")
    materials: list[str] = Field(default_factory=list, description="Materials placed in the workspace.")
    materials_changed: int = Field(0, description="Released files the agent changed, added or deleted in place "
                                                  "(copy-on-write; each in materials-changed.json).")
    environment: str | None = Field(default=None,
                                    description="The prepared environment's key (records/environment.json).")
    withheld: list[str] = Field(default_factory=list, description="Released materials kept from the agent.")
    limits_enforced: list[str] = Field(default_factory=list,
                                       description="What enforced its limits, as read back at the end of each phase.")
    budget: BudgetUse = Field(description="What the trial used of its budget, as metered by the harness.")
    limit: Limit | None = Field(None, description="Which budget stopped the agent (status budget_exhausted): its "
                                                  "kind, what it allowed and what had been used.")
    timings: dict[str, float] = Field(default_factory=dict, description="Seconds per harness phase.")
    warnings: list[str] = Field(default_factory=list, description="What users must know about how it ran.")
    error: str | None = Field(None, description="Why the harness (or the set-up) failed it: status error.")
    failed_phase: str | None = Field(None, description="The phase the harness failed in: prepare, agent, reexecute, "
                                                       "judge or seal.")
    note: str | None = Field(None, description="Why a skipped trial did not apply to its task.")
    agent_logs: str = Field("agent/", description="Written by the agent itself: untrusted.")
    records: dict[str, str] = Field(default_factory=dict,
                                    description="sha256 of the trial's sealed records (trace, spec, verdict, "
                                                "re-execution), checked whenever the trial is read.")

    @property
    def done(self) -> bool:
        return self.status != Status.running and self.outcome is not None


def suite_hash(task_hashes: dict[str, str]) -> str:
    """One hash for the tasks of a run: the same whatever folder the suite is in."""
    text = "\n".join(f"{t} {h}" for t, h in sorted(task_hashes.items()))
    return hashlib.sha256(text.encode()).hexdigest()


def trial_id(task: str, agent: str, seed: int) -> str:
    return f"{task}__{agent_label(agent)}__{seed}"


def agent_label(agent: str) -> str:
    """The name an agent spec goes by in trial ids and reports: 'command:./x.sh' -> 'command-x'."""
    head, eq, _ = agent.partition("=")
    if eq and ":" not in head and " " not in head:  # NAME=SPEC: the user's own name (agents/labels.py)
        return head
    name, _, arg = agent.partition(":")
    if not arg:
        return name
    stem = arg.strip().split()[0].rsplit("/", 1)[-1].split(".")[0]
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in stem)
    return f"{name}-{safe}" if safe else name


class ScanScope(BaseModel):
    """Which of the agent's files the literal and provenance checks read (judge/scope.py)."""

    scanned: int = Field(0, description="The agent's own files read: ReexecRecord.sources and rewritten.")
    notebooks: int = Field(0, description="Of those, notebooks: read by their code cells only.")
    binary: int = Field(0, description="Of those, not text: no literals; searched for the value's packed forms only.")
    unread: list[str] = Field(default_factory=list,
                              description="Of those, programs too large to read (over 16 MiB): not checked.")
    excluded: dict[str, int] = Field(default_factory=dict,
                                     description="Files not read, by reason: installed package, package cache.")
    examples: dict[str, list[str]] = Field(default_factory=dict, description="A few excluded paths per reason.")
    kept: dict[str, str] = Field(
        default_factory=dict,
        description="Files in an installed tree or cache read all the same, and why (the first 20).")
    kept_count: int = Field(0, description="How many files in installed trees or caches were read all the same.")
    changed_materials: list[str] = Field(
        default_factory=list, description="Released files the agent changed or added in place (copy-on-write): "
                                          "its own programs now; the judge reads them in the trial's workspace/.")
    rewritten: list[str] = Field(default_factory=list,
                                 description="The agent's own programs that the re-execution changed or deleted: "
                                             "not in sources; the judge reads them as the agent left them, in the "
                                             "trial's workspace/, not reexec/.")

    def describe(self) -> str:
        """One sentence for a verdict: what was read and what was not."""
        how = [f"{self.notebooks} notebook(s) by code cells"] if self.notebooks else []
        how += [f"{self.binary} binary, for packed forms only"] if self.binary else []
        out = f"scanned {self.scanned} of the agent's own file(s)" + (f" ({'; '.join(how)})" if how else "")
        if self.excluded:
            out += "; not scanned: " + ", ".join(
                f"{n} file(s) of {why}s (e.g. {', '.join(self.examples.get(why, [])[:2])})"
                for why, n in sorted(self.excluded.items()))
        if self.rewritten:
            out += (f"; {len(self.rewritten)} rewritten or deleted by the re-execution, scanned as the agent left "
                    f"them ({', '.join(self.rewritten[:3])})")
        if self.kept_count:
            first = next(iter(self.kept.items()), None)
            out += f"; {self.kept_count} file(s) in installed trees scanned all the same" + (
                f" (e.g. {first[0]}: {first[1]})" if first else "")
        if self.unread:
            out += f"; too large to read, not checked: {', '.join(self.unread[:3])}"
        return out


CHECK_RUNS = ("ablation", "altered", "code_withheld", "withheld", "scrambled", "scrambled_whole", "rewritten",
              "as_released")
"""The fields of a ReexecRecord that hold one further re-run each, in the order they run."""


class ReexecRecord(BaseModel):
    """reexec/reexec.json: the fresh re-execution of the agent's reproduce.sh."""

    ran: bool = Field(description="Whether it ran (it does not when there is no usable script, or the workspace "
                                  "is too large to copy).")
    reason: str = Field("", description="Why it did not run, or how it ended.")
    exit_code: int | None = Field(None, description="The script's exit status; None when it was killed.")
    timed_out: bool = Field(False, description="It ran out of its wall-clock limit.")
    event_id: int | None = Field(None, description="The command_finished event of the re-execution.")
    wall_s: float = Field(0.0, description="Wall-clock seconds it took.")
    removed: list[str] = Field(default_factory=list, description="Files removed before re-running.")
    sources: list[str] = Field(default_factory=list,
                               description="The agent's own files present before the re-execution that it did not "
                                           "rewrite: not provided materials, installed packages or package caches.")
    scope: ScanScope | None = Field(None, description="How sources was chosen: what was scanned, what was not and why.")
    outputs: list[str] = Field(default_factory=list, description="Files the re-execution created or changed.")
    ablation: ReexecRecord | None = Field(
        None, description="A second re-execution without the static files that already held the "
                          "result: did reproduce.sh compute the value, or copy it?")
    withheld: ReexecRecord | None = Field(
        None, description="One more re-execution with the released data and weights withheld: a value "
                          "that still comes out was not computed from them.")
    scrambled: ReexecRecord | None = Field(
        None, description="One more re-execution with the released data and weights scrambled, format "
                          "kept: a value that does not change was not computed from what they say.")
    scrambled_files: list[str] = Field(default_factory=list,
                                       description="The files this re-execution got scrambled.")
    skipped: list[str] = Field(default_factory=list,
                               description="What the copy for re-execution left out: special files, unreadable files.")
    altered: ReexecRecord | None = Field(
        None, description="One more re-execution with every literal of the result in the agent's programs "
                          "changed to another number: a result that follows them was written down.")
    altered_files: list[str] = Field(default_factory=list, description="The programs whose literals it changed.")
    code_withheld: ReexecRecord | None = Field(
        None, description="One more re-execution without the released code and without any copy of it (in the "
                          "workspace or the agent's environment): a value that still comes out was not computed "
                          "by the released code.")
    rewritten: ReexecRecord | None = Field(
        None, description="One more re-execution with the released data and weights rewritten, meaning kept "
                          "(runner/rewrite.py): a computed value stays, one keyed to their bytes does not.")
    scrambled_whole: ReexecRecord | None = Field(
        None, description="One more re-execution with every row of the released data and weights scrambled, "
                          "made only where the number stayed the same on the scrambled subsample ('scrambled'): "
                          "it decides the check.")
    as_released: ReexecRecord | None = Field(
        None, description="One more re-execution with the released data and weights as released, made only "
                          "where the fresh one saw them rewritten (rewritten_data) and fell short of a result "
                          "the agent claimed: a number that comes out here and not there is keyed to the bytes.")
    perturbed: list[ReexecRecord] = Field(
        default_factory=list, description="Re-executions with the task's inputs perturbed (verify.perturb), "
                                          "each to be compared with the reference's numbers under it.")
    perturbation: str | None = Field(None, description="The perturbation this re-execution ran under.")
    rewritten_files: list[str] = Field(
        default_factory=list, description="The released files this re-execution saw rewritten, meaning kept: the "
                                          "code's programs in the fresh one, the data in 'rewritten'.")
    rewritten_data: list[str] = Field(
        default_factory=list, description="The released data and weights (and the agent's copies of them) the "
                                          "fresh re-execution saw rewritten, meaning kept (unless the task keeps "
                                          "them as released): the check 'rewritten' made in the fresh run itself.")
    answers: dict[str, list[float]] = Field(
        default_factory=dict, description="metric -> [the paper's value, the value every re-run's paper.md, "
                                          "TASK.md and released texts showed in its place] (runner/answers.py): "
                                          "a result equal to the second was copied from them.")
    purged: dict[str, str] = Field(
        default_factory=dict, description="The agent's files no re-run's workspace held (runner/purge.py: "
                                          "bytecode, binaries, encoded blobs, large data it wrote) -> why: "
                                          "reproduce.sh must make them again.")
    materials: str = Field("read-only", description="How it saw the released materials: copy-on-write (the "
                                                   "agent's changes over the release), read-only, or copied.")
    cpu_s: float | None = Field(None, description="CPU seconds its command used (cgroup); None: unmetered.")
    gpu_s: float | None = Field(None, description="GPU-busy seconds while it ran (NVML); None: no GPU metered.")
    mode: str = Field("full", description="full: reproduce.sh re-run whole; evaluate: the agent's evaluation "
                                          "entry point re-run on the artefacts its recorded training made.")
    script: str = Field("reproduce.sh", description="The script re-run.")

    def checks(self) -> list[tuple[str, ReexecRecord]]:
        """Every further re-run made to check this one, named as its folder under reexec/ is."""
        out = [(name.replace("_", "-"), r) for name in CHECK_RUNS if (r := getattr(self, name)) is not None]
        return out + [(f"perturbed-{r.perturbation}", r) for r in self.perturbed]

    def runs(self) -> list[ReexecRecord]:
        """This re-execution and every further one made to check it, in the order they ran."""
        return [self] + [run for _, r in self.checks() for run in r.runs()]
