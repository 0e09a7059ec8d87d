import json, os, sys
sys.path.insert(0, "code")
import numpy as np
from learn import learn
from metrics import count_accuracy
from simulate import simulate
B, X = simulate(np.random.default_rng(int(os.environ.get("SEED", "1"))), 30, 3000)
A, _ = learn(X, 3)
m = count_accuracy(A, A)
json.dump({k: float(m[k]) for k in ("shd", "tpr", "fdr")}, open("results.json", "w"))
