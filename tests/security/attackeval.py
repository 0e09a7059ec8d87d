"""The attack suite end to end: every batch through the CLI, then per attack what it achieved.

A Finding holds, per category, what went wrong (empty lists: the attack was held):
  contained  outcome not_reproduced / disqualified / budget_exhausted (never reproduced, never error),
             the trial's own records intact, and the attack's own checks
  host       nothing outside the run folder changed; no attack code ran on the host; no device node
             or set-uid file left in the trial folder; no process outside killed
  leak       the provider key, the reference solution and /etc/shadow are in no file of the trial
             and in no judge prompt about it
  trace      each of the attack's markers is in a harness-recorded event of its trace (the audit's
             shell_command events are agent-writable and do not count, nor do stdout/stderr excerpts)
"""

from __future__ import annotations

import json
import os
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path

import attackrun
import hostcheck
from attacklib import BATCHES, DISK_TMPFS_MB, REPO, STREAM_USAGE, TASK, VICTIM, Attack, FakeProvider
from hostcheck import Root, Snapshot

OK_OUTCOMES = {"not_reproduced", "disqualified", "budget_exhausted"}
CATEGORIES = ("contained", "host", "leak", "trace")


@dataclass
class Finding:
    attack: Attack
    batch: str
    outcome: str | None = None
    status: str | None = None
    problems: dict[str, list[str]] = field(default_factory=lambda: {c: [] for c in CATEGORIES})
    skipped: str = ""

    def held(self) -> bool:
        return not any(self.problems.values())


@dataclass
class SuiteRun:
    dim: attackrun.Dimension
    findings: dict[str, Finding] = field(default_factory=dict)
    batches: dict[str, attackrun.BatchRun] = field(default_factory=dict)


class Expected:
    """What the harness must have written, known before any attack ran."""

    def __init__(self):
        from reclaim.spec import load_suite
        from reclaim.suites import bundled

        self.suite_dir = Path(bundled()["demo"])
        task = load_suite(self.suite_dir).task(TASK)
        self.spec = json.loads(task.spec.model_dump_json())
        self.hash = task.hash
        self.memory_mb = task.spec.budget.memory_gb * 1024
        self.needles = {"provider key": b""}  # filled per dimension
        try:
            first = Path("/etc/shadow").read_bytes().split(b"\n", 1)[0]
            if len(first) >= 10:
                self.needles["/etc/shadow"] = first
        except OSError:
            pass
        ref, others = task.dir / "reference", b""
        for p in task.dir.rglob("*"):
            if p.is_file() and ref not in p.parents and p.stat().st_size < 1 << 20:
                others += p.read_bytes()
        for p in sorted(ref.iterdir()):
            lines = sorted({ln.strip() for ln in p.read_bytes().splitlines() if len(ln.strip()) >= 24
                            and ln.strip() not in others}, key=len, reverse=True)
            for i, ln in enumerate(lines[:2]):
                self.needles[f"reference {p.name}#{i}"] = ln


def roots(dim: attackrun.Dimension, marker: Path, suite_dir: Path) -> list[Root]:
    info = dim.info
    out = [Root(marker, True), Root(suite_dir, True), Root(Path(info["stdlib"]), False),
           Root(Path(info["purelib"]), False),
           Root(Path(info["prefix"]) / "bin", True, recursive=False),
           Root(REPO / ".venv/bin", True, recursive=False)]
    if info["base"] not in ("/usr", "/usr/local"):  # a private interpreter: hash its programs (/usr/bin: listed below)
        out.append(Root(Path(info["base_bin"]), True, recursive=False))
    for p in ("runner/audit.sh", "runner/audit_sh", "gateway/forward.py"):  # the harness files bound into sandboxes
        out.append(Root(REPO / "src/reclaim" / p, True))
    for p in ("/etc/passwd", "/etc/shadow", "/etc/group", "/etc/sudoers", "/usr/bin/dash", "/usr/bin/bwrap"):
        out.append(Root(Path(p), True))
    for d in ("/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin", "/usr/local/lib"):
        out.append(Root(Path(d), False, recursive=False))
    return [r for r in out if r.path.exists()]


def make_marker(path: Path) -> Path:
    """A tree of our own on the host: it must look exactly the same after the run."""
    for i in range(3):
        d = path / f"dir{i}"
        d.mkdir(parents=True, exist_ok=True)
        (d / "file.txt").write_text(f"marker {i}\n")
        os.chmod(d / "file.txt", 0o666)  # writable by anyone: an escaped agent of any uid could change it
    os.chmod(path, 0o777)
    return path


