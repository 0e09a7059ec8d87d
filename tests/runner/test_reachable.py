"""A dry run that tells the truth (issue 34): it refuses, before any trial, what the real run would hit.

Each case is one a user met: a material whose host cannot be reached, a cache that is offline and
empty, the reference baseline on a task without one, a GPU task on a machine without GPUs; and the
plain case, where the dry run passes, says what it looked at and what it did not check.
"""

from __future__ import annotations

import hashlib
import socket

from typer.testing import CliRunner

from conftest import task_yaml, write_suite
from reclaim.cli.main import app

DATA = b"1.5 2.25 3.125 4.0625 5.03125\n"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _dry(args: list[str], tmp_path, **env: str):
    env = {"COLUMNS": "250", "RECLAIM_MATERIALS_CACHE": str(tmp_path / "cache"), **env}
    r = CliRunner().invoke(app, ["run", "--dry-run", "--sandbox", "process", *args], env=env)
    return r.exit_code, " ".join(r.output.split())


def _http_suite(tmp_path, url: str):
    return write_suite(tmp_path / "suite", [task_yaml("far-data", "reimplement", **{
        "materials.data": {"http": {"url": url, "sha256": hashlib.sha256(DATA).hexdigest()}}})])


def test_an_item_whose_host_does_not_answer_is_refused_with_the_way_to_bring_it(tmp_path):
    url = f"http://127.0.0.1:{_closed_port()}/values.csv"
    suite = _http_suite(tmp_path, url)
    code, out = _dry(["--suite", str(suite), "--agent", "nop"], tmp_path)
    assert code != 0, out
    assert "1 item(s) this run needs cannot be had here" in out
    assert f"far-data data: {url}" in out and "cannot be reached" in out
    assert f"reclaim materials pack {suite} --task far-data -o bundle.tar.gz" in out
    assert "reclaim materials unpack bundle.tar.gz" in out
    assert not (tmp_path / "runs").exists()


def test_offline_with_an_empty_cache_names_the_item_without_asking_any_host(tmp_path):
    suite = _http_suite(tmp_path, f"http://127.0.0.1:{_closed_port()}/values.csv")
    code, out = _dry(["--suite", str(suite), "--agent", "nop", "--offline"], tmp_path)
    assert code != 0 and "far-data data" in out and "the materials cache is offline (--offline)" in out


def test_the_reference_baseline_without_a_reference_and_a_gpu_task_without_gpus_are_refused(tmp_path):
    suite = write_suite(tmp_path / "suite", [task_yaml("no-ref", "retrain", reference=None)])
    code, out = _dry(["--suite", str(suite), "--agent", "reference"], tmp_path)
    assert code != 0 and "have none (reference: null): no-ref" in out
    gpu = write_suite(tmp_path / "gpu", [task_yaml("needs-gpu", "retrain", **{"budget.gpus": 1,
                                                                             "budget.gpu_hours": 1})])
    code, out = _dry(["--suite", str(gpu), "--agent", "nop", "--task", "needs-gpu", "--gpus", "none"], tmp_path)
    assert code != 0 and "needs-gpu (1) need more GPUs than this machine has (no GPUs)" in out


def test_a_dry_run_that_passes_says_what_it_looked_at_and_what_it_did_not_check(tmp_path, mini_suite):
    code, out = _dry(["--suite", str(mini_suite), "--agent", "nop"], tmp_path)
    assert code == 0, out
    assert "materials: 0 cached, 0 to fetch" in out  # its materials are the suite's own folders
    assert "not checked: that each commit, file and checksum is what the task pins" in out
    assert "nothing found that would stop the run before its first trial" in out
    assert "every check passed" not in out


def test_a_task_that_needs_more_memory_than_the_machine_has_is_refused(tmp_path):
    import psutil

    more = int(psutil.virtual_memory().total / 2**30) + 64
    suite = write_suite(tmp_path / "big", [task_yaml("needs-ram", "retrain", **{"budget.memory_gb": more})])
    code, out = _dry(["--suite", str(suite), "--agent", "nop", "--task", "needs-ram"], tmp_path)
    assert code != 0 and f"needs-ram ({more} GiB) need more memory than this machine has" in out


def test_trials_whose_disk_budgets_the_runs_root_cannot_hold_are_said_before_the_run(tmp_path):
    """Two trials at once, each allowed more disk than the runs root's file system has free: said (a
    budget is a ceiling, so not refused), with the way out; a budget that fits says nothing."""
    import shutil

    free = shutil.disk_usage(tmp_path).free / 2**30
    big = int(free) + 10
    suite = write_suite(tmp_path / "big", [task_yaml(f"big-{i}", "retrain", **{"budget.disk_gb": big})
                                           for i in range(2)])
    code, out = _dry(["--suite", str(suite), "--agent", "nop", "--jobs", "2", "--runs-root", str(tmp_path / "r")],
                     tmp_path)
    assert code == 0, out
    assert f"disk: 2 trial(s) at once may each take their disk budget, {2 * big} GiB in all" in out
    assert f"{tmp_path} has" in out and "--jobs fewer, or --runs-root on a larger file system" in out
    small = write_suite(tmp_path / "small", [task_yaml("small", "retrain", **{"budget.disk_gb": 0.01})])
    code, out = _dry(["--suite", str(small), "--agent", "nop", "--runs-root", str(tmp_path / "r")], tmp_path)
    assert code == 0 and "disk:" not in out, out


def test_what_an_unverified_reference_needs_is_said_as_not_checked(tmp_path):
    """verify.needs is prose (a licence, gated weights): the dry run checks the budget's GPUs, memory and
    disk, and names the rest as not checked rather than letting a pass imply it."""
    needs = "a MOSEK licence and about 10 CPU minutes"
    suite = write_suite(tmp_path / "suite", [task_yaml("licensed", "retrain", **{"verify.needs": needs})])
    code, out = _dry(["--suite", str(suite), "--agent", "nop"], tmp_path)
    assert code == 0, out
    assert f"not checked, a reference never verified here: what verifying it needs beyond its budget " \
           f"(verify.needs): licensed: {needs}" in out
