"""The evidence bundle: everything the harness recorded about a trial, cut to fit a judge.

Built from the trial directory alone. Every command keeps its trace event id, so a judge can
cite it and code can check the citation against the full, uncut record. Its parts:

- every recorded command, marked by its source and how far that can be trusted
  (evidence_commands.py): run by the harness, seen starting from outside the sandbox, logged by
  the in-sandbox audit hook, told by the agent's own transcript;
- the text of the programs the re-execution ran, a changed released file as a diff against the
  original (evidence_programs.py, evidence_originals.py);
- where each number of both results.json files was first printed (evidence_prints.py);
- notes, network requests, the manifest, both results.json files, the re-execution, the agent's
  own words;

all fitted into the token budget with a record of every cut (evidence_fit.py) and written out by
render.py, which marks every byte the agent wrote as its own.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

from pydantic import BaseModel, Field, PrivateAttr

from reclaim.judge import evidence_workspace as workspace
from reclaim.judge.claim import metric
from reclaim.judge.compress import ProgramRelevance, Relevance, chars_to_tokens
from reclaim.judge.criteria import acceptance
from reclaim.judge.evidence_commands import (
    CMD_CHARS,
    ROW_CHARS,
    STREAM_BYTES,
    harness_commands,
    logged_commands,
    read_stream,
    shown,
)
from reclaim.judge.evidence_fit import Part, fit, rows_part, text_part
from reclaim.judge.evidence_models import (
    CommandRecord,
    Cut,
    FileEntry,
    FirstPrint,
    LoggedCommand,
    Program,
    ReexecSummary,
    Untrusted,
)
from reclaim.judge.evidence_originals import MaterialDiff, Originals, material_diffs
from reclaim.judge.evidence_prints import first_prints, numbers, value_cuts
from reclaim.judge.evidence_programs import READ_BYTES, Known, collect, command_tokens
from reclaim.judge.render import SOURCES, inline, render_evidence, row_line
from reclaim.judge.results import load_result as load_results
from reclaim.spec import TaskSpec
from reclaim.store import PROVIDED, RESULTS, TRACE, TRIAL_JSON, ReexecRecord, TrialRecord, read_model
from reclaim.trace import (
    BudgetEvent,
    CommandFinished,
    CommandStarted,
    NetworkRequest,
    Note,
    read_trace,
)

EVIDENCE_VERSION = 2
DEFAULT_TOKENS = 30_000

__all__ = ["DEFAULT_TOKENS", "EVIDENCE_VERSION", "CommandRecord", "Cut", "Evidence", "FileEntry", "FirstPrint",
           "LoggedCommand", "Program", "ReexecSummary", "TaskFacts", "Untrusted", "build_evidence"]


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
                                "(name, target, direction, required, acceptance); "
                                "the fields above are the primary one's.")


class Evidence(BaseModel):
    version: int = EVIDENCE_VERSION
    task: TaskFacts
    status: str
    harness_findings: list[str] = Field(default_factory=list, description="Facts established by code.")
    first_prints: list[FirstPrint] = Field(default_factory=list)
    commands: list[CommandRecord]
    logged: list[LoggedCommand] = Field(default_factory=list, description="Commands recorded otherwise: "
                                        "programs seen starting, the audit hook's rows, transcript steps.")
    logged_total: dict[str, int] = Field(default_factory=dict, description="Rows recorded per source.")
    programs: list[Program] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="Harness notes and monitor flags.")
    manifest: list[FileEntry]
    agent_results: str | None
    reexec: ReexecSummary
    untrusted: Untrusted
    changed_materials: list[MaterialDiff] = Field(
        default_factory=list, description="Released files the agent changed in place, as diffs against the "
                                          "release (its side is its text).")
    cuts: list[Cut] = Field(default_factory=list, description="What was left out to fit the budget.")
    _dir: Path | None = PrivateAttr(None)
    _streams: dict[int, tuple[str, str]] = PrivateAttr(default_factory=dict)
    _logged: dict[int, LoggedCommand] = PrivateAttr(default_factory=dict)
    _cited: dict[int, list[str]] = PrivateAttr(default_factory=dict)

    def event(self, event_id: int) -> CommandRecord | LoggedCommand | None:
        """The command recorded as ``event_id``, of any source (logged ones uncut)."""
        return next((c for c in self.commands if c.id == event_id), None) or self._logged.get(event_id)

    def full_text(self, event_id: int) -> str | None:
        """The uncut record of a command: what a citation of it must quote from."""
        c = self.event(event_id)
        if c is None:
            return None
        if isinstance(c, LoggedCommand):
            return c.cmd
        out_file, err_file = self._streams.get(event_id, (None, None))
        stdout = read_stream(self._dir, out_file)
        stderr = read_stream(self._dir, err_file)
        return "\n".join([c.cmd, *c.files, *(f"{k}: {v}" for k, v in c.outputs.items()),
                          c.stdout if stdout is None else stdout, c.stderr if stderr is None else stderr,
                          *self._cited.get(event_id, [])])

    def render(self) -> str:
        return render_evidence(self)

    def tokens(self) -> int:
        return chars_to_tokens(len(self.render()))


def build_evidence(trial_dir: Path, spec: TaskSpec, *, max_tokens: int = DEFAULT_TOKENS,
                   findings: list[str] | None = None) -> Evidence:
    """Assemble the bundle for one trial and cut it to fit ``max_tokens``."""
    trial_dir = Path(trial_dir)
    t = metric(spec, spec.target.primary)
    acc = acceptance(t)
    rec = read_model(trial_dir / TRIAL_JSON, TrialRecord)
    trace = read_trace(trial_dir / TRACE) if (trial_dir / TRACE).exists() else []
    rx = read_model(trial_dir / "reexec" / "reexec.json", ReexecRecord)
    provided = json.loads((trial_dir / PROVIDED).read_text()) if (trial_dir / PROVIDED).exists() else {}

    finished = [e for e in trace if isinstance(e, CommandFinished)]
    commands, raw = harness_commands(trial_dir, finished, workspace.result_outputs(trial_dir, finished, rx))
    logged = logged_commands(trace)
    rows = {r.id for r in logged}
    notes = [workspace.note(e) for e in trace if isinstance(e, (Note, BudgetEvent)) and e.id not in rows]
    notes += workspace.network(trace)
    if rec is not None and not rec.isolated:
        notes.append("monitor: the trial ran WITHOUT a sandbox (process backend)")
    files, specials, unlisted = workspace.manifest(trial_dir, finished)

    ev = Evidence(
        task=TaskFacts(id=spec.id, level=spec.level.value, claim=spec.target.claim, metric=t.name,
                       target=t.value, direction=t.direction.value, acceptance=acc.rule,
                       notes=spec.criteria.notes,
                       metrics=[{"name": m.name, "target": m.value, "direction": m.direction.value,
                                 "required": m.required, "acceptance": acceptance(m).rule}
                                for m in spec.metrics()] if len(spec.metrics()) > 1 else []),
        status=rec.status.value if rec else "unknown",
        harness_findings=list(findings or []),
        commands=commands, notes=notes, manifest=files,
        agent_results=workspace.small(trial_dir / "workspace" / RESULTS),
        reexec=workspace.reexec_summary(trial_dir, rx), untrusted=workspace.agent_words(trial_dir / "agent"),
        changed_materials=material_diffs(trial_dir, trace, provided, lines=60),
        logged_total={s: n for s in SOURCES if (n := sum(r.source == s for r in logged))})
    ev._dir = trial_dir
    ev._streams = {e.id: (e.stdout_file, e.stderr_file) for e in finished}
    ev._logged = {r.id: r for r in logged}

    claimed = [m.name for m in spec.metrics()]
    prints, cuts = _first_prints(ev, trial_dir, finished, rx, claimed)
    ev.programs, more = _programs(trial_dir, trace, finished, logged, rx, provided, files, specials)
    cuts += more + _read_cuts(trace, finished, logged, ev.programs, unlisted)
    names = claimed + [Path(p.path).name for p in ev.programs] + [RESULTS]
    near = [(m.value, max(5 * acceptance(m).tol, 0.05 * abs(m.value), 1e-9)) for m in spec.metrics()]
    parts = _parts(ev, raw, logged, prints, Relevance(t.name, t.value, acc.tol, names=names, numbers=near),
                   ProgramRelevance(t.name, t.value, acc.tol, names=claimed, numbers=near))
    fit(parts, max_tokens, ev.render, lambda c: setattr(ev, "cuts", c), cuts)
    return ev


def _read_cuts(trace: list, finished: list, logged: list[LoggedCommand], programs: list[Program],
               unlisted: int) -> list[Cut]:
    """What was never read or kept whole, whatever the budget: the middle of a huge output or
    program, long command lines, requests past the first NETWORK_ROWS, files past MAX_MANIFEST."""
    cuts = []
    for e in finished:
        for stream, n in (("stdout", e.stdout_bytes), ("stderr", e.stderr_bytes)):
            if n > STREAM_BYTES:
                cuts.append(Cut(part=f"event {e.id} {stream}, as read", unit="bytes", total=n, cut=n - STREAM_BYTES,
                                how=f"its first and last {STREAM_BYTES >> 11} KiB read; the whole is on disk"))
    cuts += [Cut(part=f"program {inline(p.path, 200)}, as read", unit="bytes", total=p.size, cut=p.size - READ_BYTES,
                 how=f"its first and last {READ_BYTES >> 11} KiB read")
             for p in programs if p.size is not None and p.size > READ_BYTES]
    long_cmds = [len(" ".join(e.cmd)) - CMD_CHARS for e in finished if len(" ".join(e.cmd)) > CMD_CHARS]
    long_rows = [len(r.cmd) - ROW_CHARS for r in logged if len(r.cmd) > ROW_CHARS]
    for what, over, limit in (("harness command lines", long_cmds, CMD_CHARS), ("logged rows", long_rows, ROW_CHARS)):
        if over:
            cuts.append(Cut(part=what, unit="chars", total=sum(over) + limit * len(over), cut=sum(over),
                            how=f"{len(over)} cut to {limit} characters each; citations check the whole"))
    requests = sum(isinstance(e, NetworkRequest) for e in trace)
    if requests > workspace.NETWORK_ROWS:
        cuts.append(Cut(part="network requests", unit="rows", total=requests, cut=requests - workspace.NETWORK_ROWS,
                        how=f"the first {workspace.NETWORK_ROWS} listed"))
    if unlisted:
        cuts.append(Cut(part="manifest, as listed", unit="files", total=unlisted + workspace.MAX_MANIFEST, cut=unlisted,
                        how=f"the first {workspace.MAX_MANIFEST}, the root's first, listed and hashed"))
    return cuts


def _first_prints(ev: Evidence, trial_dir: Path, finished: list, rx: ReexecRecord | None,
                  claimed: list[str]) -> tuple[dict[int, set[str]], list[Cut]]:
    """Trace both results.json files' numbers to their first print; the lines cited, per event."""
    results, totals = {}, {}
    for which, ws in (("reexec", trial_dir / "reexec" / "workspace"), ("agent", trial_dir / "workspace")):
        data = load_results(ws, RESULTS)[0] if rx is not None or which == "agent" else None
        if data is not None:  # the claim's numbers first
            keys = list(data)
            data = {k: data[k] for k in sorted(keys, key=lambda k: (k not in claimed, keys.index(k)))}
        results[which], totals[which] = numbers(data)
    writers = {"agent": next((e.id for e in reversed(finished) if e.phase == "agent" and any(
                   f.path == RESULTS and f.change != "deleted" for f in e.files)), None),
               "reexec": rx.event_id if rx is not None else None}
    ev.first_prints, cited = first_prints(trial_dir, finished, results, writers)
    ev._cited = cited
    return {k: set(v) for k, v in cited.items()}, value_cuts(totals)


