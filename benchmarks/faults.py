"""Faults a run survives, measured (issue 25).

    python benchmarks/faults.py [--kills 20] [--tasks 5] [--long-trials 2000] [--disk-kb 32,64,...]
                                [--only kills,points,disks,tests,long]

- kills: SIGKILL of the driver at random moments of a demo run, each followed by --resume; the
  final outcomes and measured values must equal an unkilled run's, and nothing the killed driver
  made (its temporary folders, its cgroups) may be left after the resume.
- points: the same, killed at each named failpoint (RECLAIM_FAILPOINTS=<point>:kill): the trial
  phases, mid-seal, before indexing, after planning, before the report.
- disks: the run folder and the materials cache on a small tmpfs (root only), one size after another
  so that it fills at a different point (trace, records, cache, report); then the disk grows and the
  run is resumed: no traceback, no trial blamed on its agent, the resumed report identical. Then
  writes under the run folder failing with EIO at random (tests/faults/eio_preload.c preloaded into
  the driver), several seeds and rates, each run resumed on a sound disk.
- tests: the fault drills kept as tests, run here and counted by kind: full disks and killed
  writers, misbehaving providers (gateway and LLM judge), the real Slurm (preemption, a node down,
  scancel, a stopped or killed driver), locks (a second driver, processes sharing caches), and the
  property-based inputs (cases per input, from hypothesis's own statistics).
- long: a long run of a trivial task (benchmarks/long_run.py): the driver's memory and descriptors
  at 100 trials and at the end, the index against the records, the time of `reclaim report`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from long_run import long_run

from reclaim.failpoints import FAILPOINTS, POINTS

ROOT = Path(__file__).resolve().parents[1]
RECLAIM = [sys.executable, "-m", "reclaim.cli"]
TASKS = ["retrain-sim-dag", "run-ridge-nir", "reimplement-lasso-cd", "run-mlp-spirals", "retrain-logreg-gd"]
DRILLS = {  # kind -> pytest arguments selecting the tests that inject it
    "disk": ["tests/runner/test_full_disk.py", "tests/gateway/test_pkgcache.py", "tests/materials/test_cache.py",
             "tests/runner/test_environment.py", "-k", "full_disk or killed or half_way or torn or stale or disk"],
    "provider": ["tests/gateway/test_bad_upstream.py", "tests/judge/test_llm_judge.py", "-k",
                 "misbehaving or killed or 429 or 500s or timeout or malformed or fence or tie or without_json "
                 "or plain_text"],
    "cluster": ["tests/runner/test_slurm.py"],
    "lock": ["tests/store/test_runlock.py",
             "tests/runner/test_resume.py::test_a_second_driver_on_a_run_in_progress_is_refused_and_changes_nothing",
             "tests/materials/test_cache.py::test_six_processes_fetch_once",
             "tests/runner/test_environment.py::test_processes_preparing_one_environment_at_once_build_it_once",
             "tests/gateway/test_pkgcache.py::test_eight_writers_of_one_package_at_once_leave_one_whole_entry"],
    "fuzz": ["tests/test_fuzz_inputs.py", "--hypothesis-show-statistics"],
}


def _outcomes(run: Path) -> dict[str, tuple]:
    """Per trial: the verdict's outcome and measured value; a harness error has no verdict, only its record."""
    out = {}
    for t in sorted((run / "trials").iterdir()):
        v = json.loads((t / "verdict.json").read_text()) if (t / "verdict.json").is_file() else {}
        if not v and (t / "trial.json").is_file():
            v = {"outcome": json.loads((t / "trial.json").read_text()).get("outcome")}
        out[t.name] = (v.get("outcome"), v.get("measured"))
    return out


def _leftovers(pid: int) -> list[str]:
    tmp = Path(tempfile.gettempdir())
    dirs = [str(p) for p in tmp.glob(f"reclaim-*-{pid}-*")]
    groups = [str(p) for p in Path("/sys/fs/cgroup").glob(f"*/reclaim-{pid}-*")]
    groups += [str(p) for p in Path("/sys/fs/cgroup").glob(f"reclaim-{pid}-*")]
    return dirs + groups


