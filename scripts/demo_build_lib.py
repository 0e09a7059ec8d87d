"""What every demo-suite task builder shares: paths, the task registry and deterministic file writers.

Imported by scripts/build_demo_suite.py and the task modules beside it; nothing here runs a
reference or checks a task (that is demo_build_check.py).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "src" / "reclaim" / "suites" / "demo"
LEVEL_MATERIALS = {"run": ("code", "data", "weights"), "retrain": ("code", "data"), "reimplement": ("data",)}
ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "OMP_NUM_THREADS": "1",
       "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1",
       "LC_ALL": "C.UTF-8"}
BUILDERS = {}
QUOTE = {}  # task id -> the format its paper quotes numbers in (default .4f)


def builder(task_id, quote=".4f"):
    """Register a task's builder: it writes data/ (and weights/) and returns the paper's baselines.

    QUOTE is how the paper writes its numbers: four decimals for most tasks, fewer where the
    metric is a percentage over 100 points or an exact count."""
    def register(fn):
        BUILDERS[task_id] = fn
        QUOTE[task_id] = quote
        return fn
    return register


def write_csv(path: Path, header: list[str], cols: list[np.ndarray], fmts: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [",".join(header)]
    for row in zip(*cols):
        lines.append(",".join(format(v, f) for v, f in zip(row, fmts)))
    path.write_bytes(("\n".join(lines) + "\n").encode())


def read_csv(path: Path) -> np.ndarray:
    return np.loadtxt(path, delimiter=",", skiprows=1)


def save_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """np.savez-compatible archive with fixed timestamps and order: byte-identical reruns."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        for name in sorted(arrays):
            arr = io.BytesIO()
            np.lib.format.write_array(arr, np.ascontiguousarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            zf.writestr(info, arr.getvalue())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buf.getvalue())


def run_released_training(task_dir: Path, args: list[str], weights: str) -> None:
    """Run the task's own code/train.py (cwd = task folder, as in a workspace), then make its
    np.savez output deterministic."""
    (task_dir / "weights").mkdir(exist_ok=True)
    subprocess.run([sys.executable, "code/train.py", *args, "--out", weights], cwd=task_dir,
                   env=ENV, check=True, stdout=subprocess.DEVNULL)
    with np.load(task_dir / weights) as z:
        arrays = {k: z[k] for k in z.files}
    save_npz(task_dir / weights, arrays)


def released_metric(task_dir: Path, commands: list[str], key: str) -> float:
    """Run released code in a scratch workspace (code/ and data/ only); read KEY from out.json."""
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("code", "data"):
            shutil.copytree(task_dir / kind, Path(tmp) / kind)
        for cmd in commands:
            subprocess.run(cmd, shell=True, cwd=tmp, env=ENV, check=True, stdout=subprocess.DEVNULL)
        return float(json.loads((Path(tmp) / "out.json").read_text())[key])


def split(X, y, n_train):
    return (X[:n_train], y[:n_train]), (X[n_train:], y[n_train:])
