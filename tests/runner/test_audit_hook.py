"""The bash audit hook must not change what an honest script does, only record it."""

from __future__ import annotations

import os
import subprocess

from reclaim.runner import audit

SCRIPT = """set -e
false || true
[ -f /nonexistent ] && echo never
! true
false && echo never
echo reached
"""


def test_set_e_scripts_behave_the_same_with_the_hook(tmp_path):
    (tmp_path / "s.sh").write_text(SCRIPT)
    log = tmp_path / "audit.tsv"
    plain = subprocess.run(["bash", str(tmp_path / "s.sh")], capture_output=True, text=True)
    env = os.environ | {"BASH_ENV": str(audit.HOOK), "RECLAIM_AUDIT_LOG": str(log)}
    hooked = subprocess.run(["bash", str(tmp_path / "s.sh")], capture_output=True, text=True, env=env)
    assert (hooked.returncode, hooked.stdout) == (plain.returncode, plain.stdout) == (0, "reached\n")
    rows = audit.parse(log.read_text())
    assert ("false", 1) in [(cmd, code) for _, _, cmd, code in rows]  # exit codes still recorded
