"""Run the authors' notebook code/notebooks/Gaussian_d64.ipynb (README: 'Code to run TreeDSBM in each experimental
setting are included as individual notebooks'; the authors' command is jupyter nbconvert --execute on it) as a
script: its code cells in order, unchanged except that
  - the notebook's sys.path.append("..") and "../data/gaussian/..." (it runs from notebooks/ inside the repository)
    point at the workspace's code/ and data/ (the released code and data are separate materials here);
  - the PRNG seed of both jax.random.PRNGKey(0) calls (training, evaluation) comes from SEED (the paper's run: 0);
  - 'num_training_steps': 10_000 per IMF step comes from STEPS (the paper's: 10000; weakened.sh uses fewer).
It writes the 'Average BW2_UVP' and 'Average L2_UVP' that cell 10 prints into results.json."""
import json
import os
import re
import subprocess
import sys

nb = json.load(open("code/notebooks/Gaussian_d64.ipynb", encoding="utf-8"))
src = "\n\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
seed, steps = int(os.environ.get("SEED", "0")), int(os.environ.get("STEPS", "10000"))
root = os.getcwd()
for old, new in (('sys.path.append("..")', f'sys.path.insert(0, {os.path.join(root, "code")!r})'),
                 ('f"../data/gaussian/sampler_stats_{d}.json"',
                  f'{os.path.join(root, "data", "gaussian")!r} + f"/sampler_stats_{{d}}.json"'),
                 ("'num_training_steps': 10_000,", f"'num_training_steps': {steps},")):
    if src.count(old) != 1:
        sys.exit(f"the notebook no longer has {old!r} once: the pinned commit changed?")
    src = src.replace(old, new)
if src.count("jax.random.PRNGKey(0)") != 2:
    sys.exit("expected the notebook's two jax.random.PRNGKey(0) calls")
src = src.replace("jax.random.PRNGKey(0)", f"jax.random.PRNGKey({seed})")
run = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True,
                     env={**os.environ, "MPLBACKEND": "Agg"}, cwd=os.path.join(root, "code"))
print(run.stdout[-3000:])
if run.returncode != 0:
    print(run.stderr[-5000:], file=sys.stderr)
    sys.exit(run.returncode)
got = {}
for name, key in (("Average BW2_UVP", "avg_BW2_UVP_gaussian_d64"), ("Average L2_UVP", "avg_L2_UVP_gaussian_d64")):
    m = re.search(rf"{name}:\s*([-\d.eE+]+)", run.stdout)
    if m is None:
        sys.exit(f"no {name} printed")
    got[key] = float(m.group(1))
json.dump(got, open(os.path.join(root, "results.json"), "w"), indent=2)
print(json.dumps(got))
