"""GPU budgets with the fake backend: exclusive allocation, visible devices, metering, deadlines."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
from itertools import pairwise
from pathlib import Path

import pytest

from conftest import run_suite, task_yaml, write_agent, write_suite
from reclaim.budget.gpus import Allocator, FakeBackend, discover
from reclaim.runner.run import RunError
from reclaim.sandbox import images

ROOT = Path(__file__).resolve().parents[2]


def _gpu_task(task_id: str, gpus: int = 1, gpu_hours: float = 1.0, wall: float = 1.0) -> dict:
    return task_yaml(task_id, "run", **{"budget.gpus": gpus, "budget.gpu_hours": gpu_hours,
                                        "budget.wall_minutes": wall})


PROBE = """
echo "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"
ls /dev | grep nvidia | sort | tr '\\n' ' '; echo
nvidia-smi
cat "${LD_LIBRARY_PATH%%:*}/libcuda.so.1"
sleep 1.2
"""


def test_trials_see_only_their_own_devices(tmp_path, sandbox_name):
    agent = write_agent(tmp_path / "probe.sh", PROBE)
    suite = write_suite(tmp_path / "suite", [_gpu_task(f"g{i}") for i in range(2)])
    rd, records = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name, jobs=2, gpus="fake:2")
    assert sorted(g for r in records for g in r.budget.gpu_ids) == [0, 1], [r.error for r in records]
    for r in records:
        (gpu,) = r.budget.gpu_ids
        out = next((rd.trial_dir(r.trial_id) / "logs").glob("agent-*.stdout")).read_text()
        assert f"CUDA_VISIBLE_DEVICES={gpu}" in out
        if sandbox_name == "bwrap":
            assert f"nvidia{gpu} " in out and f"nvidia{1 - gpu} " not in out and "nvidiactl" in out
            # the driver's tools and libraries came in with the GPU, and see only the trial's
            assert f"GPU {gpu}: Fake GPU" in out and f"GPU {1 - gpu}:" not in out, out
            assert "fake driver library" in out


def test_driver_files_outside_the_system_folders_are_placed_under_one_folder(tmp_path, monkeypatch):
    from reclaim.budget.driver import DRIVER_INSIDE, driver_files, placement

    (tmp_path / "libcuda.so.1").write_text("x")
    (tmp_path / "nvidia-smi").write_text("#!/bin/sh\n")
    (tmp_path / "unrelated.so").write_text("x")
    monkeypatch.setenv("RECLAIM_DRIVER_DIRS", str(tmp_path))
    found = driver_files()
    assert str(tmp_path / "libcuda.so.1") in found and str(tmp_path / "unrelated.so") not in found
    placed = dict(placement(found + ["/usr/lib/x86_64-linux-gnu/libcuda.so.1"]))
    assert placed[str(tmp_path / "libcuda.so.1")] == f"{DRIVER_INSIDE}/lib/libcuda.so.1"
    assert placed[str(tmp_path / "nvidia-smi")] == f"{DRIVER_INSIDE}/bin/nvidia-smi"
    assert "/usr/lib/x86_64-linux-gnu/libcuda.so.1" not in placed  # bwrap shows the host's /usr already
    # a container shows its image's /usr, not the host's: every driver file goes under the one folder
    in_container = dict(placement(found + ["/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/bin/nvidia-smi"],
                                  shows_host_usr=False))
    assert in_container["/usr/lib/x86_64-linux-gnu/libcuda.so.1"] == f"{DRIVER_INSIDE}/lib/libcuda.so.1"
    assert in_container["/usr/bin/nvidia-smi"] == f"{DRIVER_INSIDE}/bin/nvidia-smi"
    assert in_container[str(tmp_path / "nvidia-smi")] == f"{DRIVER_INSIDE}/bin/nvidia-smi"


@pytest.fixture(scope="module")
def image() -> str:
    if (why := images.available("podman")) is not None:
        pytest.skip(f"podman cannot run containers here: {why}")
    res = subprocess.run([str(ROOT / "scripts" / "build-test-image")], check=False, capture_output=True, text=True,
                         timeout=1800)
    assert res.returncode == 0, res.stderr
    return res.stdout.strip()


@pytest.fixture
def driver_under_usr():
    """A folder under the host's /usr for the fake driver, as a normal host keeps its driver."""
    base = Path("/usr/local/lib")
    if not os.access(base, os.W_OK):
        pytest.skip("the fake driver needs a folder under /usr (run as root)")
    folder = base / f"reclaim-test-driver-{secrets.token_hex(4)}"
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_a_container_trial_gets_the_driver_the_host_keeps_under_usr(tmp_path, image, driver_under_usr):
    """The image's /usr replaces the host's: nvidia-smi and libcuda come in under the driver folder."""
    agent = write_agent(tmp_path / "probe.sh", PROBE + 'command -v nvidia-smi\necho "LD=$LD_LIBRARY_PATH"\n')
    suite = write_suite(tmp_path / "suite", [_gpu_task("g0")])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], "container", image=image,
                           gpus=f"fake:2@{driver_under_usr}", max_retries=0)
    assert rec.error is None and rec.budget.gpu_ids, rec.error
    (gpu,) = rec.budget.gpu_ids
    out = next((rd.trial_dir(rec.trial_id) / "logs").glob("agent-*.stdout")).read_text()
    assert f"GPU {gpu}: Fake GPU" in out and f"GPU {1 - gpu}:" not in out, out
    assert "fake driver library" in out and "/opt/reclaim/driver/bin/nvidia-smi" in out, out
    assert "LD=/opt/reclaim/driver/lib" in out, out


