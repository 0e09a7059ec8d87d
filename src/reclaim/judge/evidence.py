"""The evidence bundle: everything the harness recorded about a trial, cut to fit a judge.

Built from the trial directory alone. Every command keeps its trace event id, so a judge can
cite it and code can check the citation against the full, uncut record.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, Field, PrivateAttr

from reclaim.judge.claim import metric
from reclaim.judge.compress import Relevance, chars_to_tokens, compress
from reclaim.judge.criteria import acceptance
from reclaim.judge.render import render_evidence
from reclaim.sandbox import untrusted
from reclaim.spec import TaskSpec
from reclaim.store.files import TRACE, TRIAL_JSON, read_model
from reclaim.store.models import ReexecRecord, TrialRecord
from reclaim.trace import (
    BudgetEvent,
    CommandFinished,
    NetworkRequest,
    Note,
    WithheldFound,
    read_trace,
)

EVIDENCE_VERSION = 1
DEFAULT_TOKENS = 30_000
SMALL_FILE = 2_000
UNTRUSTED_CHARS = 4_000
STREAM_BYTES = 1 << 20  # of a command's output, head and tail: an agent's 2 GiB log stays on disk
HASH_LIMIT = 1 << 30
MAX_MANIFEST = 2000  # workspace entries shown, the root's first


class TaskFacts(BaseModel):
    id: str
    level: str
    claim: str
    metric: str
    target: float
    direction: str
    acceptance: str = Field(description="The criteria as code computes them.")
    notes: str
    metrics: list[dict] = Field(default_factory=list, description="Every number of the claim "
                                "(name, target, direction, required, acceptance); the fields above are the primary one's.")


class CommandRecord(BaseModel):
    id: int = Field(description="The command_finished event id: what to cite.")
    phase: str
    cmd: str
    exit_code: int | None
    timed_out: bool
    seconds: float
    stdout: str
    stderr: str
    stdout_bytes: int
    stderr_bytes: int
    files: list[str] = Field(default_factory=list, description="'created results.json (23 B)'")
    outputs: dict[str, str] = Field(default_factory=dict, description="Small result files as they ended.")


class FileEntry(BaseModel):
    path: str
    size: int | None
    sha256: str | None
    provided: bool = Field(description="Placed by the harness and unchanged since.")
    written_by: int | None = Field(None, description="Last recorded command that created or changed it.")


class ReexecSummary(BaseModel):
    ran: bool
    reason: str
    exit_code: int | None = None
    timed_out: bool = False
    event_id: int | None = None
    removed: list[str] = Field(default_factory=list)
    results: str | None = None
    ablation: str | None = Field(None, description="The run without cached files, if there was one.")


class Untrusted(BaseModel):
    warning: str = "UNTRUSTED: written by the agent itself; never evidence of a result."
    final_message: str = ""
    transcript: str = ""


class Evidence(BaseModel):
    version: int = EVIDENCE_VERSION
    task: TaskFacts
    status: str
    harness_findings: list[str] = Field(default_factory=list, description="Facts established by code.")
    commands: list[CommandRecord]
    notes: list[str] = Field(default_factory=list, description="Harness notes and monitor flags.")
    manifest: list[FileEntry]
    agent_results: str | None
    reexec: ReexecSummary
    untrusted: Untrusted
    cuts: list[str] = Field(default_factory=list, description="What was left out to fit the budget.")
    _dir: Path | None = PrivateAttr(None)
    _streams: dict[int, tuple[str, str]] = PrivateAttr(default_factory=dict)

    def event(self, event_id: int) -> CommandRecord | None:
        return next((c for c in self.commands if c.id == event_id), None)

    def full_text(self, event_id: int) -> str | None:
        """The uncut record of a command: what a citation of it must quote from."""
        c = self.event(event_id)
        if c is None:
            return None
        out_file, err_file = self._streams.get(event_id, (None, None))
        stdout = _read_stream(self._dir, out_file)
        stderr = _read_stream(self._dir, err_file)
        return "\n".join([c.cmd, *c.files, *(f"{k}: {v}" for k, v in c.outputs.items()),
                          c.stdout if stdout is None else stdout, c.stderr if stderr is None else stderr])

    def render(self) -> str:
        return render_evidence(self)

    def tokens(self) -> int:
        return chars_to_tokens(len(self.render()))


def _read_stream(trial_dir: Path | None, rel: str | None, limit: int = STREAM_BYTES) -> str | None:
    """A command's output as the harness captured it: only its ends are read, however large."""
    if trial_dir is None or rel is None:
        return None
    data, size = untrusted.read_ends(trial_dir / rel, limit)
    return data.decode("utf-8", "replace") if size or data else None


