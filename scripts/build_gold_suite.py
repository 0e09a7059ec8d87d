"""Build the generated files of the gold-shapes suite (scripts/gold_suite): data, a vendored wheel,
the authors' notebook with its stored outputs. Deterministic: a rerun writes the same bytes.

    .venv/bin/python scripts/build_gold_suite.py

The tasks' code, papers and references are written by hand beside what this makes; the
numbers in their papers are what this script prints (the references reproduce them, which
`reclaim tasks validate scripts/gold_suite --with-reference` checks). The suite is shaped like
real research releases, to test the judge, not the agents: it is run by make_gold_set.py only,
never by the test suite.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import math
import sys
import zipfile
from pathlib import Path

import numpy as np

SUITE = Path(__file__).resolve().parent / "gold_suite"
WHEEL = "tinysmooth-0.2.0-py3-none-any.whl"


def write_csv(path: Path, header: list[str], rows: np.ndarray, fmt: str = ".6f") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [",".join(header)] + [",".join(format(v, fmt) for v in row) for row in rows]
    path.write_bytes(("\n".join(lines) + "\n").encode())


# --- (a) the authors' notebook, with the outputs it printed when they ran it -----------------

NOTEBOOK_CELLS = [
    ("markdown", "# Ridge versus least squares on 40 collinear samples\n\nThe numbers of Table 1."),
    ("code", "import numpy as np\n\n"
             "train = np.loadtxt(\"../data/train.csv\", delimiter=\",\", skiprows=1)\n"
             "test = np.loadtxt(\"../data/test.csv\", delimiter=\",\", skiprows=1)\n"
             "X, y = train[:, :-1], train[:, -1]\n"
             "Xt, yt = test[:, :-1], test[:, -1]\n"
             "print(\"train\", X.shape, \"test\", Xt.shape)"),
    ("code", "LAMBDA = 3.0  # ridge penalty (Section 2)\n\n"
             "mu, sd = X.mean(axis=0), X.std(axis=0)\n"
             "Z, Zt = (X - mu) / sd, (Xt - mu) / sd\n"
             "ym = y.mean()\n"
             "w = np.linalg.solve(Z.T @ Z + LAMBDA * np.eye(Z.shape[1]), Z.T @ (y - ym))\n"
             "pred = Zt @ w + ym\n"
             "r2 = 1 - np.sum((yt - pred) ** 2) / np.sum((yt - yt.mean()) ** 2)\n"
             "print(f\"test R^2 = {r2:.4f}\")"),
    ("markdown", "Setting `LAMBDA = 0.0` gives the least-squares row of Table 1."),
]


def build_notebook(task: Path) -> None:
    rng = np.random.default_rng(20250310)
    p, k = 25, 3
    A = rng.normal(size=(k, p))
    beta = rng.normal(scale=0.5, size=p)

    def sample(n):
        X = rng.normal(size=(n, k)) @ A + 0.6 * rng.normal(size=(n, p))
        return np.column_stack([X, X @ beta + 2.0 * rng.normal(size=n)])

    write_csv(task / "data" / "train.csv", [f"x{i}" for i in range(p)] + ["y"], sample(40))
    write_csv(task / "data" / "test.csv", [f"x{i}" for i in range(p)] + ["y"], sample(200))
    cells = [{"cell_type": kind, "metadata": {}, "source": src.splitlines(keepends=True)}
             | ({"execution_count": None, "outputs": []} if kind == "code" else {})
             for kind, src in NOTEBOOK_CELLS]
    nb = {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"},
                                       "language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    path = task / "code" / "analysis.ipynb"
    path.write_text(json.dumps(nb, indent=1) + "\n")
    # run it the way its authors did, so that the stored outputs hold the paper's numbers
    import subprocess
    subprocess.run([sys.executable, str(task / "code" / "run_notebook.py"), str(path), "--out", str(path)],
                   check=True, cwd=task)


# --- (b) a vendored dependency, whose z-table holds a copy of the paper's number ---------------

def z_table() -> list[list[float]]:
    """Phi(z) for z = 0.00 .. 3.49, ten to a row: the table printed in every statistics text."""
    return [[round(0.5 * (1 + math.erf((r / 10 + c / 100) / math.sqrt(2))), 4) for c in range(10)]
            for r in range(35)]


KERNEL_PY = '''"""Nadaraya-Watson kernel regression with a Gaussian product kernel."""

import numpy as np


def silverman(X):
    """Silverman's rule-of-thumb bandwidth, one per column."""
    n, d = X.shape
    return X.std(axis=0) * (4.0 / ((d + 2) * n)) ** (1.0 / (d + 4))


def nw_predict(X, y, Xq, bandwidth):
    """Kernel-weighted mean of y at the query points Xq."""
    u = (Xq[:, None, :] - X[None, :, :]) / bandwidth
    w = np.exp(-0.5 * np.sum(u * u, axis=2))
    return (w @ y) / np.maximum(w.sum(axis=1), 1e-300)
