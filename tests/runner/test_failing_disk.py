"""A disk that fails writes with EIO under a run (tests/faults/eio_preload.c, preloaded into the
harness only): the trials it hits end in the harness's error and are run again, no trial is blamed
on its agent, the run reaches its report without a traceback, and every record it kept is whole
and sealed (issue 25)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reclaim.store import RunDir
from reclaim.store.files import checked_record

RECLAIM = [sys.executable, "-m", "reclaim.cli"]
SHIM = Path(__file__).resolve().parents[1] / "faults" / "eio_preload.c"


@pytest.fixture(scope="module")
def eio_preload(tmp_path_factory) -> Path:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("needs a C compiler for the fault-injection library (apt-get install gcc)")
    out = tmp_path_factory.mktemp("shim") / "eio_preload.so"
    subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", str(out), str(SHIM), "-ldl"], check=True)
    return out


def faulty(preload: Path, under: Path, chance: float, seed: int) -> dict[str, str]:
    return {**os.environ, "LD_PRELOAD": str(preload), "RECLAIM_EIO_PREFIX": str(under),
            "RECLAIM_EIO_P": str(chance), "RECLAIM_EIO_SEED": str(seed)}


def test_the_library_fails_writes_under_its_prefix_only(eio_preload, tmp_path):
    code = ("import os, sys\nbad = 0\nfor i in range(200):\n    try:\n"
            "        with open(os.path.join(sys.argv[1], f'f{i}'), 'w') as f: f.write('x')\n"
            "    except OSError as e:\n        bad += e.errno == 5\n"
            "open(sys.argv[2], 'w').write('fine')\nprint(bad, os.environ.get('LD_PRELOAD'))")
    (tmp_path / "hit").mkdir()
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "hit"), str(tmp_path / "spared")],
                         env=faulty(eio_preload, tmp_path / "hit", 0.5, 1), capture_output=True, text=True)
    bad, preload = out.stdout.split()
    assert 50 < int(bad) < 150 and preload == "None"  # about half failed; its children are not faulted
    assert (tmp_path / "spared").read_text() == "fine"


@pytest.mark.parametrize("seed", [1])  # more seeds and rates: benchmarks/faults.py
def test_eio_under_the_run_folder_is_the_harness_s_error_retried_never_the_agent_s(eio_preload, tmp_path,
                                                                                   sandbox_name, seed):
    runs = tmp_path / "runs"
    args = ["run", "--task", "run-ridge-nir", "--task", "retrain-sim-dag", "--agent", "reference", "--agent",
            "nop", "--sandbox", sandbox_name, "--runs-root", str(runs), "--max-retries", "4"]
    first = subprocess.run(RECLAIM + args, capture_output=True, text=True, timeout=600,
                           env=faulty(eio_preload, runs, 0.02, seed))
    out = first.stdout + first.stderr
    assert "Traceback" not in out, out
    (run,) = [p for p in runs.iterdir() if (p / "run.json").is_file()]
    again = subprocess.run(RECLAIM + ["run", "--resume", str(run), "--format", "json"], capture_output=True,
                           text=True, timeout=600)
    assert again.returncode in (0, 1) and "Traceback" not in again.stderr, again.stderr
    rows = {(t["task"], t["agent"]): t["outcome"] for t in json.loads(again.stdout)["trials"]}
    for (_task, agent), outcome in rows.items():  # what the disk did is never the agent's outcome
        assert outcome in (("reproduced", "error") if agent == "reference" else ("not_reproduced", "error")), rows
    for tdir in RunDir(run).trials_dir.iterdir():  # every record kept is whole, and its seal holds
        rec = checked_record(tdir)
        assert rec is not None and rec.done, tdir
        assert "changed after the trial ended" not in (rec.error or ""), rec.error


def test_a_failing_disk_stops_the_re_execution_copy_never_leaves_a_file_half_copied(eio_preload, tmp_path):
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "collect.py").write_text("print('the agent's script')\n" * 100)
    code = ("import sys\nfrom pathlib import Path\nfrom reclaim.sandbox import untrusted_copy\n"
            "try:\n    r = untrusted_copy.copy_tree(Path(sys.argv[1]), Path(sys.argv[2]), exclude=set())\n"
            "    print('copied', r.copied, 'skipped', r.skipped)\nexcept OSError as e:\n    print('stopped', e.errno)")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "ws"), str(tmp_path / "copy")],
                         env=faulty(eio_preload, tmp_path / "copy", 1.0, 1), capture_output=True, text=True)
    assert out.stdout.split() == ["stopped", "5"], out.stdout + out.stderr  # not 'skipped': a harness error
