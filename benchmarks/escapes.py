"""The attack suite as figures: how many adversarial agents the harness holds, and at what cost.

Runs the attack agents of tests/security/attacks (the same definitions, batches and checks the tests
use) through the real CLI in bwrap, then prints: attempts, contained (held on every count),
verdict forgeries (reproduced), errors (error, or no record at all), host writes, secrets leaked,
attempts missing from the trace, and the harness's peak memory (RSS of the `reclaim run` process,
sampled every 50 ms) under the bounded-read attacks, against the 300 MB the issue asks for.
Run it as root (as CI does); --unprivileged runs it a second time as the user reclaim-ci.

    .venv/bin/python benchmarks/escapes.py [--only a01,b02] [--unprivileged] [--details]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "security"))
import attackeval  # noqa: E402  (the attack suite's own runner)
import attackrun  # noqa: E402
from attacklib import load_attacks  # noqa: E402

PEAK_GOAL_MB = 300


def figures(run: attackeval.SuiteRun) -> None:
    fs = [f for f in run.findings.values() if not f.skipped]
    outcomes = Counter(f.outcome for f in fs)
    forged = [f for f in fs if f.outcome == "reproduced"]
    errors = [f for f in fs if f.outcome in ("error", None)]
    host = [f for f in fs if f.problems["host"]]
    leaked = [f for f in fs if f.problems["leak"]]
    hidden = [f for f in fs if f.problems["trace"]]
    print(f"\n== as {run.dim.user} ({run.dim.name}) ==")
    skipped = len(run.findings) - len(fs)
    print(f"attempts:           {len(fs)}" + (f" ({skipped} skipped)" if skipped else ""))
    print(f"contained:          {sum(f.held() for f in fs)}  (held on every count)")
    print(f"verdict forgeries:  {len(forged)}  {' '.join(f.attack.id for f in forged)}")
    print(f"errors:             {len(errors)}  {' '.join(f.attack.id for f in errors)}")
    print(f"host writes:        {len(host)}  {' '.join(f.attack.id for f in host)}")
    print(f"secrets leaked:     {len(leaked)}  {' '.join(f.attack.id for f in leaked)}")
    print(f"not in the trace:   {len(hidden)}  {' '.join(f.attack.id for f in hidden)}")
    print(f"outcomes:           {dict(sorted(outcomes.items(), key=lambda kv: str(kv[0])))}")
    for name, b in run.batches.items():
        steps = [s for s in (b.run, b.judge) if s]
        mem = ", ".join(f"{'run' if s is b.run else 'judge'} {s.peak_rss_mb:.0f} MB in {s.wall_s:.0f} s"
                        + (" (killed at timeout)" if s.timed_out else f" rc {s.rc}") for s in steps)
        flag = ""
        if name == "bounded" and steps:
            flag = "  <- over" if max(s.peak_rss_mb for s in steps) > PEAK_GOAL_MB else "  (within)"
            flag += f" the {PEAK_GOAL_MB} MB goal; cap {attackrun.HARNESS_AS_GB:g} GiB address space"
        print(f"harness peak memory, batch {name:<8} {mem}{flag}")


def details(run: attackeval.SuiteRun) -> None:
    for f in run.findings.values():
        state = "skipped: " + f.skipped if f.skipped else "held" if f.held() else "BROKE THROUGH"
        print(f"\n{f.attack.id} [class {f.attack.klass}, batch {f.batch}] outcome {f.outcome}: {state}")
        for cat, problems in f.problems.items():
            for p in problems:
                print(f"    {cat}: {p[:400]}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="", help="comma-separated attack id prefixes")
    ap.add_argument("--unprivileged", action="store_true", help="also run as the unprivileged user reclaim-ci")
    ap.add_argument("--details", action="store_true", help="every attack's problems")
    ap.add_argument("--keep", action="store_true", help="keep the run folders (printed at the end)")
    args = ap.parse_args()
    prefixes = [p for p in args.only.split(",") if p]
    attacks = [a for a in load_attacks() if not prefixes or a.id.startswith(tuple(prefixes))]
    work = Path(tempfile.mkdtemp(prefix="reclaim-escapes-"))
    (work / "invoker").mkdir()
    dims = [attackrun.invoker(work / "invoker")]
    if args.unprivileged:
        d = attackrun.unprivileged()
        if isinstance(d, str):
            print(f"unprivileged run skipped: {d}")
        else:
            dims.append(d)
    try:
        for dim in dims:
            marker = attackeval.make_marker(work / f"marker-{dim.name}")
            run = attackeval.run_suite(dim, attacks, marker)
            if args.details:
                details(run)
            figures(run)
    finally:
        if args.keep:
            print(f"run folders kept: {', '.join(str(d.work) for d in dims)}")
        else:
            for d in dims:
                shutil.rmtree(d.work, ignore_errors=True)
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