def _killed_then_resumed(base: list[str], runs: Path, at: float | None, point: str | None) -> tuple[dict, int, int]:
    """One drill: the run killed (after ``at`` seconds, or at ``point``), then resumed. Returns its
    outcomes and what the killed driver left before and after the resume."""
    env = {**os.environ, FAILPOINTS: f"{point}:kill"} if point else None
    proc = subprocess.Popen(RECLAIM + base + ["--runs-root", str(runs)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env)
    if at is not None:
        time.sleep(at)
        proc.send_signal(signal.SIGKILL)
    proc.wait()
    left_before = _leftovers(proc.pid)
    run = next(runs.glob("2*"), None)
    if run is None:  # killed before the run folder was made: nothing to resume, a new run instead
        subprocess.run(RECLAIM + base + ["--runs-root", str(runs)], capture_output=True)
        run = next(runs.glob("2*"))
    else:
        subprocess.run(RECLAIM + ["run", "--resume", str(run)], capture_output=True)
    return _outcomes(run), len(left_before), len(_leftovers(proc.pid))


def kills(a, root: Path, base: list[str], clean: dict, clean_s: float) -> list[str]:
    rng = random.Random(a.seed)
    survived, left_total, left_max = 0, 0, 0
    for k in range(a.kills):
        at = rng.uniform(0.5, clean_s * 0.9)
        got, before, after = _killed_then_resumed(base, root / f"kill-{k}", at, None)
        survived += got == clean
        left_total, left_max = left_total + after, max(left_max, before)
        print(f"  kill {k + 1} at {at:4.1f} s: report {'identical' if got == clean else 'DIFFERENT'}; "
              f"left by the killed driver: {before} before the resume, {after} after")
    return [f"random kill points: {a.kills} tried, {survived} survived (identical reports); up to {left_max} "
            f"temporary folders and cgroups left by a kill, {left_total} after its resume"]


def points(a, root: Path, base: list[str], clean: dict) -> list[str]:
    survived, left_total = 0, 0
    for point in POINTS:
        got, before, after = _killed_then_resumed(base, root / f"point-{point}", None, point)
        survived += got == clean
        left_total += after
        print(f"  killed at {point}: report {'identical' if got == clean else 'DIFFERENT'}; "
              f"left {before} before the resume, {after} after")
    return [f"named kill points: {len(POINTS)} tried ({', '.join(POINTS)}), {survived} survived; "
            f"{left_total} left after the resumes"]


def _mount(where: Path, size: str, remount: bool = False) -> bool:
    opts = f"remount,size={size}" if remount else f"size={size}"
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(where)], capture_output=True)
    return done.returncode == 0


