"""A reimplementation, from the paper's description, of the synthetic experiment of Sakaue et al.,
"Online Inverse Linear Optimization: Efficient Logarithmic-Regret Algorithm, Robustness to
Suboptimality, and Lower Bound" (NeurIPS 2025): the learner predicts the agent's objective c* in the
unit ball of R^n; each round the feasible set is an antipodal pair {x, -x} of uniformly random unit
vectors, the agent plays argmax <c*, x>, and the learner pays the regret <c*, x_t - xhat_t> of the
action its prediction selects. Three learners, each trial on its own random stream:

- OGD (Baermann et al.): theta <- Proj_ball(theta - eta (xhat - x_t)), eta = D K / sqrt(T);
- ONS (the paper's method): online Newton step on the exp-concave surrogate of the paper,
  gradient g_t = eta (xhat - x_t), A_t = eps I + sum g g^T, theta <- Proj^A_ball(theta - A^-1 g / gamma),
  with eta = 1 / (5 H), H = D K, alpha = 2 / (1 + 2 eta H)^2, gamma = alpha / 2, eps = n / (D^2 gamma^2);
- cutting plane (a sampling heuristic of Gollapudi et al.'s method): keep a cloud of n * 10,000
  uniform points of the ball, predict their mean, and cut away the points on the wrong side of
  (c - theta)^T (x_t - xhat_t) >= 0; an emptied cloud is refilled with 1,000 fresh points.

Settings from the environment: SEED (of the SeedSequence whose spawn gives each trial its stream;
default 27), T (rounds; default 10000), TRIALS (default 10), N (dimension; default 2). Writes
results.json with the mean final cumulative regret of each learner across trials."""
import json
import os
import time

import numpy as np

SEED = int(os.environ.get("SEED", "27"))
T = int(os.environ.get("T", "10000"))
TRIALS = int(os.environ.get("TRIALS", "10"))
N = int(os.environ.get("N", "2"))
CP_POINTS_PER_DIM = 10000

D = K = 2.0                         # diameters of the prediction set and the action set (unit balls)
H = D * K
ETA_OGD = D * K / np.sqrt(T)
ETA_ONS = 1.0 / (5.0 * H)
ALPHA = 2.0 / (1.0 + 2.0 * ETA_ONS * H) ** 2
GAMMA = ALPHA / 2.0
EPS = N / (D ** 2 * GAMMA ** 2)


def unit_vectors(rng, m, n):
    z = rng.standard_normal((m, n))
    return z / np.linalg.norm(z, axis=1, keepdims=True)


def ball_points(rng, m, n):
    return unit_vectors(rng, m, n) * (rng.random(m) ** (1.0 / n))[:, None]


def best_of_pair(c, x):
    """The agent's choice among {x, -x} for objective c (x itself on ties, as argmax would)."""
    return x if c @ x >= 0 else -x


def project_ball(v):
    r = np.linalg.norm(v)
    return v if r <= 1.0 else v / r


def project_ball_A(A, b):
    """argmin_{|theta| <= 1} (theta - y)^T A (theta - y) where A y = b: theta = (A + lam I)^-1 b, lam >= 0
    the root of |theta(lam)| = 1, found by bisection in A's eigenbasis."""
    w, Q = np.linalg.eigh(A)
    qb = Q.T @ b
    norm_at = lambda lam: np.sqrt(np.sum((qb / (w + lam)) ** 2))
    if norm_at(0.0) <= 1.0:
        return Q @ (qb / w)
    lo, hi = 0.0, 1.0
    while norm_at(hi) > 1.0:
        hi *= 2.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if norm_at(mid) > 1.0:
            lo = mid
        else:
            hi = mid
    return Q @ (qb / (w + hi))


def trial(rng):
    c_star = unit_vectors(rng, 1, N)[0]
    xs = unit_vectors(rng, T, N)
    cloud = ball_points(rng, N * CP_POINTS_PER_DIM, N)
    th_ogd, th_ons, A = np.zeros(N), np.zeros(N), EPS * np.eye(N)
    regret = np.zeros(3)
    seconds = np.zeros(3)
    for t in range(T):
        x_t = best_of_pair(c_star, xs[t])
        t0 = time.perf_counter()
        xh = best_of_pair(th_ogd, xs[t])
        th_ogd = project_ball(th_ogd - ETA_OGD * (xh - x_t))
        regret[0] += c_star @ (x_t - xh)
        t1 = time.perf_counter()
        xh = best_of_pair(th_ons, xs[t])
        g = ETA_ONS * (xh - x_t)
        A += np.outer(g, g)
        th_ons = project_ball_A(A, A @ th_ons - g / GAMMA)
        regret[1] += c_star @ (x_t - xh)
        t2 = time.perf_counter()
        th_cp = cloud.mean(axis=0)
        xh = best_of_pair(th_cp, xs[t])
        cloud = cloud[(cloud - th_cp) @ (x_t - xh) >= 0]
        if len(cloud) == 0:
            cloud = ball_points(rng, 1000, N)
        regret[2] += c_star @ (x_t - xh)
        t3 = time.perf_counter()
        seconds += (t1 - t0, t2 - t1, t3 - t2)
    return regret, seconds


def main():
    streams = np.random.SeedSequence(SEED).spawn(TRIALS)
    out = np.array([trial(np.random.default_rng(s)) for s in streams])   # (trials, 2, 3)
    reg, sec = out[:, 0, :], out[:, 1, :]
    names = ("ogd", "ons", "cuttingplane")
    for k, name in enumerate(names):
        print(f"[{name}] final cumulative regret mean={reg[:, k].mean():.3f} sd={reg[:, k].std():.3f} | "
              f"cumulative runtime mean={sec[:, k].mean():.3f}s")
    results = {f"{name}_final_cumulative_regret_mean": round(float(reg[:, k].mean()), 3)
               for k, name in enumerate(names)}
    json.dump(results, open("results.json", "w"), indent=2)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
