"""The command audit: what a black-box agent's shells ran, with exit codes, in the trace."""

from __future__ import annotations

from conftest import run_suite, task_yaml, write_agent, write_suite
from reclaim.runner.audit import parse
from reclaim.trace import ShellCommand, read_trace


def test_parse_pairs_commands_with_their_exit_codes():
    log = ("1.0\t10\t0\techo\\ hi\n1.1\t10\t0\tfalse\n1.2\t11\t0\tSls\x1e-l\n1.3\t10\t1\tls\\ /x\n"
           "1.4\t11\t2\t__exit__\n1.5\t10\t2\ttrap\\ __reclaim_audit\\ DEBUG\n1.6\t10\t2\t__exit__\n")
    assert parse(log) == [(1.0, 10, "echo hi", 0), (1.1, 10, "false", 1), (1.2, 11, "ls\n-l", 2),
                          (1.3, 10, "ls /x", 2)]


def test_black_box_commands_are_audited(tmp_path, sandbox_name):
    agent = write_agent(tmp_path / "blackbox.sh", """
echo step one
false || true
bash -c 'echo nested; exit 3' || true
python3 -c "import subprocess; subprocess.run('echo via sh && exit 4', shell=True)"
""")
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name)
    shell = [e for e in read_trace(rd.trial_dir(rec.trial_id) / "trace.jsonl") if isinstance(e, ShellCommand)]
    seen = {(e.cmd, e.exit_code) for e in shell}
    assert ("echo step one", 0) in seen and ("false", 1) in seen
    assert ("echo nested", 0) in seen and ("exit 3", 3) in seen
    if sandbox_name == "bwrap":  # /bin/sh is audited through a wrapper where the sandbox can place one;
        assert ("echo via sh && exit 4", None) in seen  # it becomes dash, so its exit code is the caller's
