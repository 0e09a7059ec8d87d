#!/usr/bin/env python3
"""Regenerate the bundled demo suite's data and weights, then run every reference.

    python3 scripts/build_demo_suite.py            # rebuild all, run references, print values
    python3 scripts/build_demo_suite.py --check    # ... and compare with task.yaml / paper.md
    python3 scripts/build_demo_suite.py --no-build --only run-mlp-spirals

Everything is derived from fixed seeds (numpy.random.default_rng), CSV files
are written with fixed formats and .npz files with fixed zip metadata, so a
rerun produces byte-identical files. Weights of the `run` tasks are produced by
running the task's own released code/train.py, so released code and weights
always agree. Each reference solution is run in a simulated workspace (paper,
the materials its level allows, the reference files at the root), then once
more in a fresh workspace without paper.md, and both results must agree.

The numbers printed for the baselines are the ones quoted in the papers'
results tables; --check verifies that every one of them appears there.

A task may also ship a weakened experiment (reference.weakened, a hand-written
script next to reproduce.sh, helpers named ref_weak_*.py): a real run with too
few iterations or a wrong method, used by the adversarial baselines that test
judges. It is run the same way, twice (with and without paper.md), must give the
same value both times, and --check fails if that value meets the task's criteria
(reclaim.judge.criteria.acceptance) or if a weakened file contains the target.

--check also runs each reference once without data/ and once without weights/ (where its
level has them): it must fail or compute another value, so that its number provably comes
from the released materials. Targets too short for a literal search to mean anything
(81.0, 0, 1.0; see reclaim.judge.provenance.checkable) rest on this check alone.

The tasks whose targets are short numbers live in demo_tasks_short.py; the shared file
writers in demo_build_lib.py, the reference runs and checks in demo_build_check.py.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import demo_tasks_real_code  # noqa: F401  (registers the tasks in real research code's shapes)
import demo_tasks_short  # noqa: F401  (registers the tasks whose targets are short numbers)
import numpy as np
from demo_build_check import (acceptance, check, check_weakened, check_withheld, load_yaml,
                              run_reference, weakened_margin)
from demo_build_lib import (BUILDERS, SUITE, builder, read_csv, released_metric,
                            run_released_training, split, write_csv)


# ------------------------------------------------------------ shared baselines

def newton_logreg(Z, y, lam=0.0, iters=100):
    A = np.hstack([Z, np.ones((len(Z), 1))])
    th = np.zeros(A.shape[1])
    reg = np.r_[np.full(Z.shape[1], lam), 0.0]
    for _ in range(iters):
        p = 1 / (1 + np.exp(-(A @ th)))
        step = np.linalg.solve((A * (p * (1 - p))[:, None]).T @ A / len(y) + np.diag(reg),
                               A.T @ (p - y) / len(y) + reg * th)
        th -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return th


def linear_accuracy(tr: np.ndarray, te: np.ndarray) -> float:
    """Logistic regression (standardised, unregularised, Newton) on a CSV whose last column is the label."""
    mu, sd = tr[:, :-1].mean(0), tr[:, :-1].std(0)
    th = newton_logreg((tr[:, :-1] - mu) / sd, tr[:, -1])
    score = (te[:, :-1] - mu) / sd @ th[:-1] + th[-1]
    return float(np.mean((score > 0) == (te[:, -1] == 1)))


# ======================================================================= run

@builder("run-logreg-sensor-faults")
def build_sensor_faults(d: Path) -> dict:
    rng = np.random.default_rng(1001)
    names = ["temp_c", "vibration_rms", "current_a", "pressure_kpa",
             "humidity_pct", "speed_rpm", "acoustic_db", "runtime_h"]
    loc = np.array([61.0, 2.4, 11.5, 305.0, 45.0, 1480.0, 72.0, 8000.0])
    sca = np.array([6.0, 0.7, 1.8, 22.0, 9.0, 60.0, 4.5, 1500.0])
    fmts = [".2f", ".4f", ".3f", ".2f", ".2f", ".1f", ".2f", ".1f"]
    B = rng.normal(size=(8, 8))
    cov = B @ B.T + 8 * np.eye(8)
    cov /= np.sqrt(np.outer(np.diag(cov), np.diag(cov)))
    L = np.linalg.cholesky(cov)
    shift = rng.normal(size=8) * np.array([1, 1, 1, 0.3, 0.1, 0.5, 1, 0.2])
    shift *= 2.5 / np.sqrt(shift @ np.linalg.solve(cov, shift))  # Mahalanobis separation 2.5
    n = 1600
    y = (rng.random(n) < 0.35).astype(int)
    Z = rng.normal(size=(n, 8)) @ L.T + y[:, None] * shift
    X = loc + sca * Z
    (Xtr, ytr), (Xte, yte) = split(X, y, 600)
    for name, X_, y_ in (("train", Xtr, ytr), ("test", Xte, yte)):
        write_csv(d / "data" / f"{name}.csv", names + ["fault"], [*X_.T, y_], fmts + ["d"])
    run_released_training(d, ["--data", "data/train.csv"], "weights/model.npz")
    tr, te = read_csv(d / "data/train.csv"), read_csv(d / "data/test.csv")
    mu, sd = tr[:, :-1].mean(0), tr[:, :-1].std(0)
    cents = [((tr[tr[:, -1] == k, :-1] - mu) / sd).mean(0) for k in (0, 1)]
    Zte = (te[:, :-1] - mu) / sd
    nc = np.argmin([((Zte - c) ** 2).sum(1) for c in cents], axis=0)
    majority = float(np.mean(te[:, -1] == np.round(tr[:, -1].mean())))
    return {"majority class": majority, "nearest class mean": float(np.mean(nc == te[:, -1]))}


def spirals(rng, n, noise=0.06, turns=2.0):
    y = np.r_[np.zeros(n // 2, int), np.ones(n - n // 2, int)]
    t = np.sqrt(rng.random(n)) * turns * 2 * np.pi
    r = t / (turns * 2 * np.pi)
    X = np.c_[r * np.cos(t + np.pi * y), r * np.sin(t + np.pi * y)] + rng.normal(size=(n, 2)) * noise
    p = rng.permutation(n)
    return X[p], y[p]


@builder("run-mlp-spirals")
def build_spirals(d: Path) -> dict:
    rng = np.random.default_rng(1002)
    for name, n in (("train", 600), ("test", 600)):
        X, y = spirals(rng, n)
        write_csv(d / "data" / f"{name}.csv", ["x1", "x2", "label"], [X[:, 0], X[:, 1], y],
                  [".4f", ".4f", "d"])
    run_released_training(d, ["--data", "data/train.csv"], "weights/model.npz")
    tr, te = read_csv(d / "data/train.csv"), read_csv(d / "data/test.csv")
    return {"logistic regression": linear_accuracy(tr, te)}


@builder("run-ridge-nir")
def build_ridge_nir(d: Path) -> dict:
    rng = np.random.default_rng(1003)
    p, n = 24, 548
    C = 0.7 ** np.abs(np.subtract.outer(np.arange(p), np.arange(p)))
    beta = rng.normal(size=p) * np.array([1.0 if i % 3 == 0 else 0.3 for i in range(p)])
    Z = rng.normal(size=(n, p)) @ np.linalg.cholesky(C).T
    y = 16.0 + Z @ beta + rng.normal(size=n) * 2.0
    X = 0.45 + 0.04 * np.sin(np.arange(p) / 4.0) + 0.05 * Z  # absorbance units
    names = [f"band_{i + 1:02d}" for i in range(p)]
    (Xtr, ytr), (Xte, yte) = split(X, y, 48)
    for name, X_, y_ in (("train", Xtr, ytr), ("test", Xte, yte)):
        write_csv(d / "data" / f"{name}.csv", names + ["concentration"], [*X_.T, y_],
                  [".5f"] * p + [".3f"])
    run_released_training(d, ["--data", "data/train.csv"], "weights/model.npz")
    tr, te = read_csv(d / "data/train.csv"), read_csv(d / "data/test.csv")
    mu, sd, ym = tr[:, :-1].mean(0), tr[:, :-1].std(0), tr[:, -1].mean()
    ols = np.linalg.lstsq((tr[:, :-1] - mu) / sd, tr[:, -1] - ym, rcond=None)[0]
    rmse = lambda pred: float(np.sqrt(np.mean((pred - te[:, -1]) ** 2)))
    return {"training mean": rmse(np.full(len(te), ym)),
            "least squares": rmse((te[:, :-1] - mu) / sd @ ols + ym)}


# =================================================================== retrain

def gd_logreg_accuracy(tr, te, iters, lr=0.5):
    mu, sd = tr[:, :-1].mean(0), tr[:, :-1].std(0)
    Z, y = (tr[:, :-1] - mu) / sd, tr[:, -1]
    w, b = np.zeros(Z.shape[1]), 0.0
    for _ in range(iters):
        g = 1 / (1 + np.exp(-(Z @ w + b))) - y
        w, b = w - lr * Z.T @ g / len(y), b - lr * g.mean()
    return float(np.mean((((te[:, :-1] - mu) / sd @ w + b) > 0) == (te[:, -1] == 1)))


@builder("retrain-logreg-gd")
def build_logreg_gd(d: Path) -> dict:
    rng = np.random.default_rng(1004)
    p, n, spec = 10, 1600, 0.2
    L = rng.normal(size=(2, p))
    w = rng.normal(size=p) * (rng.random(p) < 0.6)
    Q, _ = np.linalg.qr(L.T)
    w -= Q @ (Q.T @ w)  # discriminative direction orthogonal to the shared factors
    A = rng.normal(size=(n, 2)) @ L + rng.normal(size=(n, p)) * spec
    logit = 3.0 * (A @ w) / (spec * np.linalg.norm(w)) + 0.4
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    X = A * rng.uniform(0.5, 3.0, size=p) + rng.normal(size=p) * 2.0
    names = [f"x{i + 1:02d}" for i in range(p)]
    (Xtr, ytr), (Xte, yte) = split(X, y, 600)
    for name, X_, y_ in (("train", Xtr, ytr), ("test", Xte, yte)):
        write_csv(d / "data" / f"{name}.csv", names + ["y"], [*X_.T, y_], [".4f"] * p + ["d"])
    tr, te = read_csv(d / "data/train.csv"), read_csv(d / "data/test.csv")
    return {"GD, 100 iterations": gd_logreg_accuracy(tr, te, 100),
            "Newton's method, converged": linear_accuracy(tr, te)}


def moons(rng, n, noise=0.15):
    y = np.r_[np.zeros(n // 2, int), np.ones(n - n // 2, int)]
    t = rng.random(n) * np.pi
    X = np.where(y[:, None] == 0, np.c_[np.cos(t), np.sin(t)], np.c_[1 - np.cos(t), 0.5 - np.sin(t)])
    X = X + rng.normal(size=(n, 2)) * noise
    p = rng.permutation(n)
    return X[p], y[p]


@builder("retrain-mlp-moons")
def build_moons(d: Path) -> dict:
    rng = np.random.default_rng(1005)
    for name, n in (("train", 400), ("test", 1000)):
        X, y = moons(rng, n)
        write_csv(d / "data" / f"{name}.csv", ["x1", "x2", "label"], [X[:, 0], X[:, 1], y],
                  [".4f", ".4f", "d"])
    tr, te = read_csv(d / "data/train.csv"), read_csv(d / "data/test.csv")
    short = released_metric(d, ["python3 code/train.py --epochs 75 --out m.npz",
                                "python3 code/evaluate.py --model m.npz --out out.json"], "accuracy")
    return {"logistic regression": linear_accuracy(tr, te), "same network, 75 epochs": short}


def pseudo_words(rng, n):
    cons, vows = list("bdfgklmnprstvz"), list("aeiou")
    words = set()
    while len(words) < n:
        k = rng.integers(2, 4)
        words.add("".join(cons[rng.integers(14)] + vows[rng.integers(5)] for _ in range(k)))
    return sorted(words)


def macro_f1(y, pred, k):
    f = [2 * np.sum((pred == c) & (y == c)) / max(1, np.sum(pred == c) + np.sum(y == c)) for c in range(k)]
    return float(np.mean(f))


@builder("retrain-nb-topics")
def build_nb_topics(d: Path) -> dict:
    rng = np.random.default_rng(1006)
    V, K = 300, 4
    topics = ["astronomy", "botany", "cooking", "sailing"]
    vocab = np.array(pseudo_words(rng, V))
    rng.shuffle(vocab)
    background = rng.dirichlet(np.full(V, 0.5))
    phi = []
    for _ in range(K):
        boost = np.ones(V)
        boost[rng.choice(V, 25, replace=False)] = rng.uniform(2, 6, 25)
        phi.append(background * boost / (background * boost).sum())
    prior = np.array([0.4, 0.3, 0.2, 0.1])
    for name, n in (("train", 300), ("test", 800)):
        y = rng.choice(K, n, p=prior)
        lengths = rng.poisson(18, n) + 3
        lines = [topics[c] + "\t" + " ".join(vocab[rng.choice(V, size=m, p=phi[c])])
                 for c, m in zip(y, lengths)]
        (d / "data").mkdir(exist_ok=True)
        (d / "data" / f"{name}.tsv").write_bytes(("\n".join(lines) + "\n").encode())

    def load(name):
        rows = [ln.split("\t") for ln in (d / "data" / f"{name}.tsv").read_text().splitlines()]
        return np.array([topics.index(r[0]) for r in rows]), [r[1].split() for r in rows]
    ytr, dtr = load("train")
    yte, dte = load("test")
    index = {w: i for i, w in enumerate(sorted({t for doc in dtr for t in doc}))}
    def onehot(docs):
        B = np.zeros((len(docs), len(index)))
        for i, doc in enumerate(docs):
            B[i, [index[t] for t in set(doc) if t in index]] = 1.0
        return B
    Btr, Bte = onehot(dtr), onehot(dte)
    th = np.array([(Btr[ytr == c].sum(0) + 1) / ((ytr == c).sum() + 2) for c in range(K)])
    lp = np.log(np.bincount(ytr, minlength=K) / len(ytr))
    bern = np.argmax(Bte @ np.log(th).T + (1 - Bte) @ np.log(1 - th).T + lp, axis=1)
    major = np.full(len(yte), np.bincount(ytr).argmax())
    return {"majority class": macro_f1(yte, major, K), "Bernoulli naive Bayes": macro_f1(yte, bern, K)}


# =============================================================== reimplement

@builder("reimplement-huber-irls")
def build_huber(d: Path) -> dict:
    rng = np.random.default_rng(1007)
    p, ntr, nte = 4, 150, 500
    beta, b0 = np.array([1.5, -2.0, 0.7, 0.0]), 3.0
    Xtr, Xte = rng.normal(size=(ntr, p)), rng.normal(size=(nte, p))
    ytr = b0 + Xtr @ beta + rng.normal(size=ntr)
    out = rng.random(ntr) < 0.15  # gross errors of either sign
    ytr[out] += rng.uniform(8, 20, size=out.sum()) * rng.choice([-1.0, 1.0], size=out.sum())
    yte = b0 + Xte @ beta  # reference-method measurements: noise-free
    names = [f"x{i + 1}" for i in range(p)] + ["y"]
    for name, X_, y_ in (("train", Xtr, ytr), ("test", Xte, yte)):
        write_csv(d / "data" / f"{name}.csv", names, [*X_.T, y_], [".4f"] * (p + 1))
    tr, te = read_csv(d / "data/train.csv"), read_csv(d / "data/test.csv")
    A, At = np.c_[np.ones(ntr), tr[:, :-1]], np.c_[np.ones(nte), te[:, :-1]]
    mae = lambda th: float(np.mean(np.abs(te[:, -1] - At @ th)))
    ols = np.linalg.lstsq(A, tr[:, -1], rcond=None)[0]
    lad = ols.copy()  # least absolute deviations by IRLS with weights 1 / max(|r|, 1e-8)
    for _ in range(2000):
        w = 1 / np.maximum(np.abs(tr[:, -1] - A @ lad), 1e-8)
        new = np.linalg.solve(A.T @ (A * w[:, None]), A.T @ (w * tr[:, -1]))
        done, lad = np.max(np.abs(new - lad)) < 1e-12, new
        if done:
            break
    return {"least squares": mae(ols), "least absolute deviations": mae(lad)}


def kmeans_inertia(X, C):
    """Lloyd's algorithm until the assignments stop changing; returns the final inertia."""
    assign = None
    while True:
        D = ((X[:, None, :] - C[None]) ** 2).sum(2)
        new = D.argmin(1)
        if assign is not None and np.array_equal(new, assign):
            return float(D[np.arange(len(X)), new].sum())
        assign = new
        C = np.array([X[assign == j].mean(0) if np.any(assign == j) else C[j] for j in range(len(C))])


