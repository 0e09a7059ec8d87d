"""Reference reimplementation (no authors' code exists) of the numerical experiment of
"Statistical Inference under Performativity" (Li, Li, Zhong, Lei, Deng; NeurIPS 2025):
confidence regions for the repeated-risk-minimisation (RRM) iterate theta_t under performativity,
from the paper's central limit theorem, with prediction-powered inference (PPI) at three weights:
lambda = 0 (labeled data only), lambda = 1 (full weight on the unlabeled predictions) and the
per-step variance-minimising lambda_hat_t. Coverage over independent trials at level 1 - alpha.

Setting (the paper's own data-generating process is not reproduced here: a linear-Gaussian
location family, the standard performative-regression example):
  deployed theta -> D(theta): X ~ N(0, I_2), Y = X^T (beta + B theta) + sin(2 X_1) + eps/2, eps ~ N(0, 1)
  loss: squared error, so G(theta') = argmin E_{D(theta')} loss = beta + c + B theta', c = (2 e^-2, 0)
  RRM: theta_t = argmin of the (PPI) empirical loss on fresh samples from D(theta_{t-1}),
  target theta*_t = G(theta*_{t-1}), theta*_0 = theta_0 (known, deployed without error)
  CLT: Sigma_t = V_t(lambda) + J Sigma_{t-1} J^T, J = dG/dtheta' estimated by policy perturbation
  predictions: f(x) = x^T (beta + B theta) + 0.9 sin(2 x_1) on D(theta) (a good, imperfect ML model)
"""
import json
import os

import numpy as np

SEED = int(os.environ.get("SEED", "0"))
ALPHA = float(os.environ.get("ALPHA", "0.1"))
TRIALS = int(os.environ.get("TRIALS", "1000"))
N_LAB = int(os.environ.get("N_LABELED", "1000"))
N_UNLAB = int(os.environ.get("N_UNLABELED", "10000"))
STEPS = int(os.environ.get("STEPS", "3"))
M_PERT = int(os.environ.get("M_PERTURB", "2000"))
H_PERT = float(os.environ.get("H_PERTURB", "0.5"))
METHOD = os.environ.get("METHOD", "clt")  # "naive": ignore the performative term J Sigma J^T

D = 2
BETA = np.array([1.0, -0.5])
B = np.array([[0.6, 0.2], [0.1, 0.5]])
THETA0 = np.zeros(D)
C = np.array([2 * np.exp(-2.0), 0.0])  # E[X sin(2 X_1)] for X ~ N(0, I): the linear part of the nonlinearity
CHI2 = -2.0 * np.log(ALPHA)  # chi-square quantile with 2 degrees of freedom at 1 - alpha


PRED = {"theta": THETA0}


def f_pred(x):
    """The ML model's predictions on the deployed distribution: good, not exact."""
    return x @ (BETA + B @ PRED["theta"]) + 0.9 * np.sin(2 * x[:, 0])


def sample(rng, theta, n, labeled=True):
    x = rng.standard_normal((n, D))
    if not labeled:
        return x, None
    y = x @ (BETA + B @ theta) + np.sin(2 * x[:, 0]) + 0.5 * rng.standard_normal(n)
    return x, y


def ols(x, y):
    return np.linalg.solve(x.T @ x, x.T @ y)


def ppi_fit(x, y, xu, lam):
    """argmin of  lam * mean_u l(th; xu, f(xu)) + mean_l [ l(th; x, y) - lam * l(th; x, f(x)) ]."""
    n, nu = len(x), len(xu)
    A = (1 - lam) * x.T @ x / n + lam * xu.T @ xu / nu
    b = x.T @ (y - lam * f_pred(x)) / n + lam * xu.T @ f_pred(xu) / nu
    return np.linalg.solve(A, b)