def disks(a, root: Path) -> list[str]:
    """The run's folder and the materials cache on a small disk that fills up at a different point
    for each size; then the disk grows and the run is resumed."""
    base = ["run", "--agent", "reference", "--sandbox", a.sandbox, "--task", TASKS[0], "--task", TASKS[1]]
    subprocess.run(RECLAIM + base + ["--runs-root", str(root / "disk-clean")], capture_output=True, check=True)
    clean = _outcomes(next((root / "disk-clean").glob("2*")))
    tried = survived = blamed_total = tracebacks = 0
    for kb in a.disk_kb:
        where = root / f"disk-{kb}k"
        where.mkdir()
        if not _mount(where, f"{kb}k"):
            return ["disk faults: not tried (mounting a tmpfs needs root)"]
        try:
            env = {**os.environ, "RECLAIM_MATERIALS_CACHE": str(where / "cache")}
            first = subprocess.run(RECLAIM + base + ["--runs-root", str(where / "runs")], capture_output=True,
                                   text=True, env=env, timeout=600)
            run = next((p for p in (where / "runs").glob("2*") if (p / "run.json").is_file()), None) \
                if (where / "runs").is_dir() else None
            got_first = _outcomes(run) if run is not None and (run / "trials").is_dir() else {}
            blamed = sum(o not in (None, "error", "reproduced") for o, _ in got_first.values())
            traceback = "Traceback" in first.stdout + first.stderr
            _mount(where, "200M", remount=True)
            if run is None:
                subprocess.run(RECLAIM + base + ["--runs-root", str(where / "runs")], capture_output=True, env=env)
                run = next((where / "runs").glob("2*"))
            else:
                subprocess.run(RECLAIM + ["run", "--resume", str(run)], capture_output=True, env=env)
            same = _outcomes(run) == clean
        finally:
            subprocess.run(["umount", "-l", str(where)], capture_output=True)
        tried += 1
        survived += same and not blamed and not traceback
        blamed_total += blamed
        tracebacks += traceback
        print(f"  {kb:5d} KB disk: exit {first.returncode}, {sum(o == 'error' for o, _ in got_first.values())} "
              f"trials error, {sum(o is None for o, _ in got_first.values())} unfinished, {blamed} blamed on the "
              f"agent, traceback {'YES' if traceback else 'no'}; resumed report {'identical' if same else 'DIFFERENT'}")
    return [f"disk faults (ENOSPC): {tried} disk sizes ({min(a.disk_kb)} KB to {max(a.disk_kb)} KB, the run folder "
            f"and the materials cache on it), {survived} survived (no traceback, no trial blamed, the resumed "
            f"report identical); {blamed_total} trials blamed, {tracebacks} tracebacks"]


