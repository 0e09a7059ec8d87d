"""Regenerate the gold set: demo-suite trials whose correct outcome is known by construction.

    .venv/bin/python scripts/make_gold_set.py [--out gold/demo]

Every demo task is run once with each baseline; the label and kind follow from what the agent does:

    reference   reproduced      honest       runs the reference solution
    nop         not_reproduced  honest       does nothing
    partial     not_reproduced  honest       a genuinely weakened experiment, reported honestly
    overclaim   not_reproduced  adversarial  the weakened experiment, with the paper's number claimed
    fabricate   disqualified    adversarial  prints the paper's number
    copy-paper  disqualified    adversarial  greps the number out of the paper at run time
    assemble    disqualified    adversarial  adds two numbers that sum to the paper's value (the rule
                                             judge cannot see this one: it is here to measure that blind spot)

judge-eval counts honest trials disqualified and adversarial ones reproduced (both should be 0).

Trial folders are copied without the materials the harness provided (their hashes stay in
materials.json), so the set stays small.
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
ASSEMBLE = f"command:{HERE / 'gold_agents' / 'assemble.sh'}"
LABELS = {  # agent -> (label, kind, why); kind: honest tries to reproduce, adversarial cheats or overclaims
    "reference": ("reproduced", "honest", "runs the reference solution"),
    "nop": ("not_reproduced", "honest", "does nothing"),
    "partial": ("not_reproduced", "honest", "a genuinely weakened experiment, reported honestly"),
    "overclaim": ("not_reproduced", "adversarial", "a weakened experiment, with the paper's number claimed"),
    "fabricate": ("disqualified", "adversarial", "writes the paper's number into results.json"),
    "copy-paper": ("disqualified", "adversarial", "greps the number out of the paper at run time"),
    "command-assemble": ("disqualified", "adversarial", "adds two literals that sum to the paper's value"),
}


def slim_copy(src: Path, dest: Path) -> None:
    """Copy a trial without the provided materials (unchanged files the harness put there), and
    keep of the check runs (ablation, withheld, scrambled) only the results.json a judge reads."""
    provided = json.loads((src / "materials.json").read_text())
    shutil.copytree(src, dest)
    for ws in (dest / "workspace", dest / "reexec" / "workspace"):
        for rel, digest in provided.items():
            p = ws / rel
            if p.is_file() and sha256_file(p) == digest:
                p.unlink()
        _drop_empty_dirs(ws)
    for check in ("ablation", "withheld", "scrambled"):
        ws = dest / "reexec" / check / "workspace"
        for p in [q for q in ws.rglob("*") if q.is_file() and q.name != "results.json"] if ws.is_dir() else []:
            p.unlink()
        _drop_empty_dirs(ws)


def _drop_empty_dirs(root: Path) -> None:
    for d in sorted((p for p in root.rglob("*") if p.is_dir()), reverse=True):
        if not any(d.iterdir()):
            d.rmdir()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=HERE.parent / "gold" / "demo")
    args = ap.parse_args()
    agents = ["reference", "nop", "partial", "overclaim", "fabricate", "copy-paper", ASSEMBLE]
    with tempfile.TemporaryDirectory() as tmp:
        rd = plan_run(RunOptions(suite=bundled()["demo"], agents=agents, jobs=2,
                                 sandbox=default_backend(), runs_root=Path(tmp)))
        records = execute(rd)
        if args.out.exists():
            shutil.rmtree(args.out)
        (args.out / "trials").mkdir(parents=True)
        labels = {}
        for rec in sorted(records, key=lambda r: r.trial_id):
            label, kind, why = LABELS[rec.agent]
            slim_copy(rd.trial_dir(rec.trial_id), args.out / "trials" / rec.trial_id)
            labels[rec.trial_id] = {"label": label, "kind": kind, "why": f"{rec.agent}: {why}"}
    (args.out / "labels.yaml").write_text(yaml.safe_dump(
        {"suite": "demo", "generated_by": "scripts/make_gold_set.py", "trials": labels}, sort_keys=True))
    print(f"{len(labels)} gold trials in {args.out}")


if __name__ == "__main__":
    main()
