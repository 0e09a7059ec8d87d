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


def _line(pid: int, *argv: str) -> bytes:
    args = ", ".join(f'"{a}"' for a in argv)
    return f'{pid} execve("/usr/bin/{argv[0]}", [{args}], 0x7ff /* 3 vars */) = 0\n'.encode()


def test_an_exec_storm_of_one_program_keeps_what_came_after_on_the_record(tmp_path):
    log = tmp_path / "log"
    log.write_bytes(_line(1, "bash", "run.sh") + _line(2, "true") * 50_000
                    + _line(3, "cat", "paper.md") + _line(4, "python3", "-c", "write()"))
    got = execlog.parse(log)
    assert [e.argv for e in got] == [["bash", "run.sh"], ["true"], ["cat", "paper.md"], ["python3", "-c", "write()"]]
    assert got[1].count == 50_000 and got.seen == 50_003 and not got.cut


def test_a_storm_of_distinct_programs_cuts_the_record_and_says_so(tmp_path):
    log = tmp_path / "log"
    log.write_bytes(b"".join(_line(i, "true", str(i)) for i in range(execlog.MAX_EXECS + 5))
                    + _line(9, "cat", "paper.md"))
    got = execlog.parse(log)
    assert got.cut and "distinct programs" in got.why and len(got) == execlog.MAX_EXECS
    assert ["cat", "paper.md"] not in [e.argv for e in got]  # what the cut hides is known to be hidden
