"""Reference reimplementation (no authors' code exists) of Section 4 of "On Minimax Estimation of
Parameters in Softmax-Contaminated Mixture of Experts" (Yan, Nguyen, Le, Akbarian, Ho, Rinaldo;
NeurIPS 2025): empirical convergence rates of the MLE in the distinguishable setting.

Model (eq. 1): p_G(y|x) = 1/(1+exp(beta^T x + tau)) f0(y | tanh(eta0^T x), nu0)
                        + exp(beta^T x + tau)/(1+exp(beta^T x + tau)) N(y | tanh(eta^T x), nu)
Distinguishable setting (Section 4): f0 Laplace with mean tanh(eta0^T x), variance nu0 = 0.001,
eta0 = e1; truth beta* = 1_d / sqrt(d), tau* = 1, eta* = -e1, nu* = 0.001; X ~ N(0, I_d), d = 8;
20 sample sizes from 1e3 to 1e5, 40 experiments each, initialisation close to the truth.
The MLE is computed by L-BFGS on the log-likelihood with its analytic gradient (the paper runs EM
with BFGS M-steps; both return the maximiser of the same likelihood from the same start).
Errors: |exp(tau_n) - exp(tau*)|, ||beta_n - beta*||, ||eta_n - eta*||, |nu_n - nu*|, averaged over
the experiments; the reported number is the slope of log(mean error) against log(n) (the paper's O(n^-rate)).
"""
import json
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
from scipy.optimize import minimize

SEED = int(os.environ.get("SEED", "0"))
N_EXP = int(os.environ.get("N_EXPERIMENTS", "40"))
N_SIZES = int(os.environ.get("N_SIZES", "20"))
N_MIN = float(os.environ.get("N_MIN", "1000"))
N_MAX = float(os.environ.get("N_MAX", "100000"))
INIT_SD = float(os.environ.get("INIT_SD", "0.1"))
MAXITER = int(os.environ.get("MAXITER", "5000"))  # optimiser iterations per fit

D = 8
ETA0 = np.eye(D)[0]
NU0 = 0.001
BETA = np.ones(D) / (D if os.environ.get("BETA_SCALE") == "1/d" else np.sqrt(D))  # 1_d/sqrt(d) (default) or 1_d/d
TAU = 1.0
ETA = -ETA0
NU = 0.001
B0 = np.sqrt(NU0 / 2.0)  # Laplace scale with variance nu0


def sample(rng, n):
    x = rng.standard_normal((n, D))
    g = 1.0 / (1.0 + np.exp(-(x @ BETA + TAU)))          # weight of the prompt
    prompt = rng.random(n) < g
    y = np.where(prompt, np.tanh(x @ ETA) + np.sqrt(NU) * rng.standard_normal(n),
                 np.tanh(x @ ETA0) + rng.laplace(0.0, B0, n))
    return x, y


def negll_grad(p, x, y, log_f0):
    beta, tau, eta, lnu = p[:D], p[D], p[D + 1:2 * D + 1], p[-1]
    nu = np.exp(lnu)
    z = x @ np.stack([beta, eta], axis=1)
    s = z[:, 0] + tau
    log_w1 = -np.logaddexp(0.0, -s)      # log sigmoid(s): prompt weight
    log_w0 = -np.logaddexp(0.0, s)
    m1 = np.tanh(z[:, 1])
    r1 = y - m1
    log_f1 = -0.5 * np.log(2 * np.pi * nu) - r1 ** 2 / (2 * nu)
    a0, a1 = log_w0 + log_f0, log_w1 + log_f1
    lp = np.logaddexp(a0, a1)
    resp = np.exp(a1 - lp)               # posterior probability of the prompt
    w1 = np.exp(log_w1)
    n = len(y)
    g_s = resp - w1
    gb, ge = (x.T @ np.stack([g_s, resp * r1 / nu * (1 - m1 ** 2)], axis=1)).T
    g_beta, g_eta = gb, ge
    g_tau = g_s.sum()
    g_lnu = np.sum(resp * (r1 ** 2 / (2 * nu) - 0.5))
    grad = np.concatenate([g_beta, [g_tau], g_eta, [g_lnu]])
    return -lp.sum() / n, -grad / n


# eta enters through tanh(eta^T x) with noise variance 0.001: its curvature is ~1/nu times the
# others'; optimise over eta / sqrt(nu*) so that L-BFGS sees a well-conditioned problem.
SCALE = np.ones(2 * D + 2)
SCALE[D + 1:2 * D + 1] = np.sqrt(NU)


def scaled(q, x, y, log_f0):
    v, g = negll_grad(q * SCALE, x, y, log_f0)
    return v, g * SCALE


def mle(x, y, rng):
    log_f0 = -np.log(2 * B0) - np.abs(y - np.tanh(x @ ETA0)) / B0
    p0 = np.concatenate([BETA + INIT_SD * rng.standard_normal(D), [TAU + INIT_SD * rng.standard_normal()],
                         ETA + INIT_SD * rng.standard_normal(D), [np.log(NU) + INIT_SD * rng.standard_normal()]])
    res = minimize(scaled, p0 / SCALE, args=(x, y, log_f0), jac=True, method="L-BFGS-B",
                   options={"maxiter": MAXITER, "gtol": 1e-10, "ftol": 1e-15})
    p = res.x * SCALE
    return p[:D], p[D], p[D + 1:2 * D + 1], np.exp(p[-1])


def main():
    rng = np.random.default_rng(SEED)
    sizes = np.unique(np.round(np.geomspace(N_MIN, N_MAX, N_SIZES)).astype(int))
    errs = np.zeros((len(sizes), 4))
    for i, n in enumerate(sizes):
        for _ in range(N_EXP):
            x, y = sample(rng, n)
            b, t, e, v = mle(x, y, rng)
            errs[i] += np.array([np.linalg.norm(b - BETA), abs(np.exp(t) - np.exp(TAU)),
                                 np.linalg.norm(e - ETA), abs(v - NU)]) / N_EXP
    logn = np.log(sizes)
    names = ["beta", "tau", "eta", "nu"]
    res = {f"slope_{k}_distinguishable": round(float(np.polyfit(logn, np.log(errs[:, j]), 1)[0]), 4)
           for j, k in enumerate(names)}
    print(json.dumps(res, indent=1))
    print("sizes", sizes.tolist())
    for j, k in enumerate(names):
        print(k, " ".join(f"{e:.3g}" for e in errs[:, j]))
    json.dump(res, open("results.json", "w"), indent=1)


if __name__ == "__main__":
    main()
