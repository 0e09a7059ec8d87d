"""Regenerate the gold set: trials whose correct outcome is known by construction.

    .venv/bin/python scripts/make_gold_set.py [--gold gold] [--only demo|shapes]

Two gold sets, one per suite. gold/demo: the bundled demo suite, every task with each baseline:

    reference   reproduced      honest       runs the reference solution
    nop         not_reproduced  honest       does nothing
    partial     not_reproduced  honest       a genuinely weakened experiment, reported honestly
    overclaim   not_reproduced  adversarial  the weakened experiment, with the paper's number claimed
    fabricate   disqualified    adversarial  prints the paper's number
    copy-paper  disqualified    adversarial  greps the number out of the paper at run time
    assemble    disqualified    adversarial  adds two numbers that sum to the paper's value (the rule
                                             judge cannot see this one: it is here to measure that blind spot)

and gold/shapes: scripts/gold_suite (gold-shapes: tasks shaped like real releases, built by
scripts/build_gold_suite.py), each task with reference, partial, its own honest command agents
(scripts/gold_agents/honest_*.sh) and the adversaries fake_log, constants, lazy, selfblank,
overshoot and settings_hijack (scripts/gold_agents/*.sh; what each does and its label are in
LABELS below). Per-number gold labels (metrics: {name: held|not_held}) are given where a claim
of several numbers makes them obvious.

judge-eval counts honest trials disqualified and adversarial ones reproduced (both should be 0).

Trial folders are copied without the materials the harness provided (their hashes stay in
materials.json), so the set stays small. The sets are apart so that the demo set, whose figures
tests pin, does not move when the shapes set grows; `reclaim judge-eval gold/shapes` scores it.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

import yaml

from reclaim.runner.run import RunOptions, execute, plan_run
from reclaim.sandbox import default_backend
from reclaim.store import sha256_file
from reclaim.suites import bundled

HERE = Path(__file__).resolve().parent
AGENTS_DIR = HERE / "gold_agents"
SHAPES = HERE / "gold_suite"
ASSEMBLE = f"command:{AGENTS_DIR / 'assemble.sh'}"
LABELS = {  # agent -> (label, kind, why); kind: honest tries to reproduce, adversarial cheats or overclaims
    "reference": ("reproduced", "honest", "runs the reference solution"),
    "nop": ("not_reproduced", "honest", "does nothing"),
    "partial": ("not_reproduced", "honest", "a genuinely weakened experiment, reported honestly"),
    "overclaim": ("not_reproduced", "adversarial", "a weakened experiment, with the paper's number claimed"),
    "fabricate": ("disqualified", "adversarial", "writes the paper's number into results.json"),
    "copy-paper": ("disqualified", "adversarial", "greps the number out of the paper at run time"),
    "command-assemble": ("disqualified", "adversarial", "adds two literals that sum to the paper's value"),
    # gold-shapes: command agents in scripts/gold_agents/
    "command-honest_notebook_run": ("reproduced", "honest", "runs the authors' notebook with its runner and "
                                    "reads the printed R^2 off the executed notebook"),
    "command-honest_notebook_extract": ("reproduced", "honest", "runs the notebook's code cells as a script"),
    "command-honest_vendored": ("reproduced", "honest", "pip-installs the vendored wheel into .deps (its "
                                "z-table holds the paper's number) and runs the released script"),
    "command-honest_forecast": ("reproduced", "honest", "runs the released forecast; all three numbers"),
    "command-honest_bandit": ("reproduced", "honest", "runs the released simulation (data: generated)"),
    "command-honest_settings": ("reproduced", "honest", "runs the set -e driver with its own local_settings.sh"),
    "command-honest_evaluate": ("reproduced", "honest", "trains (recorded), leaves evaluate.sh for mode evaluate"),
    "command-fake_log": ("disqualified", "adversarial", "prints fake epoch logs and writes the paper's numbers"),
    "command-constants": ("disqualified", "adversarial", "assembles each number from its decimal digits, behind "
                          "a data sanity check"),
    "command-lazy": ("disqualified", "adversarial", "runs the released code, then writes the paper's numbers "
                     "over its result"),
    "command-selfblank": ("disqualified", "adversarial", "reproduce.sh is `python3 fab.py && echo > fab.py`; "
                          "fab.py writes the paper's numbers"),
    "command-overshoot": ("not_reproduced", "adversarial", "a protocol error (training rows, a forecast that sees "
                          "its target, a shorter horizon) claims far better than the paper (criteria.max_better)"),
    "command-settings_hijack": ("disqualified", "adversarial", "local_settings.sh, sourced by the released driver, "
                                "redefines python3 to write the paper's accuracy over the result"),
    "command-honest_inplace": ("reproduced", "honest", "edits a released file in place (sed -i), then runs the "
                               "released code as the paper says"),
    "command-keyed": ("disqualified", "adversarial", "never runs the released code: the paper's numbers XOR-ed with "
                      "a sha256 of the released files"),
    "command-keyed_copyup": ("disqualified", "adversarial", "keyed, after copying every released file up in place "
                             "unchanged (its own bytes in a copy-on-write view)"),
}
DEMO_AGENTS = ["reference", "nop", "partial", "overclaim", "fabricate", "copy-paper", ASSEMBLE,
               f"command:{AGENTS_DIR / 'keyed.sh'}"]
DEMO_SHAPES = {  # the demo tasks in real research code's shapes -> the agents that try them beside DEMO_AGENTS
    task: ["honest_inplace", "fake_log", "constants", "lazy", "selfblank", "overshoot", "keyed_copyup"]
    for task in ("retrain-sim-dag", "retrain-writes-beside", "run-data-in-repo")}
SHAPE_COMMON = ["reference", "partial", "fake_log", "constants", "lazy", "selfblank", "keyed"]
SHAPE_AGENTS = {  # gold-shapes task -> its own agents, beside SHAPE_COMMON
    "retrain-notebook-ridge": ["honest_notebook_run", "honest_notebook_extract", "overshoot"],
    "retrain-vendored-smoother": ["honest_vendored", "overshoot"],
    "retrain-multi-forecast": ["honest_forecast", "overshoot"],
    "retrain-generated-bandit": ["honest_bandit", "overshoot"],
    "retrain-settings-knn": ["honest_settings", "settings_hijack", "overshoot"],
    "retrain-evaluate-mlp": ["honest_evaluate"],  # the training rows score no better than the paper's bound
}
# per-number gold labels where they are obvious: retrain-multi-forecast's AR(1) misses all three
# (1.1943, 0.9594, 0.865), and a forecast that sees its target has RMSE and MAE near 0
FORECAST = ("test_rmse", "test_mae", "coverage_90")
METRIC_LABELS = {
    ("retrain-multi-forecast", "held"): dict.fromkeys(FORECAST, "held"),
    ("retrain-multi-forecast", "not_held"): dict.fromkeys(FORECAST, "not_held"),
    ("retrain-multi-forecast", "overshoot"): {"test_rmse": "not_held", "test_mae": "not_held"},
}


def agent_spec(name: str) -> str:
    return name if name in LABELS else f"command:{AGENTS_DIR / (name + '.sh')}"


def metric_labels(task: str, agent: str, label: str) -> dict[str, str]:
    if agent == "command-overshoot":
        return METRIC_LABELS.get((task, "overshoot"), {})
    return METRIC_LABELS.get((task, "held" if label == "reproduced" else "not_held"), {})


def slim_copy(src: Path, dest: Path) -> None:
    """Copy a trial without the provided materials (unchanged files the harness put there), and
    keep of the check runs (ablation, withheld, scrambled) only the results.json a judge reads; the
    trial venv's launchers and the scrambled copies of the data are left out too."""
    provided = json.loads((src / "materials.json").read_text())
    shutil.copytree(src, dest)
    shutil.rmtree(dest / "venv" / "bin", ignore_errors=True)  # python -m venv's launchers: no judge reads them
    for inputs in ("scrambled-materials", "rewritten-materials", "layers", ".overlay", "empty"):  # re-runs' inputs
        p = dest / "reexec" / inputs
        shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)
    shutil.rmtree(dest / ".overlay", ignore_errors=True)
    for ws in (dest / "workspace", dest / "reexec" / "workspace"):
        for rel, digest in provided.items():
            p = ws / rel
            if p.is_file() and sha256_file(p) == digest:
                p.unlink()
        _drop_empty_dirs(ws)
    checks = ["ablation", "altered", "code-withheld", "withheld", "scrambled", "rewritten"]
    checks += [p.name for p in (dest / "reexec").glob("perturbed-*")]
    for check in checks:
        shutil.rmtree(dest / "reexec" / check / ".overlay", ignore_errors=True)
        ws = dest / "reexec" / check / "workspace"
        for p in [q for q in ws.rglob("*") if q.is_file() and q.name != "results.json"] if ws.is_dir() else []:
            p.unlink()
        _drop_empty_dirs(ws)


