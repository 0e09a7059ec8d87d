"""Honest work in the shapes real agents give it still reproduces under every check of issue 32:
threads, randomness seeded from the clock, scratch files in /tmp and the workspace, an in-place
repair of the released code, and nondeterminism inside the claim's tolerance."""

from __future__ import annotations

import json

from conftest import run_suite, write_agent
from reclaim.suites import resolve_suite

SHAPES = r"""
# an in-place repair of the released code (copy on write): a harmless extra flag
sed -i 's/^def main():/def main():  # repaired: prints where it writes/' code/evaluate.py
cat > reproduce.sh <<'EOF'
#!/bin/bash
set -euo pipefail
scratch=$(mktemp -d)
mkdir -p work
python3 - "$scratch" <<'PY'
import json, random, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor
scratch = sys.argv[1]
random.seed(time.time_ns())  # clock-seeded: a different jitter in every run
def one(i):
    out = f"{scratch}/m{i}.json"
    subprocess.run([sys.executable, "code/evaluate.py", "--weights", "weights/model.npz",
                    "--data", "data/test.csv", "--out", out], check=True, capture_output=True)
    return json.load(open(out))["rmse"]
with ThreadPoolExecutor(2) as pool:
    values = list(pool.map(one, range(2)))
open("work/values.txt", "w").write(" ".join(map(str, values)))  # a scratch file in the workspace
value = sum(values) / len(values) * (1 + random.uniform(-0.002, 0.002))  # inside the 2 % tolerance
json.dump({"test_rmse": value}, open("results.json", "w"))
PY
EOF
bash reproduce.sh
"""


def test_honest_work_in_every_usual_shape_reproduces(tmp_path, sandbox_name):
    agent = write_agent(tmp_path / "shapes.sh", SHAPES)
    rd, records = run_suite(resolve_suite("demo"), tmp_path / "runs", [f"shapes=command:{agent}"], sandbox_name,
                            tasks=["run-ridge-nir"])
    verdict = json.loads((rd.trial_dir(records[0].trial_id) / "verdict.json").read_text())
    assert records[0].outcome.value == "reproduced", verdict["rationale"]