def _programs(trial_dir: Path, trace: list, finished: list, logged: list, rx: ReexecRecord | None,
              provided: dict[str, str], manifest: list[FileEntry],
              specials: list[str]) -> tuple[list[Program], list[Cut]]:
    digests = {f.path: f.sha256 for f in manifest}
    if rx is not None and rx.ran:
        sources = set(rx.sources) | set(rx.purged)  # what no re-run held is the agent's too: shown as what it is
    else:  # not re-executed: the agent's own files as it left them
        sources = {f.path for f in manifest if not f.provided and f.sha256}
    sources |= set(specials)  # a link or FIFO a program names is shown as what it is, never followed
    script = getattr(rx, "script", None) or "reproduce.sh"
    cwd = next((e.cwd for e in trace if isinstance(e, CommandStarted) and e.phase == "reexec"), "/workspace")
    known = Known(sources, provided, cwd.rstrip("/") or "/workspace")
    cmds = [(e.id, " ".join(e.cmd)) for e in finished if e.phase == "reexec"]
    cmds += [(r.id, r.cmd) for r in logged if r.phase == "reexec" and r.source in ("exec", "audit")]
    return collect(trial_dir, known, Originals(trial_dir, trace, provided), script, command_tokens(cmds, known),
                   digests)


def _parts(ev: Evidence, raw: dict[int, tuple[str, str]], logged: list[LoggedCommand], pinned: dict[int, set[str]],
           relevant: Relevance, program_relevant: ProgramRelevance) -> list[Part]:
    """Everything that can shrink, with its weight: outputs and programs first, the agent's own words last."""
    keeps = f"kept head, tail, lines naming '{ev.task.metric}' or a program, numbers near {ev.task.target:g}, errors"
    parts = []
    for c in ev.commands:
        out, err = raw[c.id]
        pins = tuple(sorted(pinned.get(c.id, ())))
        parts.append(text_part(f"event {c.id} stdout", out, partial(setattr, c, "stdout"), relevant,
                               keeps + ", first prints", pinned=pins))
        if err:
            parts.append(text_part(f"event {c.id} stderr", err, partial(setattr, c, "stderr"), relevant,
                                   keeps + ", first prints", pinned=pins))
    for p in ev.programs:
        if p.text:
            parts.append(text_part(f"program {inline(p.path, 200)}", p.text, partial(setattr, p, "text"),
                                   program_relevant, "kept constants, lines that write or print, changed "
                                   "lines, lines naming the metric, then head and tail", relevant_first=True))
    chosen: dict[str, list[LoggedCommand]] = {}
    for source in SOURCES:
        rows = [shown(r) for r in logged if r.source == source]
        if rows:
            def put(kept, gaps, source=source):
                chosen[source] = [r.model_copy(update={"gap_before": g}) for r, g in zip(kept, gaps, strict=True)]
                ev.logged = [r for s in SOURCES for r in chosen.get(s, [])]
            parts.append(rows_part(f"{source} rows", rows, [len(row_line(r)) for r in rows], put,
                                   partial(_failing_or_relevant, relevant, rows),
                                   "kept the first, the last, and rows naming the metric, a program, "
                                   "results.json, or failing", weight=0.5))
    full = list(ev.manifest)
    parts.append(rows_part("manifest", full, [len(f.path) + 40 for f in full], lambda kept, gaps: setattr(
        ev, "manifest", kept + ([FileEntry(path=f"... {len(full) - len(kept)} more files cut to fit", size=None,
                                           sha256=None, provided=False)] if len(kept) < len(full) else [])),
        lambda i: not full[i].provided, "kept the agent's files first", weight=0.3))
    notes = list(ev.notes)
    parts.append(rows_part("notes", notes, [len(n) + 2 for n in notes], lambda kept, gaps: setattr(
        ev, "notes", [f"[... {g} notes cut ...] {n}" if g else n for n, g in zip(kept, gaps, strict=True)]),
        lambda i: "warning" in notes[i] or "error" in notes[i] or "DENIED" in notes[i],
        "kept warnings, errors, denials", weight=0.5))
    u = ev.untrusted
    for field in ("final_message", "transcript"):
        if getattr(u, field):
            parts.append(text_part(f"the agent's {field.replace('_', ' ')}", getattr(u, field),
                                   partial(setattr, u, field), relevant, keeps, weight=0.2))
    return parts


def _failing_or_relevant(relevant: Relevance, rows: list[LoggedCommand], i: int) -> bool:
    return relevant(rows[i].cmd) or rows[i].exit_code not in (0, None)