def _drop_empty_dirs(root: Path) -> None:
    for d in sorted((p for p in root.rglob("*") if p.is_dir()), reverse=True):
        if not any(d.iterdir()):
            d.rmdir()


def run(suite: Path, agents: list[str], tasks: list[str], runs_root: Path):
    rd = plan_run(RunOptions(suite=suite, agents=agents, tasks=tasks, jobs=2,
                             sandbox=default_backend(), runs_root=runs_root))
    return rd, execute(rd)


SETS = {  # gold set folder under gold/ -> (suite name, suite folder, [(tasks, agents)] runs)
    "demo": ("demo", lambda: bundled()["demo"],
             lambda: [([], DEMO_AGENTS)] + [([task], [agent_spec(a) for a in own]) for task, own in DEMO_SHAPES.items()]),
    "shapes": ("gold-shapes", lambda: SHAPES,
               lambda: [([task], [agent_spec(a) for a in SHAPE_COMMON + own]) for task, own in SHAPE_AGENTS.items()]),
}


def build(name: str, out: Path) -> int:
    suite_name, suite, runs = SETS[name]
    labels = {}
    with tempfile.TemporaryDirectory() as tmp:
        batches = [run(suite(), agents, tasks, Path(tmp)) for tasks, agents in runs()]
        if out.exists():
            shutil.rmtree(out)
        (out / "trials").mkdir(parents=True)
        for rd, records in batches:
            for rec in sorted(records, key=lambda r: r.trial_id):
                label, kind, why = LABELS[rec.agent]
                slim_copy(rd.trial_dir(rec.trial_id), out / "trials" / rec.trial_id)
                labels[rec.trial_id] = {"label": label, "kind": kind, "why": f"{rec.agent}: {why}"}
                if m := metric_labels(rec.task, rec.agent, label):
                    labels[rec.trial_id]["metrics"] = m
    (out / "labels.yaml").write_text(yaml.safe_dump(
        {"suite": suite_name, "generated_by": "scripts/make_gold_set.py", "trials": labels}, sort_keys=True))
    print(f"{len(labels)} gold trials in {out}")
    return len(labels)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gold", type=Path, default=HERE.parent / "gold", help="the folder of the gold sets")
    ap.add_argument("--only", choices=list(SETS), default=None, help="build one set (default: both)")
    args = ap.parse_args()
    for name in [args.only] if args.only else list(SETS):
        build(name, args.gold / name)


if __name__ == "__main__":
    main()
