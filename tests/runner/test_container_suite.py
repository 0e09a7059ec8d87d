"""The demo suite under the container backend gives the report it gives under bwrap; a container
trial runs with an environment the image can run (checked), or with the image's own Python."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from conftest import run_suite, task_yaml, write_agent, write_suite
from reclaim.materials.environment import PreparedEnv
from reclaim.report import build_report
from reclaim.runner.environment import EnvironmentFailed, TrialEnv
from reclaim.sandbox import images
from reclaim.spec import load_suite
from reclaim.store import Outcome, Status
from reclaim.suites import bundled

ROOT = Path(__file__).resolve().parents[2]
DEMO = bundled()["demo"]
AGENTS = ["reference", "nop", "fabricate"]


@pytest.fixture(scope="module")
def image() -> str:
    if (why := images.available("podman")) is not None:
        pytest.skip(f"podman cannot run containers here: {why}")
    res = subprocess.run([str(ROOT / "scripts" / "build-test-image")], check=False, capture_output=True, text=True,
                         timeout=1800)
    assert res.returncode == 0, res.stderr
    return res.stdout.strip()


@pytest.fixture(scope="module")
def bwrap_only_module(sandbox_name):
    if sandbox_name != "bwrap":
        pytest.skip("the comparison needs bubblewrap as well")


def _image_from(tmp_path: Path, dockerfile: str, files: dict[str, tuple[str, int]] | None = None) -> str:
    ctx = tmp_path / "ctx"
    ctx.mkdir()
    for name, (text, mode) in (files or {}).items():
        (ctx / name).write_text(text)
        (ctx / name).chmod(mode)
    (ctx / "Dockerfile").write_text(dockerfile)
    return images.ensure_image(ctx / "Dockerfile", ctx, "podman")


def _rmi(tag: str) -> None:
    subprocess.run(["podman", "rmi", "--force", tag], check=False, capture_output=True)


def _reexec(rd, rec) -> dict:
    """What each re-execution of the trial did: ran, exit code; and the same for its checks."""
    path = rd.trial_dir(rec.trial_id) / "reexec" / "reexec.json"
    if not path.is_file():
        return {}
    rx = json.loads(path.read_text())
    runs = {"main": rx} | {k: rx[k] for k in ("ablation", "withheld", "scrambled") if rx.get(k)}
    return {k: (r.get("ran"), r.get("exit_code"), r.get("timed_out"), r.get("reason")) for k, r in runs.items()}


def _trial_rows(report) -> dict:
    return {(t.task, t.agent, t.seed): (t.level, t.outcome, t.measured, t.target, t.attempts, t.error_attempts)
            for t in report.trials}


def test_the_demo_suite_reports_the_same_under_container_and_bwrap(tmp_path, image, bwrap_only_module, capsys):
    reports, trials, walls = {}, {}, {}
    for sandbox in ("bwrap", "container"):
        t0 = time.monotonic()
        rd, records = run_suite(DEMO, tmp_path / sandbox, AGENTS, sandbox, jobs=2, image=image)
        walls[sandbox] = time.monotonic() - t0
        assert len(records) == len(load_suite(bundled()['demo']).tasks) * len(AGENTS)
        assert not [r.error for r in records if r.error], [r.error for r in records if r.error]
        reports[sandbox] = build_report(rd.spec(), records)
        trials[sandbox] = {r.trial_id: (r.status, r.outcome, r.measured, r.target, r.materials, _reexec(rd, r))
                           for r in records}
    with capsys.disabled():
        print(f"\ndemo suite, {len(AGENTS)} agents: bwrap {walls['bwrap']:.1f} s, container {walls['container']:.1f} s")
    bw, ct = reports["bwrap"], reports["container"]
    assert trials["container"] == trials["bwrap"]  # per trial: status, outcome, measured value, re-executions
    assert _trial_rows(ct) == _trial_rows(bw)
    assert {k: v.model_dump() for k, v in ct.levels.items()} == {k: v.model_dump() for k, v in bw.levels.items()}
    same = ("trials", "planned", "budget_wall_s", "gpu_hours_allocated", "outcomes", "attempts", "retries",
            "error_attempts", "model_tokens")
    assert {k: getattr(ct.totals, k) for k in same} == {k: getattr(bw.totals, k) for k in same}
    outcomes = {a: {t.outcome for t in ct.trials if t.agent == a} for a in AGENTS}
    assert outcomes == {"reference": {"reproduced"}, "nop": {"not_reproduced"}, "fabricate": {"disqualified"}}
    assert (ct.sandbox, bw.sandbox) == ("container", "bwrap")


def test_an_image_without_the_prepared_interpreter_is_a_harness_error(tmp_path, image):
    """The host-built environment names /usr/bin/python3; an image whose python3 is another
    version cannot run it: the trial ends in error (not the agent's failure), saying what to do."""
    fake = _image_from(tmp_path, f"FROM localhost/{image}\nCOPY python3.11 /usr/bin/python3.11\n",
                       {"python3.11": ("#!/bin/sh\necho 3.9.1\n", 0o755)})
    try:
        suite = write_suite(tmp_path / "suite", [task_yaml("mean-env")])
        _rd, (rec,) = run_suite(suite, tmp_path / "runs", ["reference"], "container", image=fake, max_retries=0)
    finally:
        _rmi(fake)
    assert rec.status == Status.error and rec.outcome == Outcome.error
    assert "environment.python: the image" in rec.error and "has Python 3.9.1 at /usr/bin/python3" in rec.error
    assert "fix: use an image with Python" in rec.error and "task.yaml" in rec.error


def test_a_missing_interpreter_is_named(tmp_path, image):
    env = tmp_path / "env"
    env.mkdir()
    prepared = PreparedEnv(key="k", path=str(env), python="/opt/reclaim-nowhere/bin/python3.11",
                           python_version="3.11.2", site_packages=str(env / "lib"))
    with pytest.raises(EnvironmentFailed, match=r"has no /opt/reclaim-nowhere/bin/python3.11 \(3.11.2\) for the "
                                                r"prepared environment — fix: use an image with Python 3.11.2"):
        TrialEnv(prepared, tmp_path, True).check_image(image)


REF_NUMPY = """set -e
python3 - <<'PY'
import json, sys, numpy
vals = numpy.loadtxt('data/values.csv')
print('numpy', numpy.__version__, 'prefix', sys.prefix)
json.dump({'mean_value': float(vals.mean())}, open('results.json', 'w'))
PY
"""


def test_a_task_image_without_packages_runs_with_the_images_own_python(tmp_path, image):
    """No host venv: the trial's venv is made in the image from its python3 and sees its numpy."""
    suite = write_suite(tmp_path / "suite", [task_yaml("own-python", environment={"dockerfile": "Dockerfile"})],
                        own_python=REF_NUMPY)
    task_dir = suite / "own-python"
    (task_dir / "Dockerfile").write_text(f"FROM localhost/{image}\n")
    tag = images.ensure_image(task_dir / "Dockerfile", task_dir, "podman")
    try:
        rd, (rec,) = run_suite(suite, tmp_path / "runs", ["reference"], "container", max_retries=0)
    finally:
        _rmi(tag)
    assert rec.error is None and rec.outcome == Outcome.reproduced, rec.error
    tdir = rd.trial_dir(rec.trial_id)
    given = json.loads((tdir / "records" / "environment.json").read_text())
    assert given["image"] == tag and given["python"].startswith("/usr/bin/python3")
    numpy = next(p for p in given["packages"] if p.startswith("numpy=="))
    events = [json.loads(line) for line in (tdir / "trace.jsonl").read_text().splitlines()]
    said = [e["stdout"] for e in events if e["kind"] == "command_finished"]
    assert said and all(s.startswith(f"numpy {numpy.split('==')[1]} prefix /opt/reclaim/venv") for s in said[:2]), said
    assert any("the image's own Python" in e.get("message", "") for e in events)
    assert "include-system-site-packages = true" in (tdir / "venv" / "pyvenv.cfg").read_text()
    assert not (tdir / "venv" / "lib" / f"python{given['python_version'].rsplit('.', 1)[0]}" / "site-packages"
                / "_reclaim_environment.pth").exists()  # nothing layered from the host


def test_a_container_trial_edits_released_code_in_place_too(tmp_path, image):
    from test_writable_materials import EDIT

    from reclaim.sandbox import backend

    if backend("container").overlays() is not None:
        pytest.skip(f"copy-on-write in containers: {backend('container').overlays()}")
    agent = write_agent(tmp_path / "edit.sh", EDIT)
    suite = write_suite(tmp_path / "suite", [task_yaml("edit-in-box", "retrain")])
    (suite / "edit-in-box" / "code" / "unused.py").write_text("x = 1\n")
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], "container", image=image)
    tdir = rd.trial_dir(rec.trial_id)
    assert rec.outcome.value == "reproduced", (tdir / "verdict.json").read_text()
    assert rec.materials_changed == 4
