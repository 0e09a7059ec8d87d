"""One trial's story, from the harness's own records: what was asked, what ran, what it cost, what
the judge decided and why (``reclaim show``).

Only records the harness wrote outside the agent's reach are read: trial.json (checked against the
digests it seals), spec.json, trace.jsonl, reexec/reexec.json and verdict.json; the released files
the agent changed in place (materials-changed.json) are shown as diffs whose agent side is read
from its workspace as hostile text (no link followed, bounded). agent/ is never read. A record
that is a symbolic link is refused, not followed."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reclaim.errors import ReportError
from reclaim.judge import Finding, MaterialDiff, material_diffs
from reclaim.spec import TaskSpec
from reclaim.store import (
    PROVIDED,
    SPEC_JSON,
    TRACE,
    TRIAL_JSON,
    VERDICT_JSON,
    BudgetUse,
    ReexecRecord,
    TrialRecord,
    checked_record,
)
from reclaim.trace import (
    BudgetEvent,
    CommandFinished,
    ModelCall,
    NetworkRequest,
    Note,
    ProgramExec,
    WithheldFound,
    read_trace,
)

REEXEC_JSON = "reexec/reexec.json"


class NotATrial(ReportError):
    """The folder is not a trial's, or its records cannot be read; the message says which and why."""


class CitedEvent(BaseModel):
    event_id: int
    why: str


class MetricStory(BaseModel):
    """One number of the claim, as the verdict has it."""

    model_config = ConfigDict(extra="ignore")
    name: str = ""
    target: float | None = None
    direction: str = ""
    tolerance: str = ""
    measured: float | None = None
    met: bool | None = None


class VerdictStory(BaseModel):
    """The part of verdict.json (judge/verdict.py) a story shows; other keys are ignored."""

    model_config = ConfigDict(extra="ignore")
    judge: str = ""
    outcome: str = ""
    metric: str = ""
    target: float | None = None
    measured: float | None = None
    agent_value: float | None = None
    tolerance: str = ""
    flags: list[str] = Field(default_factory=list)
    rationale: str = ""
    citations: list[CitedEvent] = Field(default_factory=list)
    dependence: list[Finding] = Field(default_factory=list)
    metrics: list[MetricStory] = Field(default_factory=list)


class Step(BaseModel):
    """One recorded command, or a harness note worth reading (a warning, an error, a budget event)."""

    id: int
    phase: str
    what: str = Field(description="The command line, or the note's text.")
    exit_code: int | None = None
    timed_out: bool = False
    seconds: float | None = None
    programs: int = Field(0, description="Programs it started, as recorded from outside the sandbox.")
    role: str = Field("", description="Which re-execution it was: fresh, without static files, withheld, scrambled.")
    kind: str = "command"


class Story(BaseModel):
    trial: TrialRecord
    claim: str = ""
    metric: str = ""
    target: float | None = None
    direction: str = ""
    where: str = ""
    criteria: str = Field("", description="The acceptance rule in words, from the verdict.")
    steps: list[Step] = Field(default_factory=list)
    model_calls: int = 0
    network_requests: int = 0
    reexec: ReexecRecord | None = None
    verdict: VerdictStory | None = None
    cited: dict[int, str] = Field(default_factory=dict, description="Cited event id -> what that event was.")
    changed: list[MaterialDiff] = Field(default_factory=list, description="Released files the agent changed in "
                                        "place, each a diff against the release (the agent's side untrusted).")
    dependence: list[Finding] = Field(default_factory=list, description="What each check of the number's "
                                      "dependence found (the verdict's).")
    problems: list[str] = Field(default_factory=list, description="Records missing or unreadable.")


def _safe(trial_dir: Path, rel: str) -> Path | None:
    """``trial_dir/rel``, or None where it or a folder on the way is a symbolic link or missing."""
    p = trial_dir
    for part in Path(rel).parts:
        p = p / part
        if p.is_symlink():
            return None
    return p if p.is_file() else None


