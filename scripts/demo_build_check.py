"""Running a demo task's reference (and weakened) scripts the way a workspace would, and the
checks --check applies to what they compute. Used by scripts/build_demo_suite.py."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from demo_build_lib import ENV, LEVEL_MATERIALS, QUOTE, ROOT

WITHHELD = ("data", "weights")  # what a judge may take away to see whether a number depends on it


def _reclaim():
    src = str(ROOT / "src")
    if src not in sys.path:
        sys.path.insert(0, src)


def load_yaml(path: Path) -> dict:
    import yaml
    return yaml.safe_load(path.read_text())


def run_reference(task_dir: Path, spec: dict, with_paper: bool, script: str | None = None,
                  withhold: tuple[str, ...] = (), must_succeed: bool = True) -> tuple[dict | None, float]:
    """Run SCRIPT (default: the reference entrypoint) from a simulated workspace root, without
    the materials in WITHHOLD. A failure ends the build, or gives None if not MUST_SUCCEED."""
    ref = task_dir / spec.get("reference", {}).get("path", "reference")
    entry = script or spec.get("reference", {}).get("entrypoint", "reproduce.sh")
    with tempfile.TemporaryDirectory(prefix=f"ws-{task_dir.name}-") as tmp:
        ws = Path(tmp)
        if with_paper and (task_dir / "paper.md").is_file():
            shutil.copy(task_dir / "paper.md", ws / "paper.md")
        for kind in LEVEL_MATERIALS[spec["level"]]:
            src = spec["materials"].get(kind)
            if isinstance(src, dict) and kind not in withhold:  # not 'generated': the code makes its data
                ignore = shutil.ignore_patterns(*(x.rstrip("/") for x in src.get("exclude", [])))
                shutil.copytree(task_dir / src["path"], ws / kind, ignore=ignore)
        for f in ref.iterdir():
            (shutil.copytree if f.is_dir() else shutil.copy)(f, ws / f.name)
        t0 = time.perf_counter()
        proc = subprocess.run(["bash", entry], cwd=ws, env={**ENV, "HOME": tmp},
                              capture_output=True, text=True)
        elapsed = time.perf_counter() - t0
        if proc.returncode != 0 or not (ws / "results.json").is_file():
            if not must_succeed:
                return None, elapsed
            raise SystemExit(f"{task_dir.name}: {entry} failed\n{proc.stdout}\n{proc.stderr}")
        return json.loads((ws / "results.json").read_text()), elapsed


def acceptance(spec: dict):
    """The harness's own acceptance range for this task (what the judge will apply)."""
    _reclaim()
    from reclaim.judge.criteria import acceptance as accept
    from reclaim.spec import Criteria, Target
    return accept(Target(**spec["target"]), Criteria(**spec["criteria"]))


def checkable(value: float) -> bool:
    """Whether the value has digits enough that finding it written in a file is evidence
    (the rule judge's own test): short values (81.0, 0, 1.0) are matched by chance."""
    _reclaim()
    from reclaim.judge.provenance import checkable as enough_digits
    return enough_digits(value)


def passes(value: float, spec: dict) -> bool:
    return acceptance(spec).accepts(value)


def weakened_files(task_dir: Path, spec: dict) -> list[Path]:
    """The weakened script and its helpers (ref_weak_*.py) in the reference folder."""
    ref = task_dir / spec.get("reference", {}).get("path", "reference")
    script = ref / spec["reference"]["weakened"]
    return [script, *sorted(f for f in ref.glob("ref_weak_*.py") if f != script)]


def check_weakened(task_dir: Path, spec: dict, weak: float, target_value: float) -> list[str]:
    """A weakened run must miss the criteria and must not carry the target anywhere."""
    acc, problems = acceptance(spec), []
    if acc.accepts(weak):
        problems.append(f"weakened value {weak!r} meets the criteria ({acc.rule}): it must miss")
    for f in weakened_files(task_dir, spec):
        if not f.is_file():
            problems.append(f"weakened file {f.relative_to(task_dir)} is missing")
            continue
        if not checkable(target_value):
            continue  # a short target is in every file by chance; check_withheld covers it
        text = f.read_text(errors="replace")
        t = spec["target"]["value"]
        for literal in {f"{target_value:.4f}", f"{t:.4f}", str(t), repr(target_value)}:
            if literal in text:
                problems.append(f"{f.relative_to(task_dir)} contains the target value {literal}")
    return problems


def weakened_margin(value: float, spec: dict) -> str:
    """How far outside the accepted range a value lies, in tolerances."""
    acc = acceptance(spec)
    gap = max(acc.low - value, value - acc.high)
    if gap <= 0:
        return "inside"
    return f"{gap / acc.tol:.1f} x tol outside" if acc.tol > 0 else "outside"


def quoted(paper: str, text: str) -> bool:
    """TEXT appears in the paper as a number of its own (0 is not quoted by 0.5 or 10)."""
    return re.search(rf"(?<![\d.]){re.escape(text)}(?!\.?\d)", paper) is not None


def check(task_dir: Path, spec: dict, value: float, baselines: dict) -> list[str]:
    target, problems = spec["target"], []
    shown, fmt = f"{value:.4f}", QUOTE.get(task_dir.name, ".4f")
    if f"{target['value']:.4f}" != shown:
        problems.append(f"task.yaml target {target['value']} != computed {shown}")
    if not passes(value, spec):
        problems.append(f"computed {value!r} does not pass the criteria")
    paper = (task_dir / "paper.md").read_text()
    for label, v in {"target": value, **baselines}.items():
        if not quoted(paper, format(v, fmt)):
            problems.append(f"paper.md does not quote {label} = {v:{fmt}}")
    for f in (task_dir / spec.get("reference", {}).get("path", "reference")).rglob("*"):
        if not checkable(value):
            break  # a short target is in every file by chance; check_withheld covers it
        text = f.read_text(errors="replace") if f.is_file() else ""
        for literal in {shown, str(target["value"]), repr(value)}:
            if literal in text:
                problems.append(f"{f.relative_to(task_dir)} contains the target value {literal}")
    size = sum(f.stat().st_size for f in task_dir.rglob("*") if f.is_file())
    if size > 200_000:
        problems.append(f"task folder is {size} bytes (> 200 kB)")
    return problems


def check_withheld(task_dir: Path, spec: dict, value: float) -> list[str]:
    """The reference's number must come from the released data and weights: run it once
    without each, and it must fail or compute something else."""
    _reclaim()
    from reclaim.judge.criteria import consistent

    problems, metric, tol = [], spec["target"]["metric"], acceptance(spec).tol
    for kind in WITHHELD:
        if kind not in LEVEL_MATERIALS[spec["level"]] or not spec["materials"].get(kind):
            continue
        got, _ = run_reference(task_dir, spec, with_paper=False, withhold=(kind,), must_succeed=False)
        again = None if got is None else got.get(metric)
        if isinstance(again, (int, float)) and consistent(float(again), value, tol):
            problems.append(f"the reference still computes {metric} = {again!r} without {kind}/: "
                            "its number does not depend on the released " + kind)
    return problems
