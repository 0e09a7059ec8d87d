"""The exec record's parser, on strace's own output forms."""

from __future__ import annotations

from reclaim.sandbox import execlog

LOG = b"""100 execve("/usr/bin/setpriv", ["/usr/bin/setpriv", "--reuid=5", "--"], 0x7ff /* 3 vars */) = 0
100 execve("/usr/bin/bash", ["bash", "-c", "echo \\"hi\\"\\n"], 0x7ff /* 3 vars */) = 0
101 execve("/nope/python3", ["python3"], 0x7ff /* 3 vars */) = -1 ENOENT (No such file or directory)
101 execve("/usr/bin/python3", ["python3", "-c", "import os"], 0x7ff /* 3 vars */ <unfinished ...>
102 execve("/usr/bin/caf\\351", ["caf\\351"], 0x7ff /* 3 vars */) = 0
101 <... execve resumed>) = 0
"""


def test_successful_execs_in_order_without_the_harness_drop(tmp_path):
    log = tmp_path / "log"
    log.write_bytes(LOG)
    got = execlog.parse(log, drop=["/usr/bin/setpriv", "--reuid=5", "--"])
    assert [(e.pid, e.path) for e in got] == [(100, "/usr/bin/bash"), (102, "/usr/bin/caf\\xe9"),
                                              (101, "/usr/bin/python3")]
    assert got[0].argv == ["bash", "-c", 'echo "hi"\n']


def test_outside_mode_drops_the_launcher_process(tmp_path):
    log = tmp_path / "log"
    log.write_bytes(LOG)
    assert [e.pid for e in execlog.parse(log, outside=True)] == [102, 101]
