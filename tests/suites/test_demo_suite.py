"""The bundled demo suite: valid, genuine, and honest — every target is what its reference computes."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest
from typer.testing import CliRunner

from conftest import run_suite
from reclaim.cli.main import app
from reclaim.judge import acceptance
from reclaim.judge.provenance import checkable
from reclaim.spec import Level, load_suite
from reclaim.suites import bundled

DEMO = bundled()["demo"]


def _short(task) -> bool:
    """A target too short for a literal search to mean anything (68.0, 0, 1.0)."""
    return any(not checkable(m.value) for m in task.spec.metrics())


def test_demo_suite_is_valid_with_four_tasks_per_level():
    suite = load_suite(DEMO)
    assert len(suite.tasks) >= 15
    for level in Level:
        assert sum(t.spec.level == level for t in suite.tasks) >= 4, level
        assert any(_short(t) for t in suite.tasks if t.spec.level == level), f"{level}: no short target"
    for t in suite.tasks:
        paper = (t.dir / t.spec.paper.text).read_text()
        for section in ("Abstract", "Method", "Setup", "Results"):
            assert re.search(rf"^#+ .*{section}", paper, re.M | re.I), (t.id, section)
        assert re.search(r"^\|.*\|$", paper, re.M), f"{t.id}: no results table"
        for m in t.spec.metrics():
            v = m.value
            reported = f"{v}" in paper or (v == int(v) and re.search(rf"(?<![\d.]){int(v)}(?!\.?\d)", paper))
            assert reported, f"{t.id}: the paper does not report its target {m.name}"


@pytest.mark.parametrize("task_id", [t.id for t in load_suite(DEMO).tasks if _short(t)])
def test_a_short_target_is_computed_from_the_released_materials(task_id, tmp_path):
    """Without its data (or, at run level, its weights) the reference cannot give its target:
    what lets a judge tell it from a script that prints the number."""
    task = load_suite(DEMO).task(task_id)
    spec = task.spec
    allowed = spec.materials.allowed(spec.level)
    for withheld in [k for k in ("data", "weights") if k in allowed]:
        ws = tmp_path / withheld
        shutil.copytree(task.dir / spec.reference.path, ws)
        for kind, ref in allowed.items():
            if kind != withheld:
                ignore = shutil.ignore_patterns(*(x.rstrip("/") for x in ref.exclude))
                shutil.copytree(task.dir / ref.path, ws / kind, ignore=ignore)
        env = {"PATH": os.environ["PATH"], "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
        proc = subprocess.run(["bash", spec.reference.entrypoint], cwd=ws, env=env, capture_output=True)
        out = ws / "results.json"
        got = json.loads(out.read_text()) if out.exists() else {}
        same = all(got.get(m.name) == m.value for m in spec.metrics())
        assert proc.returncode != 0 or not same, f"{task_id}: gives its target without {withheld}/"


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    from reclaim.sandbox import default_backend

    return run_suite(DEMO, tmp_path_factory.mktemp("demo"),
                     ["reference", "nop", "fabricate", "copy-paper", "overclaim", "partial"],
                     default_backend(), jobs=2)


def test_every_reference_computes_its_own_target(demo_run):
    _, records = demo_run
    suite = load_suite(DEMO)
    refs = [r for r in records if r.agent == "reference"]
    assert len(refs) == len(suite.tasks)
    for r in refs:
        spec = suite.task(r.task).spec
        primary = next(m for m in spec.metrics() if m.name == spec.target.primary)
        assert r.outcome.value == "reproduced", (r.task, r.error)
        assert abs(r.measured - primary.value) <= acceptance(primary).tol, (r.task, r.measured)


def test_demo_reference_100_nop_and_fabricate_0_at_every_level(demo_run):
    from reclaim.report import build_report

    rd, records = demo_run
    report = build_report(rd.spec(), records)
    for level in ("run", "retrain", "reimplement"):
        agents = report.levels[level].agents
        assert agents["reference"].rate == 1.0
        assert agents["nop"].rate == 0.0 and agents["fabricate"].rate == 0.0
        assert report.levels[level].best_agent is None  # baselines only: none is an evaluated agent
        assert set(report.levels[level].baselines) >= {"reference", "nop", "fabricate"}
    assert report.totals.outcomes["error"] == 0
    assert all(r.outcome.value == "disqualified" for r in records if r.agent == "fabricate")


def test_a_reason_names_each_place_once(demo_run):
    """A fabricated claim of three numbers on one line was named once per number found there (the
    same 'reproduce.sh:2: echo ...' five times in one reason)."""
    rd, records = demo_run
    for r in records:
        reason = json.loads((rd.trial_dir(r.trial_id) / "verdict.json").read_text())["rationale"]
        places = re.findall(r"reproduce\.sh:\d+: [^;]*", reason)
        assert len(places) == len(set(places)), (r.trial_id, reason)


def test_no_adversarial_baseline_is_reproduced_on_any_task(demo_run):
    rd, records = demo_run
    expected = {"copy-paper": "disqualified", "overclaim": "not_reproduced", "partial": "not_reproduced"}
    for r in records:
        if r.agent == "copy-paper":
            rx = json.loads((rd.trial_dir(r.trial_id) / "reexec" / "reexec.json").read_text())
            if not rx["answers"]:  # a target at its metric's bound is shown as it is: the copy is the
                # paper's number, and no check that honest work passes by computing lets it through
                assert r.outcome.value in ("not_reproduced", "disqualified"), (r.trial_id, r.outcome)
                continue
        if r.agent in expected:
            assert r.outcome.value == expected[r.agent], (r.trial_id, r.outcome)
    assert sum(r.agent in expected for r in records) == len(expected) * len(load_suite(DEMO).tasks)


def test_validate_with_reference_fails_a_reference_that_misses(tmp_path):
    suite = tmp_path / "demo"
    shutil.copytree(DEMO, suite)
    first = load_suite(suite).tasks[0]
    spec_path = first.dir / "task.yaml"
    text = spec_path.read_text()
    value = first.spec.target.value
    factor = 0.5 if first.spec.target.direction.value == "lower_is_better" else 1.5
    spec_path.write_text(text.replace(f"value: {value}", f"value: {value * factor}", 1))
    res = CliRunner().invoke(app, ["tasks", "validate", str(suite), "--with-reference"])
    assert res.exit_code == 1, res.output
    assert "1 task(s) whose reference misses its own target" in res.output
    assert f"✗ {first.id}" in res.output
