"""Run the authors' LSVI variable-selection experiment on the Concrete data (one repetition) and write results.json.

The authors' script (code/LSVI/experiments/bayesianSelectionVariable/concrete/Bernoulli_vs_ConcreteStrengthDataset.py)
runs N_repeat=3 repetitions of `lsvi` (n_samples=5*10**4, n_iter=25, lr=0.5, product-of-Bernoulli family, initial
p=0.5) and its notebook output/read.ipynb averages the final inclusion probabilities into output/mean_probas.csv.
Here `experiment()` is called as released, with N_repeat=1 and numpy's global seed set from SEED (the authors' runs are
unseeded); NS / NITER override n_samples / n_iter (the weakened experiment uses fewer iterations).
"""
import json
import os
import pickle
import sys

import numpy as np
import scipy.special

WORKSPACE = os.getcwd()
ROOT = os.path.abspath("code/LSVI")
CONCRETE = os.path.join(ROOT, "experiments", "bayesianSelectionVariable", "concrete")
sys.path.insert(0, ROOT)
os.chdir(CONCRETE)  # the authors' script reads ./concrete_from_particles.csv

from experiments.bayesianSelectionVariable.concrete.Bernoulli_vs_ConcreteStrengthDataset import experiment  # noqa: E402

seed = int(os.environ.get("SEED", "0"))
n_samples = int(os.environ.get("NS", str(5 * 10 ** 4)))
n_iter = int(os.environ.get("NITER", "25"))
lr = 0.5
out = os.path.abspath(f"lsvi_out_seed{seed}_{n_samples}_{n_iter}")
os.makedirs(out, exist_ok=True)
np.random.seed(seed)
experiment(n_samples, n_iter, lr, N_repeat=1, OUTPUT_PATH=out)
with open(os.path.join(out, f"Ber_Concrete__0_{n_samples}_{lr}_{n_iter}_epsilon1em4.pkl"), "rb") as f:
    res = pickle.load(f)["res"]
p = scipy.special.expit(np.asarray(res)[-1][:-1])  # as output/read.ipynb: bernoulli.get_p(res[-1][:-1])
np.savetxt(os.path.join(out, "probas.csv"), p)
# predictor order as generate_concrete_from_particles.py prints it (1-based there): 2 LGC, 43 LGCA x LGC,
# 64 LGFA x LGW, 74 A x LGW
results = {
    "incl_prob_log_cement": float(p[1]),
    "incl_prob_logCA_x_logC": float(p[42]),
    "incl_prob_logFA_x_logW": float(p[63]),
    "incl_prob_age_x_logW": float(p[73]),
}
with open(os.path.join(WORKSPACE, "results.json"), "w") as f:
    json.dump(results, f, indent=2)
print(json.dumps(results))
