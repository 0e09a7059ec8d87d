"""Shared fixtures: small real suites written on the fly, and the sandbox the machine has."""

from __future__ import annotations

import base64
import copy
import hashlib
import os
import shutil
import zipfile
from pathlib import Path

import pytest
import yaml

from reclaim.sandbox import default_backend

# Prepared environments (a venv with the demo suite's numpy, ...) are built once per machine, not per
# test: the cache is keyed by what was declared, so sharing it changes no result.
os.environ.setdefault("RECLAIM_ENVS_CACHE", f"/var/tmp/reclaim-test-envs-{os.getuid()}")
os.environ.setdefault("RECLAIM_MATERIALS_CACHE", f"/var/tmp/reclaim-test-materials-{os.getuid()}")
# Runs are kept in one root per user (store/home.py); a test never writes into the real user's home.
os.environ["XDG_DATA_HOME"] = f"/var/tmp/reclaim-test-data-{os.getuid()}"
os.environ.pop("RECLAIM_HOME", None)


@pytest.fixture(autouse=True)
def runs_home(tmp_path, monkeypatch):
    """Each test's runs root is its own tmp_path/runs ($RECLAIM_HOME = tmp_path): what a test starts,
    from any folder, is kept there and found by id there."""
    monkeypatch.setenv("RECLAIM_HOME", str(tmp_path))
    return tmp_path / "runs"

MEAN_PY = """\
import json, sys
vals = [float(x) for x in open('data/values.csv').read().split()]
print('mean', sum(vals) / len(vals))
json.dump({'mean_value': sum(vals) / len(vals)}, open('results.json', 'w'))
"""
VALUES = "1.5 2.25 3.125 4.0625 5.03125\n"  # mean 3.19375


def task_yaml(task_id: str, level: str = "reimplement", **overrides) -> dict:
    base = {
        "id": task_id,
        "paper": {"title": f"On the mean of {task_id}", "venue": "test", "year": 2025, "text": "paper.md"},
        "level": level,
        "materials": {"data": {"path": "data"}},
        "target": {"claim": "The mean is 3.194.", "metric": "mean_value", "value": 3.194,
                   "direction": "match", "where": "Table 1"},
        "criteria": {"abs_tol": 0.01},
        "budget": {"wall_minutes": 1},
        "reference": {"path": "reference", "entrypoint": "reproduce.sh"},
    }
    if level in ("run", "retrain"):
        base["materials"]["code"] = {"path": "code"}
    if level == "run":
        base["materials"]["weights"] = {"path": "weights"}
    for key, value in overrides.items():
        node = base
        parts = key.split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        if value is DELETE:
            node.pop(parts[-1], None)
        else:
            node[parts[-1]] = copy.deepcopy(value)
    return base


DELETE = object()