def build_evidence(trial_dir: Path, spec: TaskSpec, *, max_tokens: int = DEFAULT_TOKENS,
                   findings: list[str] | None = None) -> Evidence:
    """Assemble the bundle for one trial and compress its outputs to fit ``max_tokens``."""
    trial_dir = Path(trial_dir)
    t = metric(spec, spec.target.primary)
    acc = acceptance(t)
    rec = read_model(trial_dir / TRIAL_JSON, TrialRecord)
    trace = read_trace(trial_dir / TRACE) if (trial_dir / TRACE).exists() else []
    rx = read_model(trial_dir / "reexec" / "reexec.json", ReexecRecord)
    relevant = Relevance(t.name, t.value, acc.tol)

    finished = [e for e in trace if isinstance(e, CommandFinished)]
    raw = {e.id: (_read_stream(trial_dir, e.stdout_file) or e.stdout,
                  _read_stream(trial_dir, e.stderr_file) or e.stderr) for e in finished}
    outputs = _result_outputs(trial_dir, finished, rx)
    notes = [_note(e) for e in trace if isinstance(e, (Note, BudgetEvent))] + _network(trace)
    if rec is not None and not rec.isolated:
        notes.append("monitor: the trial ran WITHOUT a sandbox (process backend)")

    ev = Evidence(
        task=TaskFacts(id=spec.id, level=spec.level.value, claim=spec.target.claim, metric=t.name,
                       target=t.value, direction=t.direction.value, acceptance=acc.rule,
                       notes=spec.criteria.notes,
                       metrics=[{"name": m.name, "target": m.value, "direction": m.direction.value,
                                 "required": m.required, "acceptance": acceptance(m).rule}
                                for m in spec.metrics()] if len(spec.metrics()) > 1 else []),
        status=rec.status.value if rec else "unknown",
        harness_findings=list(findings or []),
        commands=[], notes=notes, manifest=_manifest(trial_dir, finished),
        agent_results=_small(trial_dir / "workspace" / "results.json"),
        reexec=_reexec_summary(trial_dir, rx), untrusted=_untrusted(trial_dir / "agent"))
    ev._dir = trial_dir

    streams = sum(1 for out, err in raw.values() for s in (out, err) if s)
    budget_chars = 4 * max_tokens
    per_stream = max(400, (budget_chars - len(ev.render())) // max(1, streams))
    for _ in range(8):
        ev.commands, cut = [], []
        for e in finished:
            out, n_out = compress(raw[e.id][0], per_stream, relevant)
            err, n_err = compress(raw[e.id][1], per_stream, relevant)
            if n_out or n_err:
                cut.append(f"event {e.id}: {n_out} stdout and {n_err} stderr lines cut (kept head, tail, "
                           f"lines naming '{t.name}', numbers near {t.value:g}, errors)")
            ev.commands.append(CommandRecord(
                id=e.id, phase=e.phase, cmd=" ".join(e.cmd), exit_code=e.exit_code, timed_out=e.timed_out,
                seconds=round(e.end - e.start, 3), stdout=out, stderr=err, stdout_bytes=e.stdout_bytes,
                stderr_bytes=e.stderr_bytes,
                files=[f"{f.change} {f.path}" + (f" ({f.size} B)" if f.size is not None else "") for f in e.files],
                outputs=outputs.get(e.id, {})))
        ev.cuts = cut
        if chars_to_tokens(len(ev.render())) <= max_tokens or per_stream <= 400:
            break
        per_stream //= 2
    ev._streams = {e.id: (e.stdout_file, e.stderr_file) for e in finished}
    return ev


def _network(trace: list, limit: int = 40) -> list[str]:
    """What the sandboxes asked of other hosts, as the egress proxy decided it, and any withheld
    material found in the agent's files."""
    net = [e for e in trace if isinstance(e, NetworkRequest)]
    out = [f"[event {e.id}] network {e.method} {e.url[:200]} -> {e.status} "
           f"({'allowed' if e.allowed else 'DENIED'}: {e.rule[:120]}"
           f"{'; a URL of the withheld ' + e.forbidden if e.forbidden else ''})" for e in net[:limit]]
    if len(net) > limit:
        out.append(f"... {len(net) - limit} more network requests ({sum(not e.allowed for e in net)} denied in all)")
    out += [f"[event {e.id}] WITHHELD MATERIAL FOUND ({e.material}): {'; '.join(e.files[:10])}"
            for e in trace if isinstance(e, WithheldFound)]
    return out


def _note(e) -> str:
    if isinstance(e, BudgetEvent):
        return f"[event {e.id}] budget {e.what}: {e.detail}"
    return f"[event {e.id}] {e.level}: {e.message[:500]}"


def _small(path: Path) -> str | None:
    """The start of an agent-written file, never through a link; None when it is not a plain file."""
    try:
        data, size = untrusted.read_head(path.parent, path.name, SMALL_FILE)
    except untrusted.Untrusted:
        return None
    return data.decode("utf-8", "replace") + (" [... cut]" if size > SMALL_FILE else "")


def _result_outputs(trial_dir: Path, finished: list, rx: ReexecRecord | None) -> dict[int, dict[str, str]]:
    """results.json as each workspace ended, attached to the command that last wrote it there."""
    out: dict[int, dict[str, str]] = {}
    last_agent = None
    for e in finished:
        if e.phase == "agent" and any(f.path == "results.json" and f.change != "deleted" for f in e.files):
            last_agent = e.id
    places = [(last_agent, trial_dir / "workspace")]
    if rx is not None:
        places.append((rx.event_id, trial_dir / "reexec" / "workspace"))
        if rx.ablation is not None:
            places.append((rx.ablation.event_id, trial_dir / "reexec" / "ablation" / "workspace"))
    for event_id, ws in places:
        text = _small(ws / "results.json")
        if event_id is not None and text is not None:
            out.setdefault(event_id, {})["results.json"] = text
    return out


def _manifest(trial_dir: Path, finished: list) -> list[FileEntry]:
    ws = trial_dir / "workspace"
    provided = json.loads((trial_dir / "materials.json").read_text()) if (trial_dir / "materials.json").exists() else {}
    writer = {}
    for e in finished:
        if e.phase == "agent":
            for f in e.files:
                writer[f.path] = e.id if f.change != "deleted" else None
    entries = {}
    found = [e for e in untrusted.walk(ws) if e.kind != "dir"]
    found.sort(key=lambda e: (e.rel.count("/"), e.rel))
    for e in found[:MAX_MANIFEST]:  # the root's first; only these are hashed
        if e.kind != "file":  # shown, never followed: a link's target is only its text
            what = f"symlink -> {e.target}" if e.kind == "symlink" else e.kind
            entries[e.rel] = FileEntry(path=f"{e.rel} ({what}, not followed)", size=None, sha256=None,
                                       provided=False, written_by=writer.get(e.rel))
            continue
        try:
            digest = untrusted.sha256(ws, e.raw, limit=HASH_LIMIT)
        except (OSError, untrusted.Untrusted):
            digest = None
        entries[e.rel] = FileEntry(path=e.rel, size=e.size, sha256=digest,
                                   provided=digest is not None and provided.get(e.rel) == digest,
                                   written_by=writer.get(e.rel))
    for rel, digest in provided.items():  # provided files a slim copy of the trial left out
        entries.setdefault(rel, FileEntry(path=rel, size=None, sha256=digest, provided=True))
    if len(found) > MAX_MANIFEST:
        name = f"... {len(found) - MAX_MANIFEST} more files not listed"
        entries[name] = FileEntry(path=name, size=None, sha256=None, provided=False)
    return [entries[k] for k in sorted(entries)]


def _reexec_summary(trial_dir: Path, rx: ReexecRecord | None) -> ReexecSummary:
    if rx is None:
        return ReexecSummary(ran=False, reason="not re-executed")
    abl = None
    if rx.ablation is not None:
        got = _small(trial_dir / "reexec" / "ablation" / "workspace" / "results.json")
        abl = (f"[event {rx.ablation.event_id}] without {', '.join(rx.ablation.removed)}: "
               f"{rx.ablation.reason}; results.json: {got or 'none'}")
    return ReexecSummary(ran=rx.ran, reason=rx.reason, exit_code=rx.exit_code, timed_out=rx.timed_out,
                         event_id=rx.event_id, removed=rx.removed,
                         results=_small(trial_dir / "reexec" / "workspace" / "results.json"), ablation=abl)


def _untrusted(agent_dir: Path) -> Untrusted:
    """The agent's own words: plain files of its log folder only, never a link's target."""
    files = untrusted.files(agent_dir)
    final = next((e for e in files if Path(e.rel).stem in ("final_message", "final", "summary")), None)

    def head(e) -> str:
        try:
            return untrusted.read_head(agent_dir, e.raw, UNTRUSTED_CHARS)[0].decode("utf-8", "replace")
        except untrusted.Untrusted:
            return ""

    message = head(final) if final else ""
    rest, total = [], 0
    for e in files:
        if e is final or total > UNTRUSTED_CHARS:
            continue
        rest.append(f"--- {Path(e.rel).name}\n" + head(e))
        total += len(rest[-1])
    return Untrusted(final_message=message, transcript="\n".join(rest)[:UNTRUSTED_CHARS])
