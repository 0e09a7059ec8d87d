"""Evidence bundles: raw trace size against bundle size in tokens, and the time to build one.

Over the demo suite (every task, the six baselines), and over one long-log trial (a command
printing a few MB, as training runs do) where compression has work to do. The raw record is the
trace and every output stream (the agent's programs, which the bundle also shows, not counted);
the bundle's tokens are also given per section: the harness's commands, the programs the
re-execution ran, the commands logged otherwise (exec trace, audit hook, transcript), first prints.

    .venv/bin/python benchmarks/evidence.py
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from reclaim.judge.compress import chars_to_tokens
from reclaim.judge.evidence import build_evidence
from reclaim.runner.run import RunOptions, execute, plan_run
from reclaim.sandbox import default_backend
from reclaim.store import trial_spec
from reclaim.suites import bundled

AGENTS = ["reference", "nop", "fabricate", "copy-paper", "overclaim", "partial"]
LONG_AGENT = """#!/bin/bash
python3 - <<'PY'
import random
random.seed(0)
for step in range(120000):
    print(f"step {step} loss {random.random():.6f} lr 0.001 grad_norm {random.random():.4f}")
PY
bash reproduce.sh 2>/dev/null || true
"""


def raw_tokens(tdir: Path) -> int:
    """The whole record a judge would otherwise read: trace.jsonl and every full output stream."""
    files = [tdir / "trace.jsonl", *(tdir / "logs").glob("*"), *(tdir / "reexec" / "logs").glob("*")]
    return chars_to_tokens(sum(p.stat().st_size for p in files if p.is_file()))


SECTIONS = {"commands": "## Commands the harness ran", "programs": "## Programs the re-execution ran",
            "logged": ("## Programs seen starting", "## Commands the audit hook", "## Steps the agent"),
            "first prints": "## Where each number"}


def sections(text: str) -> dict[str, int]:
    """Tokens of each named section of a rendered bundle."""
    out = dict.fromkeys(SECTIONS, 0)
    for part in text.split("\n## ")[1:]:
        for name, heads in SECTIONS.items():
            if ("## " + part).startswith(heads):
                out[name] += chars_to_tokens(len(part) + 4)
    return out


def measure(tdirs: list[Path], repeat: int = 5) -> list[tuple[int, int, float, dict[str, int]]]:
    out = []
    for tdir in tdirs:
        spec = trial_spec(tdir)
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            ev = build_evidence(tdir, spec)
            times.append(time.perf_counter() - t0)
        out.append((raw_tokens(tdir), ev.tokens(), statistics.median(times), sections(ev.render())))
    return out


def show(name: str, rows: list[tuple[int, int, float, dict[str, int]]]) -> None:
    parts = [r[3] for r in rows]
    rows = [r[:3] for r in rows]
    raw = sum(r for r, _, _ in rows)
    ev = sum(e for _, e, _ in rows)
    print(f"{name}: {len(rows)} trials")
    print(f"  raw record  {raw:>10,} tokens total, median {statistics.median(r for r, _, _ in rows):>9,.0f} per trial")
    print(f"  evidence    {ev:>10,} tokens total, median {statistics.median(e for _, e, _ in rows):>9,.0f} per trial")
    print(f"  ratio raw/evidence: {raw / ev:.2f} overall, max {max(r / e for r, e, _ in rows):.1f}")
    print(f"  build time: median {statistics.median(t for _, _, t in rows) * 1000:.1f} ms, "
          f"max {max(t for _, _, t in rows) * 1000:.1f} ms")
    print("  sections, median tokens per trial: " + ", ".join(
        f"{k} {statistics.median(p[k] for p in parts):,.0f}" for k in SECTIONS))


def main() -> None:
    sandbox = default_backend()
    with tempfile.TemporaryDirectory() as tmp:
        rd = plan_run(RunOptions(suite=bundled()["demo"], agents=AGENTS, jobs=2, sandbox=sandbox,
                                 runs_root=Path(tmp)))
        execute(rd)
        show("demo suite", measure(sorted(rd.trials_dir.iterdir())))
        agent = Path(tmp) / "long.sh"
        agent.write_text(LONG_AGENT)
        rd2 = plan_run(RunOptions(suite=bundled()["demo"], agents=[f"command:{agent}"], tasks=["run-ridge-nir"],
                                  sandbox=sandbox, runs_root=Path(tmp) / "long"))
        execute(rd2)
        show("long-log trial (120,000 lines of training output)", measure(sorted(rd2.trials_dir.iterdir())))


if __name__ == "__main__":
    main()
