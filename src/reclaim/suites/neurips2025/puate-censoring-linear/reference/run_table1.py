"""Run the authors' Table 1 experiment (code/notebooks/Table 1.ipynb calls
puate.paper_reproduction.run_table_1_experiment, then puate.reporting.summarize_trials) and write
the efficient estimator's MSE, bias and coverage ratio into results.json.

Inputs (environment): N_TRIALS, the number of Monte Carlo trials (the paper's and the notebook's:
5000); SEED, the notebook's BASE_SEED (0): trial t of the censoring setting draws its data from
np.random.default_rng(SEED + t), the case-control setting from SEED + 100000 + t."""
import json
import os
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.join("code", "src"))
warnings.filterwarnings("ignore")

from puate.paper_reproduction import run_table_1_experiment  # noqa: E402
from puate.reporting import combine_summaries, summarize_trials  # noqa: E402

n_trials = int(os.environ.get("N_TRIALS", "5000"))
seed = int(os.environ.get("SEED", "0"))
with tempfile.TemporaryDirectory() as out:
    res = run_table_1_experiment(output_root=out, force=True, n_trials=n_trials, base_seed=seed, verbose=True)
summ = {}
for key in ("censoring", "case_control"):
    r = res[key]
    summ[key] = summarize_trials(r.estimates, r.variances, true_ate=r.true_ate, ci_sample_size=r.ci_sample_size)
print(combine_summaries(summ["censoring"], summ["case_control"]).round(3).to_string())

got = {}
for key, col in (("censoring", "Efficient"), ("censoring", "Efficient (true $g_0$)"),
                 ("case_control", "Efficient"), ("case_control", "Efficient (true $e_0$)")):
    s = summ[key]
    tag = f"{key}_{'efficient_true_prop' if 'true' in col else 'efficient'}"
    got[f"{tag}_mse"] = round(float(s.loc["MSE", col]), 4)
    got[f"{tag}_bias"] = round(float(s.loc["Bias", col]), 4)
    got[f"{tag}_cov_ratio"] = round(float(s.loc["Cov. ratio", col]), 4)
json.dump(got, open("results.json", "w"), indent=2)
print(json.dumps(got, indent=2))