def write_task(suite: Path, spec: dict, *, reference: str | None = None) -> Path:
    d = suite / spec["id"]
    (d / "data").mkdir(parents=True, exist_ok=True)
    (d / "data" / "values.csv").write_text(VALUES)
    (d / "code").mkdir(exist_ok=True)
    (d / "code" / "mean.py").write_text(MEAN_PY)
    (d / "weights").mkdir(exist_ok=True)
    (d / "weights" / "w.txt").write_text("1.0\n")
    (d / "paper.md").write_text("# A paper\n\nWe find the mean is 3.194 (Table 1).\n")
    (d / "reference").mkdir(exist_ok=True)
    (d / "reference" / "ref_mean.py").write_text(MEAN_PY)
    (d / "reference" / "reproduce.sh").write_text(reference or "set -e\npython3 ref_mean.py\n")
    (d / "task.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    return d


def write_suite(root: Path, specs: list[dict], name: str = "mini", **refs: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "suite.yaml").write_text(yaml.safe_dump(
        {"name": name, "version": "1", "description": "test suite", "tasks": [s["id"] for s in specs]}))
    for s in specs:
        write_task(root, s, reference=refs.get(s["id"].replace("-", "_")))
    return root


@pytest.fixture
def mini_suite(tmp_path) -> Path:
    """Three tiny tasks, one per level, whose references compute a mean in a second."""
    return write_suite(tmp_path / "suite", [
        task_yaml("mean-run", "run"), task_yaml("mean-retrain", "retrain"),
        task_yaml("mean-reimpl", "reimplement"),
    ])


@pytest.fixture(scope="session")
def sandbox_name() -> str:
    """bwrap where it works (CI installs it), else process."""
    return default_backend()


@pytest.fixture
def bwrap_only(sandbox_name):
    if sandbox_name != "bwrap" or shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not usable on this machine (make test installs it)")


def run_suite(suite: Path, runs_root: Path, agents: list[str], sandbox: str, **opts):
    """Plan and execute a run; return (run dir, records)."""
    from reclaim.runner.run import RunOptions, execute, plan_run

    rd = plan_run(RunOptions(suite=suite, agents=agents, sandbox=sandbox, runs_root=runs_root, **opts))
    return rd, execute(rd)


def make_wheel(folder: Path, name: str, version: str, files: dict[str, str | bytes]) -> Path:
    """A real wheel (pure Python, a valid RECORD), built offline: ``files`` maps paths to content."""
    folder.mkdir(parents=True, exist_ok=True)
    dist = f"{name}-{version}.dist-info"
    content = {p: b if isinstance(b, bytes) else b.encode() for p, b in files.items()}
    content[f"{dist}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()
    content[f"{dist}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    digest = {p: base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode() for p, b in content.items()}
    record = [f"{p},sha256={digest[p]},{len(b)}" for p, b in content.items()]
    content[f"{dist}/RECORD"] = ("\n".join([*record, f"{dist}/RECORD,,"]) + "\n").encode()
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        for p, b in content.items():
            z.writestr(p, b)
    return wheel


def at_a_terminal() -> None:
    """preexec_fn for a harness a test interrupts as a user would: SIGINT and SIGHUP at their defaults. A
    test suite started in the background (`cmd &` in a script, nohup) ignores them, every child inherits
    that, and Python does not turn an ignored SIGINT into KeyboardInterrupt: the Ctrl-C would be lost."""
    import signal

    for sig in (signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def write_agent(path: Path, body: str) -> Path:
    """A command agent: a bash script run inside the sandbox."""
    path.write_text("#!/bin/bash\n" + body)
    path.chmod(0o755)
    return path


SLOW_MODULES = {  # modules whose tests run whole trials or suites (a sandbox, a container, Slurm, a browser)
    "security/test_attacks.py", "suites/test_demo_suite.py", "runner/test_container_suite.py", "runner/test_slurm.py",
    "runner/test_resume.py", "sandbox/test_container.py", "sandbox/test_isolation.py", "report/test_html_report.py",
    "judge/test_dependence.py", "judge/test_scope_judge.py", "judge/test_rules_judge.py", "judge/test_multi_metric.py",
    "judge/test_evaluate_mode.py", "judge/test_released_wheel.py", "judge/test_evidence.py", "cli/test_run_cli.py",
    "cli/test_runs_cli.py", "cli/test_validate.py", "agents/test_mini_swe_agent.py", "agents/test_llm_agent.py",
    "agents/test_external_adapters.py", "agents/test_real_agents.py", "gateway/test_sandbox_access.py",
    "agents/test_real_model_agent.py", "judge/test_real_model_judge.py",
    "runner/test_network.py",
}
TRIAL_FIXTURES = {"sandbox_name", "bwrap_only", "image", "demo_run", "judged", "mini_suite"}


def pytest_collection_modifyitems(config, items):
    """`-m 'not slow'` leaves out what runs whole trials, for a quick round; CI runs everything."""
    root = Path(__file__).resolve().parent
    for item in items:
        rel = Path(str(item.fspath)).resolve().relative_to(root).as_posix()
        if rel in SLOW_MODULES or TRIAL_FIXTURES & set(item.fixturenames):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def local_model():
    """A real small model served on this machine (tests/local_model.py), one for the session."""
    from local_model import LocalModel, install

    model = LocalModel(install())
    yield model
    model.close()
