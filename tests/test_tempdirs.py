"""What a killed reclaim leaves in the temporary folder (its gateway's sockets, its certificate
authority's key, scratch) names its owner, and the next sweep removes it once the owner is gone."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from reclaim.tempdirs import owned_tempdir, owner_of, sweep_tempdirs


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_a_folder_whose_owner_is_gone_is_swept_one_whose_owner_lives_is_kept(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    mine = owned_tempdir("ca")
    assert owner_of(mine.name) == os.getpid() and oct(mine.stat().st_mode & 0o777) == "0o700"
    dead = tmp_path / f"reclaim-ca-{_dead_pid()}-abc123"
    (dead / "sub").mkdir(parents=True)
    (dead / "leaf.key").write_text("secret")
    os.symlink("/etc", dead / "sub" / "escape")  # removed as a link, never followed
    living = tmp_path / f"reclaim-gw-{os.getppid()}-xyz"
    living.mkdir()
    foreign = tmp_path / "reclaim-validate-abc"  # not an owned folder: never touched
    foreign.mkdir()
    swept = sweep_tempdirs(tmp_path)
    assert swept == [str(dead)] and not dead.exists()
    assert mine.exists() and living.exists() and foreign.exists() and os.path.isdir("/etc")


def test_kinds_are_words():
    with pytest.raises(ValueError):
        owned_tempdir("../x")
