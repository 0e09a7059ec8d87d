"""Demo tasks in the shapes real research code takes: code that simulates its own data
(retrain-sim-dag: nothing to build, its released code draws the data from $SEED), code that
writes next to itself (retrain-writes-beside), and data that sits inside the code repository
(run-data-in-repo: one repo/ posed as code without data/ and as data). Fixed seeds; the same
writers as demo_build_lib.py, so a rerun gives byte-identical files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
from demo_build_lib import ENV, builder, save_npz, write_csv


@builder("retrain-sim-dag", quote=".0f")
def build_sim_dag(d: Path) -> dict:
    """Nothing to write: the released code simulates the data from its seed."""
    return {}


@builder("retrain-writes-beside")
def build_writes_beside(d: Path) -> dict:
    """Yield of a batch reactor from five process settings: smooth, nonlinear, with interactions."""
    rng = np.random.default_rng(1021)
    names = ["temperature", "pressure", "catalyst", "residence", "ph"]
    n_train, n_test = 300, 500
    U = rng.uniform(-1, 1, size=(n_train + n_test, 5))
    f = (3.0 * np.sin(2.2 * U[:, 0]) * np.exp(-0.5 * U[:, 1] ** 2) + 2.0 * U[:, 2] * U[:, 3]
         + 1.5 * np.cos(3.0 * U[:, 4] + U[:, 0]) + 1.2 * U[:, 1] ** 2)
    y = 60.0 + 4.0 * f + rng.normal(size=len(U)) * 1.5
    loc = np.array([180.0, 12.0, 2.5, 45.0, 6.8])
    scale = np.array([25.0, 3.0, 0.8, 10.0, 0.6])
    X = loc + U * scale
    for name, sl in (("train", slice(0, n_train)), ("test", slice(n_train, None))):
        write_csv(d / "data" / f"{name}.csv", names + ["yield_pct"], [*X[sl].T, y[sl]], [".3f"] * 5 + [".3f"])
    return {}


@builder("run-data-in-repo")
def build_data_in_repo(d: Path) -> dict:
    """Three seed varieties from 30 noisy spectral features: few training samples per class."""
    rng = np.random.default_rng(1022)
    p, k = 30, 3
    n_train, n_test = 45, 400
    means = rng.normal(size=(k, p)) * 0.5
    A = rng.normal(size=(p, p)) / np.sqrt(p)
    cov = A @ A.T + np.diag(rng.uniform(0.3, 1.0, p))
    L = np.linalg.cholesky(cov)
    y = np.concatenate([np.repeat(np.arange(k), n_train // k), rng.integers(0, k, n_test)])
    X = means[y] + rng.normal(size=(len(y), p)) @ L.T
    perm = rng.permutation(n_train)
    X[:n_train], y[:n_train] = X[perm], y[perm]
    names = [f"band_{i + 1:02d}" for i in range(p)]
    repo = d / "repo"
    for name, sl in (("train", slice(0, n_train)), ("test", slice(n_train, None))):
        write_csv(repo / "data" / f"{name}.csv", names + ["variety"], [*X[sl].T, y[sl]], [".4f"] * p + ["d"])
    # the released weights: the repository's own train.py at its defaults, stored deterministically
    (d / "weights").mkdir(exist_ok=True)
    subprocess.run([sys.executable, "repo/train.py", "--data", "repo/data/train.csv", "--out", "weights/lda.npz"],
                   cwd=d, env=ENV, check=True, stdout=subprocess.DEVNULL)
    with np.load(d / "weights/lda.npz") as z:
        arrays = {key: z[key] for key in z.files}
    save_npz(d / "weights/lda.npz", arrays)
    return {}