@builder("reimplement-kmeans-pp")
def build_kmeans(d: Path) -> dict:
    rng = np.random.default_rng(1008)
    centers = np.array([[0, 0], [7, 0], [0, 8], [8, 8], [15, 3], [4, 15]], float)
    sizes, spread = [150, 120, 90, 80, 60, 50], [1.0, 0.9, 0.8, 0.8, 0.7, 0.6]
    X = np.concatenate([c + rng.normal(size=(m, 2)) * s for c, m, s in zip(centers, sizes, spread)])
    X = X[rng.permutation(len(X))]
    write_csv(d / "data" / "points.csv", ["x1", "x2"], [X[:, 0], X[:, 1]], [".4f", ".4f"])
    X = read_csv(d / "data/points.csv")
    k = 6

    def plusplus(r):
        C = [X[r.integers(len(X))]]
        for _ in range(k - 1):
            D = ((X[:, None, :] - np.array(C)[None]) ** 2).sum(2).min(1)
            C.append(X[r.choice(len(X), p=D / D.sum())])
        return np.array(C)
    uniform = [kmeans_inertia(X, X[np.random.default_rng(s).choice(len(X), k, replace=False)])
               for s in range(100)]
    single = [kmeans_inertia(X, plusplus(np.random.default_rng(s))) for s in range(100)]
    return {"uniform init, one run (mean of 100 seeds)": float(np.mean(uniform)),
            "k-means++, one run (mean of 100 seeds)": float(np.mean(single))}


