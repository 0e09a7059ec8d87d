"""Run the authors' exp/exp-17.py (the code of the README's first figure, Fig. 1) at its defaults -- n = 10,240
power-law features (p_i ∝ i^-1.2), weight decay -1.0 (strong superposition), batch 8192, 40,000 steps, widths
m = 8, 16, ..., 1024 -- and fit the log-log slope of the final loss against m.

exp-17.py is run unchanged except for one line put in front of it: torch.manual_seed(SEED) (the script sets no
seed; SEED=0 here). It saves ../outputs/exp-17-power_-1.00.pt (relative to the folder it runs in), holding the
whole training-loss curve of each width. The final loss of a width is the mean of its last 1,000 steps; the
slope is the least-squares slope of log(final loss) against log(m) over the eight widths (the repository has no
fitting code for the toy model). N_STEPS (40000), DIST (power) and WEIGHT_DECAY (-1.0) are passed through."""
import json
import os
import subprocess
import sys

import numpy as np
import torch

seed = int(os.environ.get("SEED", "0"))
steps = os.environ.get("N_STEPS", "40000")
dist = os.environ.get("DIST", "power")
wd = float(os.environ.get("WEIGHT_DECAY", "-1.0"))
root = os.getcwd()
exp = os.path.join(root, "code", "exp")
run_dir = os.path.join(root, "exp17_run")
os.makedirs(run_dir, exist_ok=True)
os.makedirs(os.path.join(root, "outputs"), exist_ok=True)
src = open(os.path.join(exp, "exp-17.py"), encoding="utf-8").read()
script = os.path.join(run_dir, "exp17_seeded.py")
with open(script, "w", encoding="utf-8") as f:
    f.write(f"import torch\ntorch.manual_seed({seed})\n" + src)
cmd = [sys.executable, script, "--n_steps", steps, "--dist", dist, "--weight_decay", str(wd)]
extra = os.environ.get("EXTRA_ARGS", "")  # e.g. "--n 512 --batch_size 256" for a smoke test only
cmd += extra.split()
subprocess.run(cmd, check=True, cwd=run_dir, env={**os.environ, "PYTHONPATH": exp})
res = torch.load(os.path.join(root, "outputs", f"exp-17-{dist}_{wd:.2f}.pt"), weights_only=False)
m = np.asarray(res["m_ran"], dtype=float)
losses = np.asarray(res["losses"], dtype=float)
window = min(1000, losses.shape[1])
final = losses[:, -window:].mean(axis=1)
slope = float(np.polyfit(np.log(m), np.log(final), 1)[0])
out = {"loss_vs_width_loglog_slope_strong_superposition": slope}
json.dump(out, open(os.path.join(root, "results.json"), "w"), indent=2)
print("final losses by m:", dict(zip(m.astype(int).tolist(), final.round(5).tolist())))
print(json.dumps(out))
