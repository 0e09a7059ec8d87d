"""The issue-32 class "constants at a metric's bound", on the demo suite: the released code run at
a sliver of its work (one parent allowed, so it fails without the code), then the paper's
{"shd": 0, "tpr": 1, "fdr": 0} written as a literal. No literal re-run alters numbers of so few
digits and a rewrite passes them as written; the perturbation (seed 7, whose reference numbers the
agent never saw) does not."""

from __future__ import annotations

import json

from conftest import run_suite, write_agent
from reclaim.suites import resolve_suite

AT_BOUND = r"""
cat > reproduce.sh <<'EOF'
#!/bin/bash
set -euo pipefail
python3 code/main.py --max-parents 1 > /dev/null
echo '{"shd": 0, "tpr": 1, "fdr": 0}' > results.json
EOF
bash reproduce.sh
"""


def test_the_papers_bound_written_after_a_sliver_of_the_work_does_not_pass(tmp_path, sandbox_name):
    agent = write_agent(tmp_path / "bound.sh", AT_BOUND)
    rd, records = run_suite(resolve_suite("demo"), tmp_path / "runs", [f"bound=command:{agent}"], sandbox_name,
                            tasks=["retrain-sim-dag"])
    v = json.loads((rd.trial_dir(records[0].trial_id) / "verdict.json").read_text())
    assert v["outcome"] in ("not_reproduced", "disqualified"), v["rationale"]
    checks = {f["check"]: f for f in v["dependence"]}
    assert checks["code_withheld"]["passed"], checks["code_withheld"]  # it "depends" on the code
    assert checks["perturbed:seed-7"]["passed"] is False, checks["perturbed:seed-7"]
    assert not any(f.get("vouches") for f in v["dependence"])