@builder("reimplement-lasso-cd")
def build_lasso(d: Path) -> dict:
    rng = np.random.default_rng(1009)
    p, ntr, nte, k = 40, 80, 300, 6
    beta = np.zeros(p)
    support = rng.choice(p, k, replace=False)
    beta[support] = rng.uniform(1, 3, k) * rng.choice([-1, 1], k)
    C = 0.5 ** np.abs(np.subtract.outer(np.arange(p), np.arange(p)))
    Z = rng.normal(size=(ntr + nte, p)) @ np.linalg.cholesky(C).T
    y = 2.0 + Z @ beta + rng.normal(size=ntr + nte) * 1.5
    X = Z * rng.uniform(0.5, 5, size=p) + rng.normal(size=p) * 3
    names = [f"x{i + 1:02d}" for i in range(p)] + ["y"]
    (Xtr, ytr), (Xte, yte) = split(X, y, ntr)
    for name, X_, y_ in (("train", Xtr, ytr), ("test", Xte, yte)):
        write_csv(d / "data" / f"{name}.csv", names, [*X_.T, y_], [".4f"] * (p + 1))
    tr, te = read_csv(d / "data/train.csv"), read_csv(d / "data/test.csv")
    mu, sd, ym = tr[:, :-1].mean(0), tr[:, :-1].std(0), tr[:, -1].mean()
    ols = np.linalg.lstsq((tr[:, :-1] - mu) / sd, tr[:, -1] - ym, rcond=None)[0]
    mse = lambda pred: float(np.mean((te[:, -1] - pred) ** 2))
    return {"training mean": mse(np.full(nte, ym)),
            "least squares": mse((te[:, :-1] - mu) / sd @ ols + ym)}