def _cmd(cmd: list[str], width: int = 120) -> str:
    text = " ".join(cmd)
    if cmd[:2] == ["bash", "-c"] and len(cmd) > 2:
        text = cmd[2]
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _describe(e) -> str:
    kind = e.kind
    if kind == "command_finished":
        return f"{e.phase} command `{_cmd(e.cmd, 60)}` ended, exit {e.exit_code}"
    if kind == "command_started":
        return f"{e.phase} command `{_cmd(e.cmd, 60)}` started"
    if kind == "note":
        return f"{e.level} note: {e.message[:100]}"
    if kind == "program_exec":
        return f"program {e.path} started"
    if kind == "withheld_found":
        return f"withheld material {e.material} found in the workspace"
    if kind == "network_request":
        return f"{e.method} {e.url} ({'allowed' if e.allowed else 'refused'})"
    if kind == "model_call":
        return f"model call to {e.model}, status {e.status}"
    return kind.replace("_", " ")


def trial_story(trial_dir: Path) -> Story:
    """The story of the trial in ``trial_dir``; NotATrial where there is no readable trial.json."""
    trial_dir = Path(trial_dir)
    if _safe(trial_dir, TRIAL_JSON) is None:
        if (trial_dir / "run.json").is_file():
            ids = sorted(p.name for p in (trial_dir / "trials").iterdir() if p.is_dir()) \
                if (trial_dir / "trials").is_dir() else []
            raise NotATrial(f"{trial_dir} is a run, not a trial; name one of its trials: reclaim show {trial_dir} "
                            "TRIAL" + (f" (e.g. {ids[0]}; reclaim report {trial_dir} --trials lists them)"
                                       if ids else ""))
        raise NotATrial(f"{trial_dir}: no {TRIAL_JSON} (or it is a link); give a trial folder, "
                        "RUN_DIR/trials/ID")
    rec = checked_record(trial_dir)
    if rec is None:
        raise NotATrial(f"{trial_dir / TRIAL_JSON}: not a trial record (unreadable or of another version)")
    story = Story(trial=rec)
    _read_spec(trial_dir, story)
    if (p := _safe(trial_dir, REEXEC_JSON)) is not None:
        try:
            story.reexec = ReexecRecord.model_validate_json(p.read_bytes())
        except (OSError, ValidationError, ValueError):
            story.problems.append(f"{REEXEC_JSON}: unreadable")
    if (p := _safe(trial_dir, VERDICT_JSON)) is not None:
        try:
            story.verdict = VerdictStory.model_validate_json(p.read_bytes())
            story.criteria = story.verdict.tolerance
        except (OSError, ValidationError, ValueError):
            story.problems.append(f"{VERDICT_JSON}: unreadable")
    events = _read_trace(trial_dir, story)
    if r := story.reexec:
        roles = {r.event_id: "fresh re-execution"}
        for name, sub in reruns(r):
            if sub is not None:
                roles[sub.event_id] = name
        for step in story.steps:
            step.role = roles.get(step.id, "") if step.kind == "command" else ""
    if story.verdict is not None:
        story.dependence = story.verdict.dependence
    if rec.materials_changed and (p := _safe(trial_dir, PROVIDED)) is not None:
        try:
            story.changed = material_diffs(trial_dir, events, json.loads(p.read_text()))
        except (OSError, ValueError):
            story.problems.append(f"{PROVIDED}: unreadable")
    return story


def reruns(r: ReexecRecord) -> list[tuple[str, ReexecRecord | None]]:
    """The re-runs that checked the fresh one, each with what it changed, in the order they ran."""
    kinds = _released(r)
    out = [("without the static files", r.ablation), ("without the released code", r.code_withheld),
           (f"without the released {kinds}", r.withheld), (f"the released {kinds} scrambled", r.scrambled),
           (f"every row of the released {kinds} scrambled", r.scrambled_whole),
           (f"the released {kinds} rewritten, meaning kept", r.rewritten),
           (f"the released {kinds} as released", r.as_released)]
    return out + [(f"perturbed: {x.perturbation}", x) for x in r.perturbed]