def test_allocation_is_exclusive(tmp_path, sandbox_name):
    agent = write_agent(tmp_path / "probe.sh", PROBE)
    suite = write_suite(tmp_path / "suite", [_gpu_task(f"g{i}") for i in range(3)])
    _, records = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name, jobs=3, gpus="fake:1")
    assert all(r.status.value == "completed" and r.budget.gpu_ids == [0] for r in records)
    spans = sorted((r.started + r.budget.gpu_wait_s, r.finished) for r in records)
    for (_, end), (start, _) in pairwise(spans):  # one holder of GPU 0 at a time
        assert end <= start + 0.05
    assert max(r.budget.gpu_wait_s for r in records) > 0.5  # the others waited for it


def test_metering_adds_up(tmp_path, sandbox_name):
    agent = write_agent(tmp_path / "probe.sh", "sleep 1.5\n")
    suite = write_suite(tmp_path / "suite", [_gpu_task("two", gpus=2)])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name, gpus="fake:2")
    b = rec.budget
    assert b.gpu_ids == [0, 1]
    assert abs(b.gpu_hours_allocated - 2 * b.agent_wall_s / 3600) < 1e-6  # agent_wall_s is rounded to ms
    assert 0.3 * b.gpu_hours_allocated <= b.gpu_hours_busy <= 0.7 * b.gpu_hours_allocated  # fake util 0.5
    assert b.energy_wh > 0
    report = json.loads((rd.trial_dir(rec.trial_id) / "trial.json").read_text())
    assert report["budget"]["gpu_hours_limit"] == 1.0


def test_gpu_hours_set_the_deadline_and_the_budget_file_counts_down(tmp_path, sandbox_name):
    agent = write_agent(tmp_path / "slow.sh", """
cat "$RECLAIM_BUDGET_FILE" > first.json
sleep 2.2
cat "$RECLAIM_BUDGET_FILE" > second.json
echo "deadline $RECLAIM_DEADLINE"
sleep 60
""")
    # 0.002 GPU-hours on 2 GPUs: 3.6 s, far sooner than the 10-minute wall clock
    suite = write_suite(tmp_path / "suite", [_gpu_task("short", gpus=2, gpu_hours=0.002, wall=10)])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name, gpus="fake:2")
    tdir = rd.trial_dir(rec.trial_id)
    assert rec.status.value == "budget_exhausted"
    assert 3.0 < rec.budget.agent_wall_s < 10
    first = json.loads((tdir / "workspace" / "first.json").read_text())
    second = json.loads((tdir / "workspace" / "second.json").read_text())
    assert first["limit_s"] == 3.6 and second["remaining_s"] < first["remaining_s"] - 1.5
    assert second["warning"] is False or second["fraction_used"] >= 0.8
    trace = [json.loads(x) for x in (tdir / "trace.jsonl").read_text().splitlines()]
    assert any(e["kind"] == "budget" and e["what"] == "warning" for e in trace)  # 80 %
    assert any(e["kind"] == "budget" and e["what"] == "wall_exhausted" for e in trace)
    assert "deadline" in next((tdir / "logs").glob("agent-*.stdout")).read_text()


def test_more_gpus_than_exist_is_refused_before_any_trial(tmp_path, sandbox_name):
    agent = write_agent(tmp_path / "x.sh", "touch started\n")
    suite = write_suite(tmp_path / "suite", [_gpu_task("big", gpus=4), _gpu_task("small", gpus=1)])
    _, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name, gpus="fake:2")
    assert rec.task == "small" and rec.outcome.value != "error"  # the whole suite runs what fits, and says so
    with pytest.raises(RunError, match=r"big \(4\) need more GPUs than this machine has \(2 GPU\(s\)\)"):
        run_suite(suite, tmp_path / "runs2", [f"command:{agent}"], sandbox_name, gpus="fake:2", tasks=["big"])
    with pytest.raises(RunError, match=r"no task of this run fits this machine \(no GPUs\)"):
        run_suite(suite, tmp_path / "runs3", [f"command:{agent}"], sandbox_name, gpus="none")



def test_backends(tmp_path):
    fake = FakeBackend(3, tmp_path / "gpus", util=0.25)
    assert [g.index for g in fake.devices()] == [0, 1, 2] and (tmp_path / "gpus" / "nvidia2").exists()
    assert [s.util for s in fake.sample([0, 2])] == [0.25, 0.25]
    assert [g.index for g in discover("1,3").devices()] == [1, 3]
    assert discover("none") is None
    alloc = Allocator(fake.devices())
    a = alloc.acquire(2)
    b = alloc.acquire(1)
    assert {g.index for g in a} | {g.index for g in b} == {0, 1, 2}
    alloc.release(a)
    assert [g.index for g in alloc.acquire(2)] == [0, 1]


def test_a_slurm_job_uses_only_the_gpus_slurm_gave_it():
    from reclaim.runner.slurm import job_gpus

    assert job_gpus("auto", {"SLURM_JOB_GPUS": "4,5"}) == "4,5"
    assert job_gpus(None, {"CUDA_VISIBLE_DEVICES": "2"}) == "2"
    assert job_gpus("fake:2", {"SLURM_GPUS_ON_NODE": "2"}) == "fake:2"  # Slurm named none
    assert job_gpus("auto", {"CUDA_VISIBLE_DEVICES": "GPU-uuid-1"}) == "auto"
    assert [g.index for g in discover(job_gpus(None, {"SLURM_JOB_GPUS": "4,5"})).devices()] == [4, 5]
