"""The HTML report at scale: time and size to build it for runs of 100, 1,200 and 10,000 trials,
and the time to first paint of the 1,200-trial summary in headless Chromium.

The runs are synthetic but made of real records: one small real run (the demo's first tasks with
reference, nop and fabricate) gives template trials, copied under new task ids into a run of N
trials (records only: trial.json, spec.json, trace, verdicts, re-execution record), so the report
reads, checks and renders exactly what a real run of that size holds.

    .venv/bin/python benchmarks/report.py [--sizes 100 1200 10000] [--dir /tmp] [--chromium PATH]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RECORDS = ("trial.json", "spec.json", "trace.jsonl", "verdict.json", "materials.json", "verdicts",
           "reexec/reexec.json", "records/environment.json", "records/egress.jsonl", "agent")


def template_run(where: Path) -> Path:
    run = where / "template"
    exe = [sys.executable, "-m", "reclaim.cli"]
    res = subprocess.run([*exe, "run", "--suite", "demo", "--task", "run-logreg-sensor-faults", "--task",
                          "retrain-bic-dag", "--task", "reimplement-kmeans-pp", "--agent", "reference",
                          "--agent", "nop", "--agent", "fabricate", "--run-dir", str(run),
                          "--runs-root", str(where / "runs")], capture_output=True, text=True)
    if not (run / "run.json").is_file():
        sys.exit(f"could not make the template run:\n{res.stdout[-2000:]}\n{res.stderr[-2000:]}")
    return run


def synthetic_run(template: Path, n: int, dest: Path) -> Path:
    spec = json.loads((template / "run.json").read_text())
    trials = sorted(p for p in (template / "trials").iterdir() if (p / "trial.json").is_file())
    agents = sorted({json.loads((t / "trial.json").read_text())["agent"] for t in trials})
    per_task = list(trials)
    tasks, hashes = [], {}
    i = 0
    while i < n:
        for t in per_task:
            if i >= n:
                break
            rec = json.loads((t / "trial.json").read_text())
            original = rec["task"]
            task = f"{original}-{i // len(per_task):05d}"
            tid = f"{task}__{rec['agent']}__{rec['seed']}"
            out = dest / "trials" / tid
            out.mkdir(parents=True)
            for rel in RECORDS:
                src = t / rel
                if src.is_dir():
                    shutil.copytree(src, out / rel)
                elif src.is_file():
                    (out / rel).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(src, out / rel)
            rec.update(trial_id=tid, task=task)
            (out / "trial.json").write_text(json.dumps(rec))
            if task not in hashes:
                tasks.append(task)
                hashes[task] = spec["task_hashes"][original]
            i += 1
    spec.update(tasks=tasks, task_hashes=hashes, agents=agents, run_id=f"synthetic-{n}")
    (dest / "run.json").write_text(json.dumps(spec))
    return dest


def build(run: Path, out: Path) -> tuple[float, int]:
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-m", "reclaim.cli", "report", str(run), "--format", "html", "-o",
                          str(out)], capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if res.returncode != 0:
        sys.exit(f"report failed on {run}:\n{res.stderr[-2000:]}")
    return seconds, out.stat().st_size


def first_paint(page_file: Path, chromium: str, runs: int = 3) -> float:
    from playwright.sync_api import sync_playwright

    times = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        for _ in range(runs):
            page = browser.new_page()
            page.goto(page_file.as_uri(), wait_until="load")
            fcp = page.evaluate("performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1")
            times.append(fcp / 1000)
            page.close()
        browser.close()
    return sorted(times)[len(times) // 2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 1200, 10000])
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()))
    ap.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="reclaim-report-bench-", dir=args.dir) as tmp:
        where = Path(tmp)
        template = template_run(where)
        print(f"{'trials':>7} {'build s':>8} {'HTML MB':>8} {'MB/1k trials':>13}")
        pages = {}
        for n in args.sizes:
            run = synthetic_run(template, n, where / f"run-{n}")
            seconds, size = build(run, where / f"report-{n}.html")
            pages[n] = where / f"report-{n}.html"
            outcomes = json.loads(subprocess.run([sys.executable, "-m", "reclaim.cli", "report", str(run), "--format",
                                                  "json"], capture_output=True, text=True).stdout)["totals"]["outcomes"]
            counted = ", ".join(f"{k} {v}" for k, v in outcomes.items() if v)
            print(f"{n:>7} {seconds:>8.2f} {size / 1e6:>8.2f} {size / 1e6 / n * 1000:>13.2f}   ({counted})", flush=True)
        target = 1200 if 1200 in pages else max(pages)
        if args.chromium:
            fcp = first_paint(pages[target], args.chromium)
            print(f"first contentful paint of the {target}-trial summary in headless Chromium: {fcp:.2f} s "
                  "(median of 3; aim under 2 s)")
        else:
            print("no chromium here: first paint not measured")


if __name__ == "__main__":
    main()
