"""The caches stay out of a sandbox wherever they are put, not only because $HOME is hidden."""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path

import pytest

from conftest import run_suite, task_yaml, write_agent, write_suite
from reclaim.gateway.pkgcache import CACHE_VAR as PACKAGES_VAR
from reclaim.materials.cache import CACHE_VAR as MATERIALS_VAR
from reclaim.materials.environment import ENVS_VAR

PROBE = """
echo "data: $(cat data/values.csv | wc -l) lines"
for d in materials envs packages; do
  echo "$d: $(find "$SHARED/$d" -mindepth 1 2>/dev/null | wc -l) entries"
done
"""


@pytest.fixture
def shared_folder():
    """A folder every bwrap sandbox shows (under /usr), as a cluster's shared path may be."""
    base = Path("/usr/local/lib")
    if not os.access(base, os.W_OK):
        pytest.skip("the shared caches need a folder under /usr (run as root)")
    folder = base / f"reclaim-test-caches-{secrets.token_hex(4)}"
    folder.mkdir()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_caches_in_a_folder_the_sandbox_shows_are_hidden(tmp_path, shared_folder, monkeypatch, bwrap_only):
    for var, sub in ((MATERIALS_VAR, "materials"), (ENVS_VAR, "envs"), (PACKAGES_VAR, "packages")):
        (shared_folder / sub).mkdir()
        monkeypatch.setenv(var, str(shared_folder / sub))
    agent = write_agent(tmp_path / "probe.sh", f"SHARED={shared_folder}\n" + PROBE)
    suite = write_suite(tmp_path / "suite", [task_yaml("hide-caches", "retrain")])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], "bwrap", max_retries=0)
    assert rec.error is None, rec.error
    assert any((shared_folder / "materials").iterdir())  # the run did fill the materials cache
    out = next((rd.trial_dir(rec.trial_id) / "logs").glob("agent-*.stdout")).read_text()
    assert "data: 0 lines" not in out and "data: " in out, out  # its own materials still come in
    for sub in ("materials", "envs", "packages"):
        assert f"{sub}: 0 entries" in out, out