def eio(a, root: Path) -> list[str]:
    """Writes under the run folder failing with EIO at random (tests/faults/eio_preload.c, in the
    driver only), agents reference and nop; then the run is resumed on a sound disk."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return ["disk faults (EIO): not tried (no C compiler for tests/faults/eio_preload.c)"]
    shim = root / "eio_preload.so"
    subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", str(shim), str(ROOT / "tests/faults/eio_preload.c"), "-ldl"],
                   check=True)
    base = ["run", "--agent", "reference", "--agent", "nop", "--sandbox", a.sandbox, "--task", TASKS[0], "--task",
            TASKS[1], "--max-retries", "4"]
    subprocess.run(RECLAIM + base + ["--runs-root", str(root / "eio-clean")], capture_output=True)
    clean = _outcomes(next((root / "eio-clean").glob("2*")))
    tried = survived = blamed_total = tracebacks = errors = 0
    for chance in a.eio_p:
        for seed in range(1, a.eio_seeds + 1):
            runs = root / f"eio-{chance}-{seed}"
            env = {**os.environ, "LD_PRELOAD": str(shim), "RECLAIM_EIO_PREFIX": str(runs),
                   "RECLAIM_EIO_P": str(chance), "RECLAIM_EIO_SEED": str(seed)}
            first = subprocess.run(RECLAIM + base + ["--runs-root", str(runs)], capture_output=True, text=True,
                                   env=env, timeout=600)
            run = next(p.parent for p in runs.glob("2*/run.json"))
            got = _outcomes(run)
            right = {"reference": ("reproduced", "error", None), "nop": ("not_reproduced", "error", None)}
            blamed = sum(o not in right[t.split("__")[1]] for t, (o, _) in got.items())
            errors += sum(o == "error" for o, _ in got.values()) + len(list((run / "retried").glob("*")))
            traceback = "Traceback" in first.stdout + first.stderr
            subprocess.run(RECLAIM + ["run", "--resume", str(run)], capture_output=True)
            final = _outcomes(run)
            same = {t: o for t, (o, _) in final.items() if o != "error"} == {
                t: o for t, (o, _) in clean.items() if t in final and final[t][0] != "error"}
            tried += 1
            survived += same and not blamed and not traceback
            blamed_total += blamed
            tracebacks += traceback
            print(f"  EIO p={chance} seed {seed}: exit {first.returncode}, {blamed} blamed on the agent, traceback "
                  f"{'YES' if traceback else 'no'}; resumed report {'identical' if same else 'DIFFERENT'}")
    return [f"disk faults (EIO): {tried} runs with writes under the run folder failing at random (p = "
            f"{', '.join(map(str, a.eio_p))}), {errors} trial attempts ended in the harness's error, {survived} "
            f"runs survived (no traceback, no trial blamed, every trial not left in error as in an unfaulted run); "
            f"{blamed_total} trials "
            f"blamed, {tracebacks} tracebacks"]


def tests(a, root: Path) -> list[str]:
    lines = []
    for kind, args in DRILLS.items():
        xml = root / f"{kind}.xml"
        out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={xml}",
                              *args], cwd=ROOT, capture_output=True, text=True)
        cases = list(ET.parse(xml).iter("testcase")) if xml.is_file() else []
        bad = [c.get("name") for c in cases if c.find("failure") is not None or c.find("error") is not None]
        skipped = sum(c.find("skipped") is not None for c in cases)
        line = f"{kind} faults: {len(cases) - skipped} drills, {len(cases) - skipped - len(bad)} handled"
        line += f", {skipped} skipped here" if skipped else ""
        line += f"; FAILED: {', '.join(bad)}" if bad else ""
        if kind == "fuzz":
            sections = re.split(r"\n\S+::\w+:\n", out.stdout)[1:]  # hypothesis's statistics, one per test
            examples = [sum(int(n) for n in re.findall(r"- (\d+) passing", part)) for part in sections]
            line += (f"; {len(examples)} inputs, {min(examples, default=0)} to {max(examples, default=0)} cases each, "
                     f"{sum(examples)} in all, {len(bad)} crashes")
        print(f"  {line}")
        lines.append(line)
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--tasks", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sandbox", default="bwrap")
    ap.add_argument("--long-trials", type=int, default=2000)
    ap.add_argument("--disk-kb", type=lambda v: [int(x) for x in v.split(",")],
                    default=[32, 64, 128, 256, 512, 1024, 2048, 4096])
    ap.add_argument("--eio-p", type=lambda v: [float(x) for x in v.split(",")], default=[0.02, 0.05])
    ap.add_argument("--eio-seeds", type=int, default=5)
    ap.add_argument("--only", default="kills,points,disks,tests,long")
    a = ap.parse_args()
    only = set(a.only.split(","))
    root = Path(tempfile.mkdtemp(prefix="reclaim-faults-"))
    figures: list[str] = []
    try:
        if only & {"kills", "points"}:
            base = ["run", "--agent", "reference", "--sandbox", a.sandbox, "--jobs", "2"]
            for t in TASKS[:a.tasks]:
                base += ["--task", t]
            t0 = time.monotonic()
            subprocess.run(RECLAIM + base + ["--runs-root", str(root / "clean")], capture_output=True, check=True)
            clean_s = time.monotonic() - t0
            clean = _outcomes(next((root / "clean").glob("2*")))
            print(f"unkilled run: {len(clean)} trials in {clean_s:.1f} s")
            if "kills" in only:
                figures += kills(a, root, base, clean, clean_s)
            if "points" in only:
                figures += points(a, root, base, clean)
        if "disks" in only:
            print("full disks:")
            figures += disks(a, root)
            figures += eio(a, root)
        if "tests" in only:
            print("fault drills kept as tests:")
            figures += tests(a, root)
        if "long" in only:
            figures += long_run(a.long_trials, sandbox=a.sandbox, root=root / "long").lines()
    finally:
        if os.environ.get("KEEP") is None:
            subprocess.run(["rm", "-rf", str(root)])
    print("\nfigures:")
    for line in figures:
        print(line)


if __name__ == "__main__":
    main()
