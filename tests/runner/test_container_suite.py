"""The demo suite under the container backend gives the report it gives under bwrap."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import run_suite

from reclaim.report import build_report
from reclaim.sandbox import container
from reclaim.suites import bundled

ROOT = Path(__file__).resolve().parents[2]
DEMO = bundled()["demo"]


@pytest.fixture(scope="module")
def image(bwrap_only_module) -> str:
    if (why := container.available("podman")) is not None:
        pytest.skip(f"podman cannot run containers here: {why}")
    res = subprocess.run([str(ROOT / "scripts" / "build-test-image")], capture_output=True, text=True, timeout=1800)
    assert res.returncode == 0, res.stderr
    return res.stdout.strip()


@pytest.fixture(scope="module")
def bwrap_only_module(sandbox_name):
    if sandbox_name != "bwrap":
        pytest.skip("the comparison needs bubblewrap as well")


def _rows(report) -> dict:
    return {(t.task, t.agent): (t.outcome, t.measured) for t in report.trials}


def test_the_demo_suite_reports_the_same_under_container_and_bwrap(tmp_path, image):
    agents = ["reference", "fabricate"]
    reports = {}
    for sandbox in ("bwrap", "container"):
        rd, records = run_suite(DEMO, tmp_path / sandbox, agents, sandbox, jobs=2, image=image)
        assert not [r.error for r in records if r.error], [r.error for r in records if r.error]
        reports[sandbox] = build_report(rd.spec(), records)
    bw, ct = reports["bwrap"], reports["container"]
    assert _rows(ct) == _rows(bw)
    assert {k: v.model_dump() for k, v in ct.levels.items()} == {k: v.model_dump() for k, v in bw.levels.items()}
    assert {t.outcome for t in ct.trials if t.agent == "reference"} == {"reproduced"}
    assert ct.sandbox == "container"
