"""Limits from the budget: a trial that allocates far beyond its memory is stopped by the limit."""

from __future__ import annotations

from conftest import run_suite, task_yaml, write_agent, write_suite
from reclaim.budget.limits import Limits


def test_memory_hog_is_stopped_by_the_limit_not_the_machine(tmp_path, sandbox_name):
    agent = write_agent(tmp_path / "hog.sh", """
echo before
python3 -c "x = bytearray(3 * 1024**3); print('allocated 3 GiB')"
echo "python exited $?"
""")
    suite = write_suite(tmp_path / "suite", [task_yaml("hog", "run", **{"budget.memory_gb": 0.25})])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name)
    out = next((rd.trial_dir(rec.trial_id) / "logs").glob("agent-*.stdout")).read_text()
    assert "before" in out and "allocated 3 GiB" not in out
    assert "python exited 0" not in out  # killed (137) or MemoryError (1), never through
    assert any(item.startswith("memory") for item in rec.limits_enforced), rec.limits_enforced
    if any("cgroup" in item for item in rec.limits_enforced):
        assert any("memory limit" in w for w in rec.warnings)
        assert rec.budget.agent_peak_memory_mb <= 0.25 * 1024 + 1


def test_limits_meter_cpu_and_clean_up(tmp_path):
    lim = Limits(memory_mb=512, cpus=1).start()
    assert lim.enforced
    import subprocess

    subprocess.run(lim.wrap(["python3", "-c", "sum(i * i for i in range(3_000_000))"]), check=True,
                   env={"PATH": "/usr/bin:/bin", **lim.env})
    u = lim.usage()
    if u.cpu_s is not None:
        assert u.cpu_s > 0.05
    lim.stop()