def _released(r: ReexecRecord) -> str:
    """What of data and weights the re-runs held back or changed: 'data', 'weights' or both."""
    paths = [*(r.withheld.removed if r.withheld is not None else []), *r.rewritten_data,
             *(r.scrambled.scrambled_files if r.scrambled is not None else [])]
    kinds = [k for k in ("data", "weights") if any(p.split("/", 1)[0] == k for p in paths)]
    return " and ".join(kinds) or "data"


def _read_spec(trial_dir: Path, story: Story) -> None:
    if (p := _safe(trial_dir, SPEC_JSON)) is None:
        story.problems.append(f"{SPEC_JSON}: missing")
        return
    try:
        spec = TaskSpec.model_validate_json(p.read_bytes())
    except (OSError, ValidationError, ValueError):
        story.problems.append(f"{SPEC_JSON}: unreadable")
        return
    t = spec.target
    story.claim, story.where = t.claim, t.where
    story.metric = t.metric or ", ".join(t.metrics)
    story.target = t.value if not isinstance(t.value, str) else None  # never run while pending
    story.direction = str(getattr(t.direction, "value", t.direction or ""))


def _read_trace(trial_dir: Path, story: Story) -> list:
    if (p := _safe(trial_dir, TRACE)) is None:
        story.problems.append(f"{TRACE}: missing")
        return []
    try:
        events = read_trace(p)
    except (OSError, ValidationError, ValueError):
        story.problems.append(f"{TRACE}: unreadable")
        return []
    programs: dict[int, int] = {}
    for e in events:
        if isinstance(e, ProgramExec):
            programs[e.command_id] = programs.get(e.command_id, 0) + 1
    for e in events:
        if isinstance(e, CommandFinished):
            story.steps.append(Step(id=e.id, phase=e.phase, what=_cmd(e.cmd), exit_code=e.exit_code,
                                    timed_out=e.timed_out, seconds=round(e.end - e.start, 3),
                                    programs=programs.get(e.started_id, 0)))
        elif isinstance(e, Note) and e.level != "info":
            story.steps.append(Step(id=e.id, phase=e.phase, what=f"{e.level}: {e.message}", kind="note"))
        elif isinstance(e, BudgetEvent):
            story.steps.append(Step(id=e.id, phase=e.phase, what=f"budget {e.what}: {e.detail}", kind="note"))
        elif isinstance(e, WithheldFound):
            story.steps.append(Step(id=e.id, phase=e.phase, kind="note",
                                    what=f"withheld material {e.material} found: {', '.join(e.files[:3])}"))
        story.model_calls += isinstance(e, ModelCall)
        story.network_requests += isinstance(e, NetworkRequest)
    by_id = {e.id: e for e in events}
    for c in story.verdict.citations if story.verdict else ():
        story.cited[c.event_id] = _describe(by_id[c.event_id]) if c.event_id in by_id else "not in the trace"
    return events


def budget_lines(b: BudgetUse) -> list[str]:
    """What the trial spent, against its limits, from trial.json (the harness's meter)."""
    out = [f"agent wall {b.agent_wall_s:.1f} s of {b.wall_limit_s:.0f} s "
           f"({100 * b.agent_wall_s / b.wall_limit_s:.0f} %)" if b.wall_limit_s else
           f"agent wall {b.agent_wall_s:.1f} s", f"re-execution wall {b.reexec_wall_s:.1f} s"]
    if b.agent_cpu_s is not None:
        out.append(f"CPU {b.agent_cpu_s:.2f} s agent, {b.reexec_cpu_s or 0:.2f} s re-execution")
    if b.model_calls or b.model_tokens:
        out.append(f"model {b.model_calls} call(s), {b.model_tokens} tokens, ${b.model_usd:.4f}")
    if b.gpus:
        out.append(f"GPUs {b.gpus}: {b.gpu_hours_allocated:.3f} of {b.gpu_hours_limit:.3f} GPU-hours")
    return out
