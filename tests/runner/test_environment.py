"""A task's declared environment: prepared once, given to the agent and the re-execution, recorded."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import make_wheel, run_suite, task_yaml, write_agent, write_suite
from reclaim.materials.environment import DONE, prepare
from reclaim.spec import load_suite

PROBE = "reclaimprobe"
REPRODUCE = f"""set -e
python3 - <<'EOF'
import json, {PROBE}
vals = [float(x) for x in open('data/values.csv').read().split()]
json.dump({{'mean_value': {PROBE}.mean(vals)}}, open('results.json', 'w'))
EOF
"""


def make_probe(folder: Path, version: str = "1.0") -> Path:
    """A real wheel of a package that reclaim's own environment lacks, built offline."""
    return make_wheel(folder, PROBE, version, {f"{PROBE}/__init__.py": "def mean(xs):\n    return sum(xs) / len(xs)\n"})


@pytest.fixture
def probe_index(tmp_path, monkeypatch):
    wheel = make_probe(tmp_path / "wheels")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheel.parent))
    return wheel


def _suite(tmp_path: Path, environment: dict | None):
    spec = task_yaml("probe-env", "retrain")
    if environment is not None:
        spec["environment"] = environment
    return write_suite(tmp_path / "suite", [spec], probe_env=REPRODUCE)


def test_a_declared_environment_gives_the_reference_what_reclaims_own_lacks(tmp_path, probe_index, sandbox_name):
    with pytest.raises(ImportError):
        __import__(PROBE)
    suite = _suite(tmp_path, {"packages": [f"{PROBE}==1.0"]})
    rd, (rec,) = run_suite(suite, tmp_path / "runs", ["reference"], sandbox_name)
    assert rec.outcome.value == "reproduced", rec.error
    tdir = rd.trial_dir(rec.trial_id)
    given = json.loads((tdir / "records" / "environment.json").read_text())
    assert f"{PROBE}==1.0" in given["packages"] and given["declared"] == {"packages": [f"{PROBE}==1.0"]}
    assert rec.environment == given["key"] and "records/environment.json" in rec.records
    notes = [json.loads(line) for line in (tdir / "trace.jsonl").read_text().splitlines()]
    assert any(e["kind"] == "note" and f"given: {PROBE}==1.0" in e.get("message", "") for e in notes)


def test_without_it_the_same_reference_fails_and_the_record_says_why(tmp_path, probe_index, sandbox_name):
    suite = _suite(tmp_path, None)
    rd, (rec,) = run_suite(suite, tmp_path / "runs", ["reference"], sandbox_name)
    assert rec.outcome.value == "not_reproduced"
    tdir = rd.trial_dir(rec.trial_id)
    err = "".join(p.read_text() for p in (tdir / "reexec" / "logs").glob("*.stderr"))
    assert f"No module named '{PROBE}'" in err


def test_prepared_once_and_shared_by_every_trial(tmp_path, probe_index, sandbox_name):
    suite = _suite(tmp_path, {"packages": [f"{PROBE}==1.0"]})
    task = load_suite(suite).tasks[0]
    first, again = prepare(task), prepare(task)
    assert again.cached and again.path == first.path and again.prepared_s == 0.0
    assert not (Path(first.path) / "lib").stat().st_mode & 0o022  # nobody may write into it


def test_the_agent_installs_into_its_own_environment_and_the_reexec_keeps_it(tmp_path, probe_index, sandbox_name):
    """No declaration: the agent pip-installs the package itself; reproduce.sh need not again."""
    agent = write_agent(tmp_path / "installer.sh", f"""set -e
pip install --no-index --find-links data/wheels {PROBE}==1.0
cat > reproduce.sh <<'EOS'
{REPRODUCE}
EOS
bash reproduce.sh
""")
    suite = _suite(tmp_path, None)
    (suite / "probe-env" / "data" / "wheels").mkdir()  # reaches the sandbox as a download would: a file
    shutil.copy(probe_index, suite / "probe-env" / "data" / "wheels")
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name)
    tdir = rd.trial_dir(rec.trial_id)
    assert list((tdir / "venv").glob(f"lib/python3*/site-packages/{PROBE}/__init__.py"))
    rx = json.loads((tdir / "reexec" / "reexec.json").read_text())
    assert rx["exit_code"] == 0, rx
    assert rec.outcome.value == "reproduced", rec.error


def test_an_environment_that_cannot_be_prepared_is_the_harness_s_error_not_the_agent_s(tmp_path, probe_index,
                                                                                       sandbox_name):
    suite = _suite(tmp_path, {"packages": [f"{PROBE}==9.9"]})
    _, (rec,) = run_suite(suite, tmp_path / "runs", ["reference"], sandbox_name)
    assert rec.status.value == "error" and rec.outcome.value == "error"
    assert "task.yaml" in rec.error and "reclaimprobe" in rec.error


def test_a_python_version_the_host_lacks_is_a_clear_error(tmp_path, sandbox_name):
    suite = _suite(tmp_path, {"python": "3.99"})
    _, (rec,) = run_suite(suite, tmp_path / "runs", ["reference"], sandbox_name)
    assert rec.outcome.value == "error" and "environment.python: no Python 3.99" in rec.error


def _have_python(version: str) -> bool:
    from reclaim.materials.environment import _version_of, candidates
    return any(_version_of(p).startswith(version + ".") for p in candidates())


