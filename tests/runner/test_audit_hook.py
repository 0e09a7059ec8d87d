"""The audit hooks must not change what an honest script does, only record it.

Each script runs twice, plainly and under the hook (bash: BASH_ENV=audit.sh; sh: the /bin/sh
wrapper), and exit status, stdout and stderr must be the same. What a script can still tell apart,
by design, and so is not compared: the hook's traps in `trap -p`, its __reclaim_* variables in
`set`/`compgen -v`, the trap text echoed under `set -v`, and hook lines traced to a BASH_XTRACEFD
other than stderr.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from reclaim.runner import audit

CASES = {
    "set -e and lists": ("set -e\nfalse || true\n[ -f /nonexistent ] && echo never\n! true\n"
                         "false && echo never\necho reached\n"),
    "set -e and a missing settings file": "set -e\n[ -f local_settings.sh ] && source local_settings.sh\necho ok\n",
    "set -e in conditions": "set -e\nif false; then :; fi\nwhile false; do :; done\n! false\necho ok\n",
    "set -e ends a function": "set -e\nf(){ false; echo no; }\nf || echo caught\nf\necho not reached\n",
    "set -e and a function ending in &&": "set -e\nf(){ [ 1 = 2 ] && echo x; }\nf\necho not reached\n",
    "set -e in a subshell": "set -e\n( false; echo no )\necho not reached\n",
    "inherit_errexit": "set -e\nshopt -s inherit_errexit\nx=$(false; echo hi)\necho \"[$x]\"\n",
    "pipefail": "set -eo pipefail\ntrue | false | true\necho not reached\n",
    "PIPESTATUS and $?": "true | false | true\necho ${PIPESTATUS[@]}\nfalse\necho $?\n",
    "set -E with an ERR trap": ("set -E\nn=0\ntrap 'n=$((n+1)); echo ERR $LINENO $BASH_COMMAND' ERR\nf(){ false; }\n"
                                "f\nfalse || true\n( false )\necho n=$n\n"),
    "own DEBUG trap": "n=0\ntrap 'n=$((n+1))' DEBUG\necho a\necho b\ntrap - DEBUG\necho n=$n\n",
    "own EXIT trap": "trap 'echo bye $?' EXIT\nfalse\n",
    "exit status": "echo out; echo err >&2\nexit 7\n",
    "set -T with a RETURN trap": "set -T\ntrap 'echo return from ${FUNCNAME[0]}' RETURN\nf(){ :; }\nf\n",
    "$_": "echo a b c >/dev/null\necho $_\n: x y\necho \"$_\"\n",
    "LINENO, FUNCNAME, BASH_LINENO": "echo $LINENO\nf(){ echo ${FUNCNAME[0]} $LINENO ${BASH_LINENO[0]}; }\nf\n",
    "set -u": "set -u\necho ${x:-d}\necho $y\necho no\n",
    "set -u with the hook's variables unset": ("set -eu\nunset RECLAIM_AUDIT_LOG EPOCHREALTIME\n"
                                               "echo a\nfalse || echo b\n"),
    "set -x": "set -x\necho a\nb=1\nf(){ echo in; }\nf\nset +x\necho c\n",
    "exec": "exec echo replaced\necho no\n",
    "background jobs": "sleep 0.05 &\nwait $!\necho $?\n( exit 3 ) &\nwait $!\necho $?\n",
    "options": "echo $-\nset -o | grep -E 'errtrace|functrace|xtrace|errexit'\nshopt extdebug\n",
    "functions": "declare -F\nf(){ echo in; }\nset -o functrace\nf\ndeclare -F\n",
    "extdebug": "shopt -s extdebug\nf(){ echo in; }\nf\necho ok\n",
    "a signal trap": "trap 'echo int' INT\nkill -INT $$\necho after\n",
    "a heredoc": "cat <<X\nline1\n\tline2\nX\n",
}


def run(script: str, path, env: dict) -> tuple[int, str, str]:
    path.write_text(script)
    r = subprocess.run(["bash", str(path)], capture_output=True, text=True, env=env, cwd=path.parent, timeout=30)
    return r.returncode, r.stdout, r.stderr


def plain_env() -> dict:
    return {k: v for k, v in os.environ.items() if k not in ("BASH_ENV", "RECLAIM_AUDIT_LOG")}


@pytest.mark.parametrize("name", CASES)
def test_bash_scripts_behave_the_same_with_the_hook(tmp_path, name):
    log = tmp_path / "audit.tsv"
    plain = run(CASES[name], tmp_path / "s.sh", plain_env())
    hooked = run(CASES[name], tmp_path / "s.sh",
                 plain_env() | {"BASH_ENV": str(audit.HOOK), "RECLAIM_AUDIT_LOG": str(log)})
    assert hooked == plain
    assert audit.parse(log.read_text())  # and it did record


def test_an_unwritable_log_changes_nothing(tmp_path):
    script = "set -e\necho a\nfalse || true\necho b\n"
    plain = run(script, tmp_path / "s.sh", plain_env())
    env = plain_env() | {"BASH_ENV": str(audit.HOOK), "RECLAIM_AUDIT_LOG": "/proc/no/such/log"}
    assert run(script, tmp_path / "s.sh", env) == plain == (0, "a\nb\n", "")


def test_rows_keep_commands_whole_with_their_exit_codes(tmp_path):
    log = tmp_path / "audit.tsv"
    script = "cat <<X >/dev/null\nline1\n\tline2\nX\nfalse\necho \"a\tb\"\n"
    run(script, tmp_path / "s.sh", plain_env() | {"BASH_ENV": str(audit.HOOK), "RECLAIM_AUDIT_LOG": str(log)})
    rows = [(cmd, code) for _, _, cmd, code in audit.parse(log.read_text())]
    assert rows[:3] == [("cat <<X > /dev/null\nline1\n\tline2\nX\n", 0), ("false", 1), ("echo \"a\tb\"", 0)]


@pytest.fixture
def sh_wrapper(tmp_path):
    """The /bin/sh wrapper as the sandbox binds it, with dash where the sandbox puts it."""
    if not audit.DASH.is_file():
        pytest.skip("no dash")
    wrapper = tmp_path / "sh"
    wrapper.write_text(audit.SH_WRAPPER.read_text().replace("/run/reclaim-dash", str(audit.DASH)))
    wrapper.chmod(0o755)
    return wrapper


SH_CASES = ["set -e; false || true; [ -f /x ] && echo never; echo ok", "echo out; echo err >&2; exit 5",
            "trap 'echo bye' EXIT; false", "cd /; pwd; echo $#"]


@pytest.mark.parametrize("cmd", SH_CASES)
def test_sh_commands_behave_the_same_through_the_wrapper(tmp_path, sh_wrapper, cmd):
    log = tmp_path / "audit.tsv"
    plain = subprocess.run([str(audit.DASH), "-c", cmd], capture_output=True, text=True, env=plain_env())
    wrapped = subprocess.run([str(sh_wrapper), "-c", cmd], capture_output=True, text=True,
                             env=plain_env() | {"RECLAIM_AUDIT_LOG": str(log)})
    assert (wrapped.returncode, wrapped.stdout, wrapped.stderr) == (plain.returncode, plain.stdout, plain.stderr)
    assert [c for _, _, c, _ in audit.parse(log.read_text())] == [cmd]


def test_the_wrapped_command_is_the_process_its_parent_started(tmp_path, sh_wrapper):
    """The wrapper becomes dash: the command's $$ is the child the parent holds, so a subprocess
    timeout's kill reaches the command, not a wrapper that would leave it running."""
    env = plain_env() | {"RECLAIM_AUDIT_LOG": str(tmp_path / "audit.tsv")}
    p = subprocess.Popen([str(sh_wrapper), "-c", "echo $$; exec sleep 30"], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert int(p.stdout.readline()) == p.pid
    finally:
        p.kill()
        p.wait()
    assert p.returncode == -9
    assert subprocess.run([str(sh_wrapper), "-c", "echo $0"], capture_output=True, text=True,
                          env=env).stdout == f"{sh_wrapper}\n"  # the name it was called by
    assert shutil.which("bash") and sys.executable
