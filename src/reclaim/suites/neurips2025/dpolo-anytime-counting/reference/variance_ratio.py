"""The authors' strategies for continual counting (code/sequences.py), as their Figure 2 command
builds them (toeplitz_experiments.py --variance --gammas -0.51 --deltas 0 0.51 0.612 -T 2**24), with
the variance ratios it plots printed instead: the anytime algorithm (gamma -0.51, delta 0.51) against
the square-root factorization tuned to the horizon (Opt, Henzinger et al.), over every t <= T.
$T sets the horizon (the paper's: 2**24). The authors' plotting backend (Qt) is not needed."""
import json
import os
import sys
import time

import matplotlib

matplotlib.use("Agg")
matplotlib.use = lambda *a, **k: None  # the authors' modules ask for qtagg, which needs a display
sys.path.insert(0, os.path.abspath("code"))
import numpy as np  # noqa: E402
import sequences as seq  # noqa: E402
import singular_approximation as sa  # noqa: E402

T = int(os.environ.get("T", str(2**24)))
sa.config["cache"] = True  # as the authors' scripts do: intermediate series in ./seq_cache
os.makedirs("seq_cache", exist_ok=True)
t0 = time.time()
vopt = seq.Opt().noise_schedule(T) ** 2
ours = seq.Anytime(-1 / 2, -0.51, delta=0.51, tol=0, asym_order=4)
ratio = ours.noise_schedule(T) ** 2 / vopt
got = {"max_variance_ratio_anytime_over_sqrt_matrix": float(ratio.max()),
       "variance_ratio_at_T": float(ratio[-1])}
print(f"T={T} {ours.name}: max ratio {ratio.max():.4f} at t={int(ratio.argmax()) + 1}, "
      f"ratio at T {ratio[-1]:.4f} ({time.time() - t0:.0f} s)")
json.dump(got, open("results.json", "w"), indent=2)
