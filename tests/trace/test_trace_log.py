"""The trace survives a crash: every complete event is readable, a torn last line is skipped."""

from __future__ import annotations

from reclaim.trace import Note, TraceWriter, read_trace


def test_events_are_numbered_and_readable(tmp_path):
    path = tmp_path / "trace.jsonl"
    with TraceWriter(path) as tw:
        a = tw.emit(Note, phase="setup", level="info", message="one")
        b = tw.emit(Note, phase="agent", level="warning", message="two")
    assert (a.id, b.id) == (1, 2)
    assert [e.message for e in read_trace(path)] == ["one", "two"]


def test_a_torn_last_line_is_skipped_and_ids_continue(tmp_path):
    path = tmp_path / "trace.jsonl"
    with TraceWriter(path) as tw:
        tw.emit(Note, phase="setup", level="info", message="kept")
    with open(path, "a") as fh:
        fh.write('{"id": 2, "ts": 1, "phase": "ag')  # the process died mid-write
    assert [e.message for e in read_trace(path)] == ["kept"]


def test_written_events_are_on_disk_before_close(tmp_path):
    path = tmp_path / "trace.jsonl"
    tw = TraceWriter(path)
    tw.emit(Note, phase="setup", level="info", message="flushed")
    assert "flushed" in path.read_text()  # another process reading now sees it
    tw.close()