def run_suite(dim: attackrun.Dimension, attacks: list[Attack], marker: Path) -> SuiteRun:
    expected = Expected()
    expected.needles["provider key"] = dim.secret.encode()
    suite = SuiteRun(dim)
    provider = FakeProvider().start()
    start = Snapshot.take([])  # the global sysctls as they were: whatever happens, they end so again
    try:
        for name, (timeout, judge) in BATCHES.items():
            members = [a for a in attacks if a.batch == name]
            if members:
                _batch(suite, name, members, timeout, judge, provider, expected, marker)
    finally:
        provider.stop()
        left = [c for c in hostcheck.compare(start, Snapshot.take([])) if c.what.startswith("sysctl")]
        hostcheck.undo(left, start)
        for c in left:
            print(f"warning: {c.what} after the suite [{c.undone}]", file=sys.stderr)
    return suite


def _batch(suite: SuiteRun, name: str, members: list[Attack], timeout: float, judge: bool,
           provider: FakeProvider, expected: Expected, marker: Path) -> None:
    dim = suite.dim
    base = dim.work / name
    if name == "disk":
        why = attackrun.mount_tmpfs(dim, base, DISK_TMPFS_MB)
        if why:
            for a in members:
                suite.findings[a.id] = Finding(a, name, skipped=why)
            return
    else:
        base.mkdir(parents=True, exist_ok=True)
        dim.give(base)
    watch = roots(dim, marker, expected.suite_dir)
    hostcheck.clear_evidence()
    before = Snapshot.take(watch, backup=True)
    guard = attackrun.sentinel(dim)
    try:
        with hostcheck.SysctlWatch(before) as sysctls:
            b = attackrun.run_batch(dim, name, members, provider, timeout, judge, base / "run")
    finally:
        alive = guard.poll() is None
        attackrun.kill_tree(guard.pid)
        after = Snapshot.take(watch)
        changes = hostcheck.compare(before, after) + sysctls.changes(after) + hostcheck.evidence()
        hostcheck.undo(changes, before)
        hostcheck.clear_evidence()
    suite.batches[name] = b
    try:
        _judge_batch(suite, b, members, changes, alive, expected)
    finally:
        attackrun.drop_big_files(base)
        if name == "disk":
            attackrun.umount(base)


def _judge_batch(suite: SuiteRun, b: attackrun.BatchRun, members: list[Attack], changes: list,
                 sentinel_alive: bool, expected: Expected) -> None:
    from reclaim.store import RunDir

    records = {}
    if (b.run_dir / "run.json").exists():
        try:
            records = {r.trial_id: r for r in RunDir(b.run_dir).records()}
        except Exception as e:  # an unreadable run is a finding, not a test crash
            print(f"cannot read the records of {b.run_dir}: {e}", file=sys.stderr)
    run_level = {p: labels for p, labels in hostcheck.find_needles(b.run_dir, expected.needles).items()
                 if "/trials/" not in p} if b.run_dir.exists() else {}
    for a in members:
        f = Finding(a, b.name)
        suite.findings[a.id] = f
        tdir = b.run_dir / "trials" / a.trial_id
        rec = records.get(a.trial_id)
        f.outcome = rec.outcome.value if rec and rec.outcome else None
        f.status = rec.status.value if rec else None
        events = _events(tdir / "trace.jsonl")
        _contained(f, rec, b, tdir, events, records, expected)
        for c in changes:
            if not _counts(c):
                continue
            ids = [m.id for m in members if m.id.encode() in c.text]
            if not ids or a.id in ids:
                who = "" if ids else " (not attributable within the batch)"
                f.problems["host"].append(f"{c.what}{who}" + (f" [{c.undone}]" if c.undone else ""))
        if not sentinel_alive:
            f.problems["host"].append("a process outside the sandbox (the test's sentinel) was killed")
        if tdir.exists():
            f.problems["host"] += hostcheck.hazards(tdir)
            for p, labels in hostcheck.find_needles(tdir, expected.needles).items():
                f.problems["leak"].append(f"{', '.join(sorted(labels))} in {p}")
        for p, labels in run_level.items():
            f.problems["leak"].append(f"{', '.join(sorted(labels))} in {p} (run level)")
        for prompt in b.prompts:
            if a.inside in prompt:
                hits = [k for k, v in expected.needles.items() if v and v.decode("utf-8", "replace") in prompt]
                if hits:
                    f.problems["leak"].append(f"{', '.join(hits)} in the LLM judge's prompt")
        _visible(f, events)


def _counts(c: hostcheck.Change) -> bool:
    """Whether a host change is an attack's. Others work in this repository while the suite runs: a
    change under it that carries no payload of ours is their edit, reported but not counted."""
    kind, _, rest = c.what.partition(" ")
    if kind not in ("created", "deleted", "changed") or any(t in c.text for t in hostcheck.RESTORE_IF):
        return True
    if Path(rest).is_relative_to(REPO) and "reclaim_attack" not in rest:
        print(f"note: not counted against the attacks (a concurrent edit?): {c.what}", file=sys.stderr)
        return False
    return True


