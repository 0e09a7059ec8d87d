"""What one trial's page shows, gathered from the harness's records (the story of `reclaim show`)
and, marked as such, from what the agent wrote about itself.

The harness's records (trial.json checked against its seals, spec.json, trace.jsonl, reexec.json,
verdict.json) are read as `reclaim show` reads them. The agent's own transcript and logs (agent/)
and the outputs of its programs are read as the agent's: through untrusted I/O (no link followed,
bounded), and the page escapes every byte of them."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from reclaim.report.story import Story, budget_lines, trial_story
from reclaim.sandbox import untrusted
from reclaim.trace import BudgetEvent, CommandFinished, ModelCall, NetworkRequest, Note, WithheldFound, read_trace

AGENT_FILES = 20
AGENT_BYTES = 32 << 10
LIST_LIMIT = 300


class Row(BaseModel):
    """One row of the timeline: a recorded command, or a note of the harness's."""

    id: int
    phase: str
    kind: str = "command"
    cmd: str = Field("", description="The command line, or the note's text.")
    exit_code: int | None = None
    timed_out: bool = False
    seconds: float | None = None
    stdout: str = ""
    stderr: str = ""
    files: list[str] = Field(default_factory=list)
    role: str = ""
    cited: bool = False
    used: float | None = Field(None, description="Share of the agent's wall budget spent when it ended (agent phase).")


class Untrusted(BaseModel):
    """A file the agent wrote about itself: shown, never believed."""

    name: str
    text: str
    cut: bool = False


class TrialPage(BaseModel):
    story: Story
    timeline: list[Row] = Field(default_factory=list, description="Commands and notes, in the order recorded.")
    network: list[tuple[int, str, str, bool, str]] = Field(default_factory=list)
    model_calls: list[tuple[int, str, int, int, int, float | None]] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)
    budget: list[str] = Field(default_factory=list)
    transcript: list[Untrusted] = Field(default_factory=list)
    withheld: list[str] = Field(default_factory=list)
    level: str = ""


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _agent_files(trial_dir: Path) -> list[Untrusted]:
    """The agent's own logs and transcript (agent/), bounded: untrusted, shown as such."""
    root = trial_dir / "agent"
    if root.is_symlink() or not root.is_dir():
        return []
    out: list[Untrusted] = []
    for entry in untrusted.walk(root, max_entries=2000, max_depth=8):
        if len(out) >= AGENT_FILES:
            break
        if entry.kind != "file" or not entry.plain:
            continue
        try:
            raw, size = untrusted.read_head(root, entry.rel, AGENT_BYTES)
        except untrusted.Untrusted:
            continue
        out.append(Untrusted(name=entry.rel, text=_text(raw), cut=size > len(raw)))
    return out


def trial_page(trial_dir: Path) -> TrialPage:
    """Everything a trial's page shows; NotATrial (report.story) where it is not a trial."""
    trial_dir = Path(trial_dir)
    story = trial_story(trial_dir)
    page = TrialPage(story=story, budget=budget_lines(story.trial.budget), level=story.trial.level,
                     withheld=list(story.trial.withheld))
    roles = {s.id: s.role for s in story.steps}
    trace = trial_dir / "trace.jsonl"
    events = read_trace(trace) if trace.is_file() and not trace.is_symlink() else []
    for e in events:
        if isinstance(e, CommandFinished):
            cmd = e.cmd[2] if e.cmd[:2] == ["bash", "-c"] and len(e.cmd) > 2 else " ".join(e.cmd)
            changed = [f.path for f in e.files][:LIST_LIMIT]
            page.timeline.append(Row(id=e.id, phase=e.phase, cmd=cmd, exit_code=e.exit_code,
                                     timed_out=e.timed_out, seconds=round(e.end - e.start, 3),
                                     stdout=e.stdout, stderr=e.stderr, files=changed,
                                     role=roles.get(e.id, ""), cited=e.id in story.cited))
            if e.phase == "agent":
                page.files += [p for p in changed if p not in page.files]
        elif isinstance(e, NetworkRequest) and len(page.network) < LIST_LIMIT:
            page.network.append((e.id, e.method, e.url, e.allowed, e.forbidden or ""))
        elif isinstance(e, ModelCall) and len(page.model_calls) < LIST_LIMIT:
            page.model_calls.append((e.id, e.model, e.status, e.tokens_in, e.tokens_out, e.cost_usd))
        elif isinstance(e, (Note, BudgetEvent, WithheldFound)):
            text = (f"{e.level}: {e.message}" if isinstance(e, Note)
                    else f"budget {e.what}: {e.detail}" if isinstance(e, BudgetEvent)
                    else f"withheld material {e.material} found: {', '.join(e.files[:5])}")
            page.timeline.append(Row(id=e.id, phase=e.phase, kind="note", cmd=text, cited=e.id in story.cited))
    page.timeline.sort(key=lambda row: row.id)
    limit, spent = story.trial.budget.wall_limit_s, 0.0
    for row in page.timeline:  # the budget meter over time: what the agent had spent after each command
        if row.kind == "command" and row.phase == "agent" and limit:
            spent += row.seconds or 0.0
            row.used = min(1.0, spent / limit)
    page.files = page.files[:LIST_LIMIT]
    page.transcript = _agent_files(trial_dir)
    return page