@pytest.mark.parametrize("version", ["3.12"])
def test_a_declared_python_version_is_the_python_the_sandbox_runs(tmp_path, sandbox_name, version):
    """pyenv's interpreters live under the host's home (/root, 0700): the sandbox must still run them."""
    if not _have_python(version):
        pytest.skip(f"no Python {version} on this host")
    agent = write_agent(tmp_path / "versions.sh", """set -e
python3 --version
python --version
python3 -c 'import sys; print("prefix", sys.base_prefix)'
pip --version
""")
    suite = write_suite(tmp_path / "suite", [task_yaml("py-version", "retrain", environment={"python": version})])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name)
    tdir = rd.trial_dir(rec.trial_id)
    out = "".join(p.read_text() for p in sorted((tdir / "logs").glob("agent-*.std*")))
    assert rec.error is None, rec.error
    given = json.loads((tdir / "records" / "environment.json").read_text())
    assert given["python_version"].startswith(version + ".") and given["declared"] == {"python": version}
    lines = out.splitlines()
    assert lines[:2] == [f"Python {given['python_version']}"] * 2, out
    assert f"(python {version})" in out, out  # pip runs with it too


def test_a_requirements_file_gives_the_reference_its_package(tmp_path, probe_index, sandbox_name):
    suite = _suite(tmp_path, {"requirements": "requirements.txt"})
    (suite / "probe-env" / "requirements.txt").write_text(f"{PROBE}==1.0\n")
    rd, (rec,) = run_suite(suite, tmp_path / "runs", ["reference"], sandbox_name)
    assert rec.outcome.value == "reproduced", rec.error
    given = json.loads((rd.trial_dir(rec.trial_id) / "records" / "environment.json").read_text())
    assert f"{PROBE}==1.0" in given["packages"] and given["declared"] == {"requirements": "requirements.txt"}


def test_a_system_package_the_host_lacks_is_a_clear_error(tmp_path, sandbox_name):
    suite = _suite(tmp_path, {"system": ["bash", "reclaim-no-such-package"]})
    _, (rec,) = run_suite(suite, tmp_path / "runs", ["reference"], sandbox_name)
    assert rec.outcome.value == "error" and "task.yaml" in rec.error, rec.error
    assert "environment.system: reclaim-no-such-package not installed" in rec.error and "bash" not in rec.error
    assert "--sandbox container" in rec.error


def test_host_python_gives_reclaims_own_packages_and_says_so(tmp_path, sandbox_name):
    agent = write_agent(tmp_path / "host.sh", "python3 -c 'import pydantic; print(\"PYDANTIC\", pydantic.VERSION)'\n")
    suite = _suite(tmp_path, {"host_python": True})
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name)
    tdir = rd.trial_dir(rec.trial_id)
    out = "".join(p.read_text() for p in sorted((tdir / "logs").glob("agent-*.std*")))
    import pydantic
    assert f"PYDANTIC {pydantic.VERSION}" in out, out
    assert json.loads((tdir / "records" / "environment.json").read_text())["host_python"] is True


PREPARE = """
import json, sys
from pathlib import Path
from reclaim.materials.environment import DONE, prepare
from reclaim.spec import load_suite
env = prepare(load_suite(Path(sys.argv[1])).tasks[0], Path(sys.argv[2]))
print(json.dumps({"cached": env.cached, "path": env.path}))
"""


def test_processes_preparing_one_environment_at_once_build_it_once(tmp_path, probe_index):
    suite = _suite(tmp_path, {"packages": [f"{PROBE}==1.0"]})
    procs = [subprocess.Popen([sys.executable, "-c", PREPARE, str(suite), str(tmp_path / "envs")],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outs]
    got = [json.loads(out) for out, _ in outs]
    assert sorted(g["cached"] for g in got) == [False, True, True, True]  # built once, by one of them
    assert len({g["path"] for g in got}) == 1
    python = Path(got[0]["path"]) / "bin" / "python"
    assert subprocess.run([str(python), "-c", f"import {PROBE}"]).returncode == 0


def test_a_build_killed_half_way_is_built_again_never_used(tmp_path, probe_index):
    suite = _suite(tmp_path, {"packages": [f"{PROBE}==1.0"]})
    envs = tmp_path / "envs"
    proc = subprocess.Popen([sys.executable, "-c", PREPARE, str(suite), str(envs)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and not list(envs.glob("*/bin/python")):  # the venv made, pip not done
        time.sleep(0.01)
    proc.kill()
    proc.wait()
    (half,) = [p for p in envs.iterdir() if p.is_dir()]
    assert not (half / DONE).exists(), "the build finished before it could be killed"
    env = prepare(load_suite(suite).tasks[0], envs)
    assert not env.cached and env.path == str(half)
    assert subprocess.run([str(half / "bin" / "python"), "-c", f"import {PROBE}"]).returncode == 0


def test_a_torn_record_of_a_build_is_built_again_not_a_crash(tmp_path, probe_index):
    suite = _suite(tmp_path, {"packages": [f"{PROBE}==1.0"]})
    first = prepare(load_suite(suite).tasks[0], tmp_path / "envs")
    done = Path(first.path) / DONE
    done.write_text(done.read_text()[:40])  # as a crash mid-write on a filesystem without rename would leave it
    again = prepare(load_suite(suite).tasks[0], tmp_path / "envs")
    assert not again.cached and again.path == first.path and (Path(first.path) / DONE).is_file()