'''


def tables_py() -> str:
    rows = ",\n".join("    (" + ", ".join(f"{v:.4f}" for v in row) + ")" for row in z_table())
    return ('"""The standard normal CDF, Phi(z) for z = 0.00 .. 3.49 (row: tenths, column: hundredths),\n'
            'for confidence bands without scipy."""\n\n'
            f"Z_TABLE = (\n{rows},\n)\n\n\n"
            "def phi(z):\n    \"\"\"Phi(z) from the table, for 0 <= z < 3.5.\"\"\"\n"
            "    r, c = divmod(int(round(abs(z) * 100)), 10)\n"
            "    v = Z_TABLE[min(r, 34)][c]\n    return v if z >= 0 else 1 - v\n")


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_wheel(path: Path) -> None:
    files = {
        "tinysmooth/__init__.py": '"""Tiny kernel smoothing."""\n\nfrom .kernel import nw_predict, silverman\n'
                                  'from .tables import Z_TABLE, phi\n\n__version__ = "0.2.0"\n',
        "tinysmooth/kernel.py": KERNEL_PY,
        "tinysmooth/tables.py": tables_py(),
        "tinysmooth-0.2.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinysmooth\nVersion: 0.2.0\n"
                                               "Summary: Tiny kernel smoothing\nRequires-Dist: numpy\n",
        "tinysmooth-0.2.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\n"
                                            "Tag: py3-none-any\n",
    }
    record = "".join(f"{name},{_record_hash(text.encode())},{len(text.encode())}\n" for name, text in files.items())
    files["tinysmooth-0.2.0.dist-info/RECORD"] = record + "tinysmooth-0.2.0.dist-info/RECORD,,\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in files.items():
            zf.writestr(zipfile.ZipInfo(name, date_time=(2025, 1, 1, 0, 0, 0)), text)
    path.write_bytes(buf.getvalue())


def smoother_r2(train: np.ndarray, test: np.ndarray, factor: float) -> float:
    ns = {}
    exec(KERNEL_PY, ns)
    X, y, Xt, yt = train[:, :2], train[:, 2], test[:, :2], test[:, 2]
    pred = ns["nw_predict"](X, y, Xt, factor * ns["silverman"](X))
    return round(float(1 - np.sum((yt - pred) ** 2) / np.sum((yt - yt.mean()) ** 2)), 4)


def build_smoother(task: Path) -> None:
    table = {v for row in z_table() for v in row}
    for seed in range(1000):  # the first data set whose R^2 happens to be a z-table entry
        rng = np.random.default_rng(seed)

        def sample(n):
            X = rng.uniform(-2, 2, size=(n, 2))
            return np.column_stack([X, np.sin(2 * X[:, 0]) + 0.5 * X[:, 1] ** 2 + 0.45 * rng.normal(size=n)])

        tr, te = sample(150), sample(300)
        if smoother_r2(tr, te, 1.0) in table:
            break
    write_csv(task / "data" / "train.csv", ["x1", "x2", "y"], tr)
    write_csv(task / "data" / "test.csv", ["x1", "x2", "y"], te)
    build_wheel(task / "code" / "vendor" / WHEEL)
    print(f"  smoother: seed {seed}, R^2 {smoother_r2(tr, te, 1.0)} (x4 bandwidth: {smoother_r2(tr, te, 4.0)})")


# --- (c) several numbers of one claim; (e) a released settings-sourcing script; (f) evaluate mode

def build_forecast(task: Path) -> None:
    rng = np.random.default_rng(11)
    phi, n = np.array([0.4, -0.1, 0.5]), 700
    y = np.zeros(n)
    for t in range(3, n):
        y[t] = 1.0 + phi @ y[t - 3:t][::-1] + rng.normal()
    write_csv(task / "data" / "series.csv", ["y"], y[100:, None])


def build_knn(task: Path) -> None:
    rng = np.random.default_rng(16)
    centres = {0: [(-1.0, 0.0), (1.2, 1.5)], 1: [(0.6, -0.4), (-0.8, 1.8)]}

    def sample(n):
        rows = []
        for i in range(n):
            c = i % 2
            mx, my = centres[c][rng.integers(2)]
            rows.append((mx + 0.7 * rng.normal(), my + 0.7 * rng.normal(), c))
        return np.array(rows)

    write_csv(task / "data" / "train.csv", ["x1", "x2", "label"], sample(300))
    write_csv(task / "data" / "test.csv", ["x1", "x2", "label"], sample(400))


def build_rings(task: Path) -> None:
    rng = np.random.default_rng(5)

    def sample(n):
        c = np.arange(n) % 2
        r = 1.0 + c + 0.3 * rng.normal(size=n)
        a = rng.uniform(0, 2 * np.pi, size=n)
        return np.column_stack([r * np.cos(a), r * np.sin(a), c])

    write_csv(task / "data" / "train.csv", ["x1", "x2", "label"], sample(800))
    write_csv(task / "data" / "test.csv", ["x1", "x2", "label"], sample(600))


def main() -> int:
    build_notebook(SUITE / "retrain-notebook-ridge")
    build_smoother(SUITE / "retrain-vendored-smoother")
    build_forecast(SUITE / "retrain-multi-forecast")
    build_knn(SUITE / "retrain-settings-knn")
    build_rings(SUITE / "retrain-evaluate-mlp")
    print(f"built {SUITE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