def ppi_cov_parts(x, y, xu, th):
    """H^{-1}, Cov(g_y), Cov(g_y, g_f), Cov(g_f) on labeled, Cov(g_f) on unlabeled, at th."""
    allx = np.vstack([x, xu])
    Hinv = np.linalg.inv(allx.T @ allx / len(allx))
    gy = x * (x @ th - y)[:, None]
    gf = x * (x @ th - f_pred(x))[:, None]
    gfu = xu * (xu @ th - f_pred(xu))[:, None]
    c = np.cov(np.hstack([gy, gf]).T)
    return Hinv, c[:D, :D], c[:D, D:], c[D:, D:], np.cov(gfu.T)


def v_of(parts, lam, n, nu):
    Hinv, cyy, cyf, cff, cffu = parts
    inner = (cyy - lam * (cyf + cyf.T) + lam ** 2 * cff) / n + lam ** 2 * cffu / nu
    return Hinv @ inner @ Hinv


def lam_hat(parts, n, nu):
    Hinv, cyy, cyf, cff, cffu = parts
    a = np.trace(Hinv @ (cyf + cyf.T) / 2 @ Hinv) / n
    b = np.trace(Hinv @ cff @ Hinv) / n + np.trace(Hinv @ cffu @ Hinv) / nu
    return float(np.clip(a / b, 0.0, 1.0))


def estimate_J(rng, theta):
    """Policy perturbation: deploy theta and theta + h e_j, refit, finite differences."""
    x, y = sample(rng, theta, M_PERT)
    g0 = ols(x, y)
    J = np.empty((D, D))
    for j in range(D):
        e = np.zeros(D)
        e[j] = H_PERT
        x, y = sample(rng, theta + e, M_PERT)
        J[:, j] = (ols(x, y) - g0) / H_PERT
    return J


def main():
    rng = np.random.default_rng(SEED)
    names = ["lambda0", "lambda1", "lambdahat"]
    covered = {k: np.zeros(STEPS) for k in names}
    width = {k: np.zeros(STEPS) for k in names}
    lam_used = np.zeros(STEPS)
    for _ in range(TRIALS):
        state = {k: (THETA0.copy(), np.zeros((D, D))) for k in names}
        star = THETA0.copy()
        for t in range(STEPS):
            star = BETA + C + B @ star
            for k in names:
                th_prev, sig_prev = state[k]
                PRED["theta"] = th_prev
                x, y = sample(rng, th_prev, N_LAB)
                xu, _ = sample(rng, th_prev, N_UNLAB, labeled=False)
                if k == "lambda0":
                    lam = 0.0
                elif k == "lambda1":
                    lam = 1.0
                else:
                    lam = lam_hat(ppi_cov_parts(x, y, xu, ols(x, y)), N_LAB, N_UNLAB)
                    lam_used[t] += lam / TRIALS
                th = ppi_fit(x, y, xu, lam)
                V = v_of(ppi_cov_parts(x, y, xu, th), lam, N_LAB, N_UNLAB)
                if METHOD == "naive" or t == 0:
                    sig = V
                else:
                    J = estimate_J(rng, th_prev)
                    sig = V + J @ sig_prev @ J.T
                r = th - star
                covered[k][t] += float(r @ np.linalg.solve(sig, r) <= CHI2) / TRIALS
                width[k][t] += np.sqrt(CHI2 * np.linalg.det(sig)) * np.pi / TRIALS  # ellipse area
                state[k] = (th, sig)
    last = STEPS
    res = {f"coverage_{k}_t{last}": round(float(covered[k][-1]), 4) for k in names}
    res.update({f"region_area_{k}_t{last}": float(width[k][-1]) for k in names})
    res["mean_lambdahat_t%d" % last] = float(lam_used[-1])
    res["coverage_by_step"] = {k: [round(float(c), 4) for c in covered[k]] for k in names}
    print(json.dumps(res, indent=1))
    out = {k: v for k, v in res.items() if not isinstance(v, dict)}
    json.dump(out, open("results.json", "w"), indent=1)


if __name__ == "__main__":
    main()
