"""Run the authors' notebook (code/oilo_experiment.ipynb, its one code cell) as they did, with the
seed of its SeedSequence taken from $SEED (the paper's run: 27) and $T rounds (10000), and write
the final-horizon regrets it prints into results.json."""
import json
import os
import re
import subprocess
import sys

nb = json.load(open("code/oilo_experiment.ipynb", encoding="utf-8"))
src = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
seed, rounds = os.environ.get("SEED", "27"), os.environ.get("T", "10000")
for old, new in (("np.random.SeedSequence(27)", f"np.random.SeedSequence({int(seed)})"),
                 ("T = 10000 ", f"T = {int(rounds)} ")):
    if old not in src:
        sys.exit(f"the notebook no longer has {old!r}: the pinned commit changed?")
    src = src.replace(old, new)
out = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, check=True,
                     env={**os.environ, "MPLBACKEND": "Agg"}).stdout
print("\n".join(line for line in out.splitlines() if "Round" not in line))
got = {}
for name, key in (("OGD", "ogd"), ("ONS", "ons"), ("CuttingPlane", "cuttingplane")):
    m = re.search(rf"\[{name}\]\s+Regret \(T\): mean=([-\d.]+), sd=([-\d.]+)", out)
    if m is None:
        sys.exit(f"no final regret printed for {name}")
    got[f"{key}_final_cumulative_regret_mean"] = float(m.group(1))
    if key == "ons":
        got["ons_final_cumulative_regret_sd"] = float(m.group(2))
json.dump(got, open("results.json", "w"), indent=2)
print(json.dumps(got))
