"""Records are made durable in the background, in the order they were last written, and what is
still pending when the process ends is synced before it exits."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

from reclaim import durable


def test_synced_in_the_order_last_written_and_flushed_on_demand():
    done: list[str] = []
    s = durable.Syncer()
    for key in ("trial.json", "trace.jsonl", "verdict.json", "trial.json"):  # trial.json rewritten last
        s.mark(key, lambda k=key: done.append(k))
    s.flush()
    assert done == ["trace.jsonl", "verdict.json", "trial.json"]
    s.flush()
    assert done == ["trace.jsonl", "verdict.json", "trial.json"]  # each once


def test_the_background_thread_syncs_within_its_interval(tmp_path):
    f = tmp_path / "record.json"
    f.write_text("{}")
    done: list[str] = []
    s = durable.Syncer()
    s.mark("record", lambda: (durable.fsync_path(f), done.append("record")))
    deadline = time.monotonic() + 30
    while not done and time.monotonic() < deadline:
        time.sleep(0.01)
    assert done == ["record"]


def test_pending_syncs_run_before_the_process_exits(tmp_path):
    out = tmp_path / "synced"
    code = textwrap.dedent(f"""
        from pathlib import Path
        from reclaim import durable
        durable.syncer.mark("x", lambda: Path({str(out)!r}).write_text("synced"))
    """)  # exits at once, long before the background pass
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    assert out.read_text() == "synced"


def test_a_file_gone_before_its_sync_is_no_error(tmp_path):
    f = tmp_path / "gone.json"
    f.write_text("{}")
    durable.sync_later(f)
    f.unlink()
    durable.syncer.flush()
