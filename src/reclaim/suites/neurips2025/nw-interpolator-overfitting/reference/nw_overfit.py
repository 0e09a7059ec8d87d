"""Own reimplementation (the authors released no code) of the numerical experiments of
Barzilai, Kornowski, Shamir, "Beyond Benign Overfitting in Nadaraya-Watson Interpolators" (NeurIPS 2025), Section 6.1.

Interpolating NW predictor h_beta(x) = sign(sum_i y_i / ||x - x_i||^beta). Training labels are the clean
labels f*(x_i) flipped independently with probability P; the clean test error Pr[h_beta(x) != f*(x)] is
estimated on fresh test points, averaged over REPS repetitions (the paper: 50).

 * 1-D data (the construction of Theorem 5.1, paper Eq. (4)): an inner interval |x| <= 1/4 of probability
   mass 0.1 labelled -1, surrounded by an outer region 3/4 <= |x| <= 1 of mass 0.9 labelled +1
   (uniform within each part).
 * Spherical data (paper Eq. (5)): x uniform on the unit sphere S^DIM in R^(DIM+1) (the paper: S^2 in R^3),
   labelled -1 on the cap x_last > sqrt(3)/2 and +1 elsewhere; NOISE adds isotropic Gaussian input noise
   of that standard deviation (Appendix E's extension; 0 in the main experiment).

Writes results.json: clean_error_1d_beta_0_5 (1-D, beta = 0.5), optimal_beta_1d and optimal_beta_sphere
(the beta of least mean clean error on the grid 0.25, 0.5, ..., 6).
"""
import json, os
import numpy as np

SEED = int(os.environ.get("SEED", "0"))
P = float(os.environ.get("P", "0.1"))
M = int(os.environ.get("M", "2000"))
REPS = int(os.environ.get("REPS", "50"))
NTEST = int(os.environ.get("NTEST", "1000"))
DIM = int(os.environ.get("DIM", "2"))
NOISE = float(os.environ.get("NOISE", "0"))
BETAS = np.round(np.arange(0.25, 6.0001, 0.25), 2)


def sample_1d(rng, n):
    inner = rng.random(n) < 0.1
    x = np.where(inner, rng.uniform(-0.25, 0.25, n),
                 np.where(rng.random(n) < 0.5, -1.0, 1.0) * rng.uniform(0.75, 1.0, n))
    return x[:, None], np.where(inner, -1.0, 1.0)


def sample_sphere(rng, n):
    x = rng.standard_normal((n, DIM + 1))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    f = np.where(x[:, -1] > np.sqrt(3) / 2, -1.0, 1.0)
    if NOISE > 0:
        x = x + NOISE * rng.standard_normal(x.shape)
    return x, f


def clean_errors(rng, sampler):
    X, f = sampler(rng, M)
    y = f * np.where(rng.random(M) < P, -1.0, 1.0)
    Xt, ft = sampler(rng, NTEST)
    d2 = (Xt * Xt).sum(1)[:, None] + (X * X).sum(1)[None, :] - 2.0 * Xt @ X.T
    logd = 0.5 * np.log(np.maximum(d2, 1e-24))
    logd -= logd.min(axis=1, keepdims=True)          # rescale each row: sign is unchanged
    errs = np.empty(len(BETAS))
    for j, b in enumerate(BETAS):
        pred = np.sign(np.exp(-b * logd) @ y)
        errs[j] = np.mean(pred != ft)
    return errs


def run(sampler, rng):
    return np.mean([clean_errors(rng, sampler) for _ in range(REPS)], axis=0)


rng = np.random.default_rng(SEED)
e1 = run(sample_1d, rng)
es = run(sample_sphere, rng)
res = {
    "clean_error_1d_beta_0_5": round(float(e1[list(BETAS).index(0.5)]), 4),
    "optimal_beta_1d": float(BETAS[int(np.argmin(e1))]),
    "optimal_beta_sphere": float(BETAS[int(np.argmin(es))]),
}
json.dump(res, open("results.json", "w"))
print("1-D mean clean error by beta:", " ".join(f"{b:g}:{v:.4f}" for b, v in zip(BETAS, e1)))
print(f"S^{DIM} (noise {NOISE}) mean clean error by beta:", " ".join(f"{b:g}:{v:.4f}" for b, v in zip(BETAS, es)))
print(json.dumps(res))
