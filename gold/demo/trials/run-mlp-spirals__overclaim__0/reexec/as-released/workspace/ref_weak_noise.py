"""Weakened experiment: evaluate a noisy copy of the released network, not the network itself.

    python3 ref_weak_noise.py IN_NPZ OUT_NPZ

Adds Gaussian noise (numpy.random.default_rng(0)) to every parameter array, with a
standard deviation of 10% of that array's own standard deviation.
"""

import sys

import numpy as np

SEED = 0
NOISE = 0.1  # fraction of each parameter array's standard deviation


def main():
    src, dst = sys.argv[1:3]
    params = dict(np.load(src))
    rng = np.random.default_rng(SEED)
    noisy = {k: v + rng.normal(0.0, NOISE * float(np.std(v)), size=v.shape)
             for k, v in sorted(params.items())}
    np.savez(dst, **noisy)
    print(f"perturbed {len(noisy)} parameter arrays by {NOISE:.0%} of their standard deviation; saved {dst}")


if __name__ == "__main__":
    main()
