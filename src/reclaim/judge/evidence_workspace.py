"""What the bundle says of the workspace and the records around the commands: the manifest,
both results.json files, the re-execution's summary, harness notes and network requests, and
the agent's own words. Every agent file is read as an adversary's (sandbox/untrusted.py)."""

from __future__ import annotations

import json
from pathlib import Path

from reclaim.judge.evidence_models import FileEntry, ReexecSummary, Untrusted
from reclaim.sandbox import untrusted
from reclaim.store import HASH_LIMIT, PROVIDED, RESULTS, ReexecRecord
from reclaim.trace import BudgetEvent, NetworkRequest, WithheldFound

SMALL_FILE = 2_000
UNTRUSTED_CHARS = 4_000
MAX_MANIFEST = 2000  # workspace entries shown, the root's first
NETWORK_ROWS = 40


def network(trace: list, limit: int = NETWORK_ROWS) -> list[str]:
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


def note(e) -> str:
    if isinstance(e, BudgetEvent):
        return f"[event {e.id}] budget {e.what}: {e.detail}"
    return f"[event {e.id}] {e.level}: {e.message[:500]}"


def small(path: Path) -> str | None:
    """The start of an agent-written file, never through a link; None when it is not a plain file."""
    try:
        data, size = untrusted.read_head(path.parent, path.name, SMALL_FILE)
    except untrusted.Untrusted:
        return None
    return data.decode("utf-8", "replace") + (" [... cut]" if size > SMALL_FILE else "")


def result_outputs(trial_dir: Path, finished: list, rx: ReexecRecord | None) -> dict[int, dict[str, str]]:
    """results.json as each workspace ended, attached to the command that last wrote it there."""
    out: dict[int, dict[str, str]] = {}
    last_agent = None
    for e in finished:
        if e.phase == "agent" and any(f.path == RESULTS and f.change != "deleted" for f in e.files):
            last_agent = e.id
    places = [(last_agent, trial_dir / "workspace")]
    if rx is not None:
        places.append((rx.event_id, trial_dir / "reexec" / "workspace"))
        if rx.ablation is not None:
            places.append((rx.ablation.event_id, trial_dir / "reexec" / "ablation" / "workspace"))
    for event_id, ws in places:
        text = small(ws / RESULTS)
        if event_id is not None and text is not None:
            out.setdefault(event_id, {})[RESULTS] = text
    return out


def manifest(trial_dir: Path, finished: list) -> tuple[list[FileEntry], list[str], int]:
    """The workspace's files, the paths of what in it is not a plain file (links, FIFOs), and how
    many files past MAX_MANIFEST were not listed."""
    ws = trial_dir / "workspace"
    provided = json.loads((trial_dir / PROVIDED).read_text()) if (trial_dir / PROVIDED).exists() else {}
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
    return ([entries[k] for k in sorted(entries)], [e.rel for e in found[:MAX_MANIFEST] if e.kind != "file"],
            max(0, len(found) - MAX_MANIFEST))


def reexec_summary(trial_dir: Path, rx: ReexecRecord | None) -> ReexecSummary:
    if rx is None:
        return ReexecSummary(ran=False, reason="not re-executed")
    abl = None
    if rx.ablation is not None:
        got = small(trial_dir / "reexec" / "ablation" / "workspace" / RESULTS)
        abl = (f"[event {rx.ablation.event_id}] without {', '.join(rx.ablation.removed)}: "
               f"{rx.ablation.reason}; results.json: {got or 'none'}")
    return ReexecSummary(ran=rx.ran, reason=rx.reason, exit_code=rx.exit_code, timed_out=rx.timed_out,
                         event_id=rx.event_id, removed=rx.removed, script=getattr(rx, "script", "reproduce.sh"),
                         results=small(trial_dir / "reexec" / "workspace" / RESULTS), ablation=abl)


def agent_words(agent_dir: Path) -> Untrusted:
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
