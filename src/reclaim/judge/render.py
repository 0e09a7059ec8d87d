"""The evidence bundle as the text a judge model reads."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reclaim.judge.evidence import Evidence

MANIFEST_ROWS = 200


def render_evidence(ev: Evidence) -> str:
    t = ev.task
    out = [
        "# Evidence for one trial",
        "",
        "## Task",
        f"- task: {t.id} (level {t.level})",
        f"- claim: {t.claim}",
        f"- metric: {t.metric}; reported value: {t.target:g}; direction: {t.direction}",
        f"- acceptance (computed in code): {t.acceptance}",
    ]
    if t.notes:
        out.append(f"- notes for the judge: {t.notes}")
    out += ["", f"Trial status: {ev.status}", "", "## Harness findings (established by code)"]
    out += [f"- {f}" for f in ev.harness_findings] or ["- none"]
    out += ["", "## Commands the harness recorded (cite them by event id)"]
    for c in ev.commands:
        state = "timed out" if c.timed_out else f"exit {c.exit_code}"
        out += ["", f"### [event {c.id}] phase {c.phase}, {state}, {c.seconds:g} s", f"$ {c.cmd}"]
        out.append(f"stdout ({c.stdout_bytes} bytes):")
        out.append(c.stdout.rstrip() or "(empty)")
        if c.stderr_bytes:
            out.append(f"stderr ({c.stderr_bytes} bytes):")
            out.append(c.stderr.rstrip())
        if c.files:
            out.append("files: " + "; ".join(c.files))
        for name, text in c.outputs.items():
            out.append(f"{name} as it ended: {text}")
    if ev.notes:
        out += ["", "## Harness notes and monitor flags"] + [f"- {n}" for n in ev.notes]
    out += ["", "## Workspace manifest (path, size, sha256, provided by the harness or written by event)"]
    for f in ev.manifest[:MANIFEST_ROWS]:
        who = "provided" if f.provided else (f"event {f.written_by}" if f.written_by else "unrecorded writer")
        out.append(f"- {f.path}  {f.size if f.size is not None else '?'} B  {(f.sha256 or '-')[:12]}  {who}")
    if len(ev.manifest) > MANIFEST_ROWS:
        out.append(f"- [... {len(ev.manifest) - MANIFEST_ROWS} more files cut]")
    out += ["", "## The agent's results.json", ev.agent_results or "(none)"]
    r = ev.reexec
    out += ["", "## Re-execution of reproduce.sh in a fresh sandbox by the harness"]
    if r.ran:
        out.append(f"- [event {r.event_id}] {r.reason}" + (" (timed out)" if r.timed_out else "")
                   + f"; removed before running: {', '.join(r.removed) or 'nothing'}")
        out.append(f"- results.json it wrote: {r.results or '(none)'}")
        if r.ablation:
            out.append(f"- re-run without files that already held the value: {r.ablation}")
    else:
        out.append(f"- not run: {r.reason}")
    u = ev.untrusted
    out += ["", "## " + u.warning, "### final message", u.final_message or "(none)",
            "### transcript excerpt", u.transcript or "(none)"]
    if ev.cuts:
        out += ["", "## What was cut to fit"] + [f"- {c}" for c in ev.cuts]
    return "\n".join(out) + "\n"
