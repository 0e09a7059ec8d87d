"""One process at a time on a run folder; a killed holder never locks its run out."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from reclaim.errors import RunError
from reclaim.store.runlock import LOCK, RunInUse, hold

HOLD = "import sys, time; from reclaim.store.runlock import hold\nwith hold(sys.argv[1], 'running'):\n" \
       "    print('held', flush=True); time.sleep(60)\n"


def _holder(path):
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_a_second_process_is_refused_naming_the_holder_and_a_kill_frees_the_run(tmp_path):
    proc = _holder(tmp_path)
    try:
        with pytest.raises(RunInUse) as refused, hold(tmp_path, "resuming"):
            pass
        assert f"reclaim process {proc.pid}" in str(refused.value) and "running it" in str(refused.value)
        assert f"reclaim run --resume {tmp_path}" in str(refused.value)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    with hold(tmp_path, "resuming"):  # the kernel let go of the killed holder's lock: no stale lock
        pass


def test_what_is_written_in_the_lock_file_does_not_lock_or_crash(tmp_path):
    (tmp_path / LOCK).write_text("not json at all")
    with hold(tmp_path, "running"):  # the file's content is only for the message
        proc = subprocess.run([sys.executable, "-c", "import sys; from reclaim.store.runlock import hold\n"
                               "with hold(sys.argv[1], 'x'): pass", str(tmp_path)], capture_output=True, text=True)
        assert proc.returncode != 0 and "is in use" in proc.stderr


def test_the_lock_file_is_not_followed_where_it_is_a_link(tmp_path):
    target = tmp_path / "elsewhere"
    target.write_text("keep")
    run = tmp_path / "run"
    run.mkdir()
    os.symlink(target, run / LOCK)
    with pytest.raises(RunError, match=r"\.lock: the run's lock cannot be taken"), hold(run, "running"):
        pass
    assert target.read_text() == "keep"


def test_a_holder_that_ends_normally_frees_the_run_at_once(tmp_path):
    with hold(tmp_path, "running"):
        pass
    with hold(tmp_path, "running"):  # LOCK_NB: a lock still held would raise RunInUse here
        pass
