"""Weakened experiment: evaluate a noisy copy of the released weights, not the weights themselves.

    python3 ref_weak_noise.py IN_NPZ OUT_NPZ

Adds Gaussian noise (numpy.random.default_rng(0)) of half the standard deviation of
the released coefficients to every coefficient and to the bias; the stored
standardisation and feature names are kept, so code/evaluate.py accepts the result.
"""

import sys

import numpy as np

SEED = 0
NOISE = 0.5  # fraction of the coefficients' standard deviation


def main():
    src, dst = sys.argv[1:3]
    model = dict(np.load(src))
    rng = np.random.default_rng(SEED)
    sigma = NOISE * float(np.std(model["w"]))
    model["w"] = model["w"] + rng.normal(0.0, sigma, size=model["w"].shape)
    model["b"] = model["b"] + rng.normal(0.0, sigma, size=np.shape(model["b"]))
    np.savez(dst, **model)
    print(f"perturbed the released weights with N(0, {sigma:.4g}^2) noise; saved {dst}")


if __name__ == "__main__":
    main()