# ====================================================================== main

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with task.yaml and paper.md")
    ap.add_argument("--no-build", action="store_true", help="do not regenerate data and weights")
    ap.add_argument("--only", nargs="*", default=None, help="task ids (default: all)")
    args = ap.parse_args()
    tasks = load_yaml(SUITE / "suite.yaml")["tasks"] if (SUITE / "suite.yaml").exists() else list(BUILDERS)
    failed = False
    for tid in tasks:
        if args.only and tid not in args.only:
            continue
        d = SUITE / tid
        baselines = BUILDERS[tid](d) if not args.no_build else {}
        spec = load_yaml(d / "task.yaml")
        if "metrics" in spec["target"]:  # several numbers: reclaim tasks validate --with-reference checks them
            got, secs = run_reference(d, spec, with_paper=True)
            print(f"{tid:28s} {spec['level']:12s} " + ", ".join(f"{k} = {got[k]!r}" for k in spec["target"]["metrics"])
                  + f"  (reference {secs:.2f} s; checked by reclaim tasks validate --with-reference)")
            continue
        metric = spec["target"]["metric"]
        first, secs = run_reference(d, spec, with_paper=True)
        second, _ = run_reference(d, spec, with_paper=False)
        value = float(first[metric])
        if float(second[metric]) != value:
            failed = True
            print(f"  !! {tid}: result differs without paper.md: {second[metric]!r} vs {value!r}")
        print(f"{tid:28s} {spec['level']:12s} {metric} = {value!r}  ({value:.4f}; reference {secs:.2f} s)")
        for label, v in baselines.items():
            print(f"{'':41s} baseline {label}: {v!r} ({v:.4f})")
        weak_script = (spec.get("reference") or {}).get("weakened")
        weak = None
        if weak_script:
            w_first, w_secs = run_reference(d, spec, with_paper=True, script=weak_script)
            w_second, _ = run_reference(d, spec, with_paper=False, script=weak_script)
            weak = float(w_second[metric])
            if float(w_first[metric]) != weak:
                failed = True
                print(f"  !! {tid}: weakened result differs without paper.md: {weak!r} vs {w_first[metric]!r}")
            print(f"{'':41s} weakened {weak_script}: {weak!r} ({weak:.4f}; "
                  f"{weakened_margin(weak, spec)} of {acceptance(spec).rule}; {w_secs:.2f} s)")
        if args.check:
            if args.no_build:
                print("  (baselines not checked with --no-build)")
            problems = check(d, spec, value, baselines)
            if weak is not None:
                problems += check_weakened(d, spec, weak, value)
            problems += check_withheld(d, spec, value)
            for msg in problems:
                failed = True
                print(f"  !! {tid}: {msg}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