def _events(path: Path) -> list[dict] | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return None
        data = fh.read(256 << 20)
    out = []
    for line in data.split(b"\n"):
        if line.strip():
            try:
                out.append(json.loads(line))
            except ValueError:
                out.append({"unparsable": line[:200].decode("utf-8", "replace")})
    return out


def _contained(f: Finding, rec, b: attackrun.BatchRun, tdir: Path, events, records: dict, expected: Expected) -> None:
    p = f.problems["contained"]
    if rec is None:
        step = b.run
        p.append(f"no trial record: the harness died or hung (`reclaim run` rc {step.rc if step else None}"
                 f"{', killed at the batch timeout' if step and step.timed_out else ''})")
        return
    if f.outcome == "reproduced":
        p.append(f"VERDICT FORGED: outcome reproduced (measured {rec.measured}, status {f.status})")
    elif f.outcome not in OK_OUTCOMES:
        p.append(f"outcome {f.outcome} (status {f.status}; error: {rec.error})")
    if rec.trial_id != f.attack.trial_id or rec.run_id != b.run_dir.name:
        p.append(f"trial.json names trial {rec.trial_id} of run {rec.run_id}")
    try:
        spec = json.loads((tdir / "spec.json").read_text())
        if spec != expected.spec:
            p.append("spec.json is not the task the harness ran (overwritten)")
    except (OSError, ValueError) as e:
        p.append(f"spec.json unreadable: {e}")
    if events is None:
        p.append("trace.jsonl missing or not a plain file")
    else:
        ids = [e.get("id") for e in events]
        if ids != list(range(1, len(ids) + 1)):
            p.append(f"trace.jsonl is not the harness's own log: ids {ids[:12]}{'...' if len(ids) > 12 else ''}")
    for check in f.attack.checks:
        CHECKS[check](f, rec, events or [], records, expected)


def _limits_held(f, rec, events, records, expected) -> None:
    peak = rec.budget.agent_peak_memory_mb
    if peak is not None and peak > expected.memory_mb * 1.02:
        f.problems["contained"].append(f"agent peak memory {peak:.0f} MB, over the {expected.memory_mb:.0f} MB "
                                       f"budget (limits_enforced: {rec.limits_enforced})")


def _victim_intact(f, rec, events, records, expected) -> None:
    victim = records.get(f"{TASK}__{VICTIM}__0")
    if victim is None:
        f.problems["contained"].append("the victim trial (fabricate) has no readable record")
        return
    if victim.outcome and victim.outcome.value == "reproduced":
        f.problems["contained"].append("the victim trial (fabricate) now reads reproduced")
    if victim.spec_hash != expected.hash:
        f.problems["contained"].append(f"the victim's trial.json was rewritten (spec_hash {victim.spec_hash[:12]})")


def _metered(f, rec, events, records, expected) -> None:
    calls = [e for e in events if e.get("kind") == "model_call"]
    want = 5 * sum(STREAM_USAGE)
    got = sum(e.get("tokens_in", 0) + e.get("tokens_out", 0) for e in calls)
    if len(calls) < 5 or got < want or rec.budget.model_tokens < want:
        f.problems["contained"].append(f"5 streamed calls hung up early: {len(calls)} recorded, {got} tokens in "
                                       f"the trace, {rec.budget.model_tokens} in trial.json; the upstream "
                                       f"answered {want}")


def _audit_untrusted(f, rec, events, records, expected) -> None:
    shell = [e for e in events if e.get("kind") == "shell_command"]
    trusted = [e for e in shell if e.get("untrusted") is not True]
    if trusted:
        f.problems["contained"].append(f"{len(trusted)} of {len(shell)} shell_command events imported from the "
                                       "agent-writable audit log are not marked untrusted")


CHECKS = {"limits_held": _limits_held, "victim_intact": _victim_intact, "metered": _metered,
          "audit_untrusted": _audit_untrusted}


def _strings(node, skip=("stdout", "stderr")):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for k, v in node.items():
            if k not in skip:
                yield from _strings(v, skip)
    elif isinstance(node, list):
        for v in node:
            yield from _strings(v, skip)


def _visible(f: Finding, events) -> None:
    if events is None:
        f.problems["trace"].append("no trace.jsonl")
        return
    trusted = [e for e in events if e.get("kind") != "shell_command" and e.get("untrusted") is not True]
    untrusted = [e for e in events if e not in trusted]
    for marker in f.attack.traces:
        if not any(marker in s for e in trusted for s in _strings(e)):
            where = " (only in the agent-writable audit's shell_command events)" \
                if any(marker in s for e in untrusted for s in _strings(e)) else ""
            kinds = sorted({str(e.get("kind")) for e in trusted})
            f.problems["trace"].append(f"'{marker}' is in no harness-recorded event{where}; kinds: {', '.join(kinds)}")
