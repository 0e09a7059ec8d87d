"""The package cache shared by every run on a machine: writers at once never leave a torn entry."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time

from reclaim.gateway.pkgcache import STALE_PART_S, PackageCache

URL = "https://files.example.org/packages/demo-1.0-py3-none-any.whl"
WRITE = """
import os, sys, time
from pathlib import Path
from reclaim.gateway.pkgcache import STALE_PART_S, PackageCache
body = bytes(range(256)) * 4096  # 1 MiB, the same for every writer, as an immutable package is
w = PackageCache(Path(sys.argv[1])).writer(sys.argv[2], "application/zip")
for i in range(0, len(body), 65536):
    w.write(body[i:i + 65536])
    time.sleep(float(sys.argv[3]))
w.finish(len(body))
print("done", flush=True)
"""
BODY = bytes(range(256)) * 4096


def test_eight_writers_of_one_package_at_once_leave_one_whole_entry(tmp_path):
    procs = [subprocess.Popen([sys.executable, "-c", WRITE, str(tmp_path), URL, "0.005"]) for _ in range(8)]
    assert [p.wait(60) for p in procs] == [0] * 8
    found = PackageCache(tmp_path).lookup(URL)
    assert found is not None
    path, meta = found
    assert hashlib.sha256(path.read_bytes()).digest() == hashlib.sha256(BODY).digest() and meta["size"] == len(BODY)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".part")] == []  # no scratch left


def test_a_writer_killed_mid_download_installs_nothing(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", WRITE, str(tmp_path), URL, "0.2"])
    deadline = time.time() + 30
    while time.time() < deadline and not any(p.name.startswith(".part-") and p.stat().st_size
                                             for p in tmp_path.iterdir()):
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert PackageCache(tmp_path).lookup(URL) is None  # a part never reads as the package


def test_parts_left_by_killed_writers_are_swept_once_stale(tmp_path):
    old, fresh = tmp_path / ".part-dead", tmp_path / ".part-live"
    old.write_bytes(b"x")
    fresh.write_bytes(b"x")
    os.utime(old, (time.time() - STALE_PART_S - 60,) * 2)
    PackageCache(tmp_path).writer(URL, "application/zip")
    assert not old.exists() and fresh.exists()  # a download still being written is never swept
