"""A verified neurips2025 task, end to end, on a "compute node" with no route out (issue 34).

The login node (this process, with the network this machine has: a package index, and a local
stand-in for arXiv) packs the task's bundle; the compute node is a network namespace of its own with
nothing but loopback: it unpacks the bundle into an empty cache and runs the task's reference there,
its environment built from the bundle's wheels into an empty environments cache.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fpdf import FPDF
from servers import FileServer

TASK = "nw-interpolator-overfitting"  # verified here; no released materials but its paper (arXiv 2502.07480v2)
RECLAIM = str(Path(sys.executable).parent / "reclaim")

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not all(shutil.which(t) for t in ("unshare", "ip", "bwrap")),
    reason="needs root, unshare, ip and bubblewrap for a network namespace of its own")


def _stand_in_pdf() -> bytes:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, "A stand-in for arXiv 2502.07480v2 (this test cannot reach arXiv).")
    return bytes(pdf.output())


def test_a_verified_task_runs_from_a_bundle_where_no_network_reaches(tmp_path):
    server = FileServer()
    server.add("/pdf/2502.07480v2", _stand_in_pdf())
    env = os.environ | {"RECLAIM_ARXIV_URL": server.url + "/pdf", "COLUMNS": "200"}
    bundle = tmp_path / "nw.tar.gz"
    packed = subprocess.run([RECLAIM, "materials", "pack", "neurips2025", "--task", TASK, "-o", str(bundle),
                             "--cache", str(tmp_path / "login-cache")], env=env, capture_output=True, text=True)
    server.close()
    if packed.returncode != 0 and "pip download failed" in packed.stdout + packed.stderr:
        pytest.skip(f"no package index reachable from here: {packed.stdout[-400:]}")
    assert packed.returncode == 0, packed.stdout + packed.stderr
    assert "package file" in packed.stdout

    node = {k: v for k, v in os.environ.items() if not k.startswith("RECLAIM_")} | {
        "RECLAIM_ENVS_CACHE": str(tmp_path / "node-envs"), "COLUMNS": "200"}
    script = f"""
set -e
ip link set lo up
if python3 -c "import socket; socket.create_connection(('1.1.1.1', 443), timeout=3)" 2>/dev/null; then
  echo "THE NAMESPACE HAS A ROUTE OUT"; exit 3
fi
{RECLAIM} materials unpack {bundle} --cache {tmp_path}/node-cache
{RECLAIM} run --suite neurips2025 --task {TASK} --agent reference --offline --materials-cache {tmp_path}/node-cache \
  --sandbox bwrap --runs-root {tmp_path}/runs --format json > {tmp_path}/report.json
"""
    r = subprocess.run(["unshare", "--net", "bash", "-c", script], env=node, capture_output=True, text=True,
                       timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    trial = json.loads(next((tmp_path / "runs").glob(f"*/trials/{TASK}__reference__0/trial.json")).read_text())
    assert trial["outcome"] == "reproduced", trial
    assert list((tmp_path / "node-envs").iterdir()), "the environment was not built on the node"
