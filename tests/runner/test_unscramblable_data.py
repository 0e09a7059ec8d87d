"""Released data of a format no scrambler reads (a binary file, a package archive): the scrambled
re-run would be the fresh one again, so it is not run, and the perturbations decide.

Before, the scrambled re-run ran all the same, gave the same number on the same bytes, and stopped
every later check: honest work was judged not_reproduced (dependence_unchecked), after paying for one
more full run. Found verifying tight-genbounds-mlp-agreement, whose data is a Debian package."""

from __future__ import annotations

import json
import struct

from conftest import VALUES, run_suite, task_yaml, write_agent, write_suite

READ_BIN = """\
import json, os, struct
raw = open('data/values.bin', 'rb').read()
vals = struct.unpack(f'<{len(raw) // 8}d', raw)
json.dump({'mean_value': int(os.environ.get('SCALE', '1')) * sum(vals) / len(vals)}, open('results.json', 'w'))
"""

PRINTS_IT = """\
cat > reproduce.sh <<'SH'
set -e
python3 - <<'PY'
import json
open('data/values.bin', 'rb').read()  # fails without the data, and owes nothing to it
kept = [1.5, 2.25, 3.125, 4.0625, 5.03125]  # the data copied into the program once, its setting ignored
json.dump({'mean_value': sum(kept) / len(kept)}, open('results.json', 'w'))
PY
SH
bash reproduce.sh
"""


def test_a_perturbation_decides_where_the_data_cannot_be_scrambled(tmp_path, sandbox_name):
    spec = task_yaml("binary-data", "reimplement", **{
        "verify": {"inputs": {"SCALE": "1"}, "perturb": [{"name": "double", "env": {"SCALE": "2"},
                                                          "values": {"mean_value": 6.3875}}]}})
    suite = write_suite(tmp_path / "suite", [spec])
    task = suite / "binary-data"
    (task / "data" / "values.csv").unlink()
    (task / "data" / "values.bin").write_bytes(b"".join(struct.pack("<d", float(x)) for x in VALUES.split()))
    (task / "reference" / "ref_mean.py").write_text(READ_BIN)
    cheat = write_agent(tmp_path / "prints.sh", PRINTS_IT)
    rd, records = run_suite(suite, tmp_path / "runs", ["reference", f"command:{cheat}"], sandbox_name)
    out = {r.agent: r for r in records}

    honest = rd.trial_dir(out["reference"].trial_id)
    verdict = json.loads((honest / "verdict.json").read_text())
    assert out["reference"].outcome.value == "reproduced", verdict["rationale"]
    assert "content_check_not_applicable" in verdict["flags"]
    checks = {f["check"]: f for f in verdict["dependence"]}
    assert checks["materials_scrambled"]["applied"] is False and checks["perturbed:double"]["passed"], checks
    rx = json.loads((honest / "reexec" / "reexec.json").read_text())
    assert rx["scrambled"]["ran"] is False  # not a second full run on the same bytes
    assert not (honest / "reexec" / "scrambled").exists()

    (other,) = [r for r in records if r.agent != "reference"]
    cheated = json.loads((rd.trial_dir(other.trial_id) / "verdict.json").read_text())
    assert other.outcome.value != "reproduced", cheated["rationale"]
    assert "perturbation_ignored" in cheated["flags"], cheated
