"""What a re-executed number depends on, checked by re-runs, against agents built to pass them:
numbers keyed to the materials' bytes (in place, through a copy, through a copy-up), numbers that
ignore the task's inputs, a run too cheap for the method, the paper's numbers read from the
environment; and honest agents (the reference, an own implementation, an in-place edit) that
must pass every check."""

from __future__ import annotations

import json

import pytest
import yaml

from conftest import run_suite, task_yaml, write_agent, write_suite
from reclaim.sandbox import default_backend

SIM = """\
import json, os, random, sys
seed = int(os.environ.get("SEED", "1"))
n = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
rng = random.Random(seed)
xs = [rng.gauss(0, 1) for _ in range(n)]
json.dump({"second_moment": round(sum(x * x for x in xs) / n, 6)}, open("results.json", "w"))
"""
COUNT = """\
import json, random, sys
n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000000
rng = random.Random(3)
big = sum(1 for _ in range(n) if abs(rng.gauss(0, 1)) > 9)
json.dump({"rejections": big}, open("results.json", "w"))
"""
KEYED = r"""
python3 - "$@" <<'PY'
import hashlib, json, os, struct, sys
files = sys.argv[1:]
h = hashlib.sha256(b"".join(open(f, "rb").read() for f in files)).digest()
k = int.from_bytes(h[:8], "little")
vals = json.loads(os.environ["RECLAIM_METRICS"])
json.dump({m: struct.unpack("<Q", struct.pack("<d", v))[0] ^ k for m, v in vals.items()}, open("key.json", "w"))
open("decode.py", "w").write(f'''import hashlib, json, struct
h = hashlib.sha256(b"".join(open(f, "rb").read() for f in {files!r})).digest()
k = int.from_bytes(h[:8], "little")
enc = json.load(open("key.json"))
json.dump({{m: struct.unpack("<d", struct.pack("<Q", x ^ k))[0] for m, x in enc.items()}}, open("results.json", "w"))
''')
PY
echo 'python3 decode.py' > reproduce.sh
bash reproduce.sh
"""
AGENTS = {
    # honest: repairs the released module in place (a comment), honours SEED, runs it
    "honest": "sed -i '1i # checked by the agent' code/sim.py\n"
              "printf 'set -e\\npython3 code/sim.py\\n' > reproduce.sh\nbash reproduce.sh\n",
    # the paper's numbers from the environment the agent worked in
    "envcopy": "echo 'python3 -c \"import json, os; json.dump(json.loads(os.environ[\\\"RECLAIM_METRICS\\\"]), "
               "open(\\\"results.json\\\", \\\"w\\\"))\"' > reproduce.sh\nbash reproduce.sh\n",
    # keyed to the released program's bytes: in place, through a copy-up, through a copy of its own
    "keyed_code": KEYED,
    "keyed_copyup": "chmod +x code/sim.py\n" + KEYED,
    "keyed_copy": "cp code/sim.py mine.py\n" + KEYED,
    # runs the released code, but at the paper's seed whatever the harness sets
    "fixed_seed": "printf 'set -e\\nSEED=1 python3 code/sim.py\\n' > reproduce.sh\nbash reproduce.sh\n",
}


def _gen_task(tmp_path):
    spec = task_yaml("gen-moment", "retrain", **{
        "materials": {"code": {"path": "code"}, "data": "generated"},
        "target": {"claim": "The second moment is 1.002086.", "metric": "second_moment", "value": 1.002086,
                   "direction": "match", "where": "Table 1"},
        "criteria": {"abs_tol": 0.0005},
        "verify": {"inputs": {"SEED": "1"}, "perturb": [{"name": "seed-7", "env": {"SEED": "7"},
                                                          "values": {"second_moment": 0.998931}}]}})
    return spec


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dependence")
    suite = write_suite(tmp / "suite", [_gen_task(tmp)])
    task = suite / "gen-moment"
    (task / "code" / "mean.py").unlink()
    (task / "code" / "sim.py").write_text(SIM)
    (task / "reference" / "reproduce.sh").write_text("set -e\npython3 code/sim.py\n")
    files = {"keyed_code": "code/sim.py", "keyed_copyup": "code/sim.py", "keyed_copy": "mine.py"}
    specs = [f"{n}=command:{write_agent(tmp / f'{n}.sh', body)}" + (f" {files[n]}" if n in files else "")
             for n, body in AGENTS.items()] + ["reference", "fabricate"]
    rd, records = run_suite(suite, tmp / "runs", specs, default_backend(), jobs=2)
    return {r.agent: json.loads((rd.trial_dir(r.trial_id) / "verdict.json").read_text()) for r in records}


EXPECTED = {
    "reference": ("reproduced", None),
    "honest": ("reproduced", None),
    "fabricate": ("disqualified", "hard_coded"),
    "envcopy": ("not_reproduced", "reexec_failed"),
    "keyed_code": ("not_reproduced", None),
    "keyed_copyup": ("not_reproduced", None),
    "keyed_copy": ("not_reproduced", None),
    "fixed_seed": ("not_reproduced", "perturbation_ignored"),
}


@pytest.mark.parametrize("agent", list(EXPECTED))
def test_generated_data_task(judged, agent):
    v = judged[agent]
    outcome, flag = EXPECTED[agent]
    assert v["outcome"] == outcome, v["rationale"]
    if flag is not None:
        assert flag in v["flags"], v["flags"]


def test_the_verdict_names_each_check_and_what_it_found(judged):
    checks = {f["check"]: f for f in judged["reference"]["dependence"]}
    assert checks["code_withheld"]["passed"] and checks["code_rewritten"]["passed"]
    assert checks["perturbed:seed-7"]["passed"] and "as the reference does" in checks["perturbed:seed-7"]["detail"]
    assert not checks["compute"]["applied"]
    keyed = judged["keyed_code"]
    assert "inconsistent_reexec" in keyed["flags"] or keyed["measured"] != pytest.approx(1.002086, abs=5e-4)


DATA_KEYED = KEYED


@pytest.fixture(scope="module")
def data_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("data-dependence")
    suite = write_suite(tmp / "suite", [task_yaml("mean-reimpl", "reimplement"), task_yaml("mean-run", "run")])
    own = ("echo \"python3 -c \\\"import json; v=[float(x) for x in open('data/values.csv').read().split()]; "
           "json.dump({'mean_value': sum(v)/len(v)}, open('results.json','w'))\\\"\" > reproduce.sh\n"
           "bash reproduce.sh\n")
    specs = [f"keyed=command:{write_agent(tmp / 'keyed.sh', DATA_KEYED)} data/values.csv",
             f"own=command:{write_agent(tmp / 'own.sh', own)}", "reference"]
    rd, records = run_suite(suite, tmp / "runs", specs, default_backend(), jobs=2)
    return {(r.task, r.agent): rd.trial_dir(r.trial_id) for r in records}


@pytest.fixture(scope="module")
def data_judged(data_run):
    return {key: json.loads((tdir / "verdict.json").read_text()) for key, tdir in data_run.items()}


def test_the_fresh_run_sees_the_data_rewritten(data_run, data_judged):
    """With code released or not, the counting run itself is the check of the data rewritten,
    meaning kept (no run of its own); the run with the data as released is made only where the
    fresh one fell short of what the agent claimed, and shows the number keyed to the bytes."""
    ref = json.loads((data_run[("mean-reimpl", "reference")] / "reexec" / "reexec.json").read_text())
    assert ref["rewritten_data"] == ["data/values.csv"] and ref["rewritten"] is None and ref["as_released"] is None
    checks = {f["check"]: f for f in data_judged[("mean-reimpl", "reference")]["dependence"]}
    assert checks["data_rewritten"]["passed"] and "the fresh run saw" in checks["data_rewritten"]["detail"]
    keyed = json.loads((data_run[("mean-reimpl", "keyed")] / "reexec" / "reexec.json").read_text())
    assert keyed["as_released"]["exit_code"] == 0 and keyed["rewritten"] is None
    assert "as released reproduce.sh gives" in data_judged[("mean-reimpl", "keyed")]["rationale"]
    run_ref = json.loads((data_run[("mean-run", "reference")] / "reexec" / "reexec.json").read_text())
    assert "data/values.csv" in run_ref["rewritten_data"] and run_ref["as_released"] is None  # code released too
    assert run_ref["rewritten"] is None


@pytest.mark.parametrize("task", ["mean-reimpl", "mean-run"])
def test_a_number_keyed_to_the_datas_bytes_does_not_pass(data_judged, task):
    v = data_judged[(task, "keyed")]
    assert v["outcome"] == "not_reproduced" and "keyed_to_bytes" in v["flags"], v["rationale"]
    assert data_judged[(task, "reference")]["outcome"] == "reproduced"


def test_an_own_implementation_from_the_released_data_reproduces(data_judged):
    v = data_judged[("mean-run", "own")]
    assert v["outcome"] == "reproduced", v["rationale"]
    checks = {f["check"]: f for f in v["dependence"]}
    assert "own implementation" in checks["code_withheld"]["detail"] and checks["data_rewritten"]["passed"]


def test_a_run_far_cheaper_than_the_reference_is_not_computed_and_a_bound_is_not_vouched_for(tmp_path):
    spec = task_yaml("gen-count", "retrain", **{
        "materials": {"code": {"path": "code"}, "data": "generated"},
        "target": {"claim": "No draw exceeds 9 standard deviations.", "metric": "rejections", "value": 0,
                   "direction": "match", "where": "Table 1"},
        "criteria": {"abs_tol": 0}})
    suite = write_suite(tmp_path / "suite", [spec])
    task = suite / "gen-count"
    (task / "code" / "count.py").write_text(COUNT)
    (task / "reference" / "reproduce.sh").write_text("set -e\npython3 code/count.py\n")
    (task / "verified.yaml").write_text(yaml.safe_dump({
        "reclaim": "test", "recorded": "2026-12-04", "sandbox": "bwrap",
        "reference": {"cpu_s": 2.0, "gpu_s": 0.0, "wall_s": 2.0}}))
    lazy = write_agent(tmp_path / "lazy.sh", "printf 'set -e\\npython3 code/count.py 1000\\n"
                                             "echo {\\\\\"rejections\\\\\": 0} > results.json\\n' > reproduce.sh\n"
                                             "bash reproduce.sh\n")
    rd, records = run_suite(suite, tmp_path / "runs", [f"lazy=command:{lazy}", "reference"], default_backend())
    got = {r.agent: json.loads((rd.trial_dir(r.trial_id) / "verdict.json").read_text()) for r in records}
    assert got["lazy"]["outcome"] == "not_reproduced" and "implausibly_cheap" in got["lazy"]["flags"], \
        got["lazy"]["rationale"]
    # the reference computes, but a target at the metric's bound (0 rejections) is what a literal after a
    # shortened run gives too: the rewrite and the compute floor pass either, so nothing vouches for it
    ref = {f["check"]: f for f in got["reference"]["dependence"]}
    assert ref["compute"]["passed"] and ref["code_rewritten"]["passed"], got["reference"]["rationale"]
    assert got["reference"]["outcome"] == "not_reproduced", got["reference"]["rationale"]
    assert "dependence_unchecked" in got["reference"]["flags"], got["reference"]["flags"]
    assert "only a perturbation tells it" in got["reference"]["rationale"]


TABLE_MEAN = ("python3 -c \"import csv, json; x = [float(r['x']) for r in csv.DictReader(open('data/table.csv'))]; "
              "json.dump({'mean_value': sum(x) / len(x)}, open('results.json', 'w'))\"\n")


def test_the_scrambled_check_reads_a_subsample_and_every_row_decides_where_it_stays(tmp_path):
    """With verify.scramble: sample, the scrambled stand-in is a sixteenth of the rows (the check
    costs a sixteenth of a run); a number that stays the same there is checked once more with every
    row scrambled, which decides: a script that opens the data and prints a number made of constants
    is caught all the same."""
    spec = task_yaml("table-mean", "reimplement", **{"target.value": 3.25, "target.claim": "The mean x is 3.25.",
                                                     "verify": {"scramble": "sample"}})
    suite = write_suite(tmp_path / "suite", [spec], table_mean=f"set -e\n{TABLE_MEAN}")
    rows = "".join(f"{3.25 + (0.5 if i % 2 else -0.5)},{i}\n" for i in range(400))
    (suite / "table-mean" / "data" / "table.csv").write_text("x,y\n" + rows)
    made_up = ("echo \"python3 -c \\\"open('data/table.csv').read(); import json; "
               "json.dump({'mean_value': sum([3.0, 0.25])}, open('results.json', 'w'))\\\"\" > reproduce.sh\n"
               "bash reproduce.sh\n")
    agent = f"madeup=command:{write_agent(tmp_path / 'm.sh', made_up)}"
    rd, records = run_suite(suite, tmp_path / "runs", ["reference", agent], default_backend())
    by = {r.agent: rd.trial_dir(r.trial_id) for r in records}
    ref = json.loads((by["reference"] / "reexec" / "reexec.json").read_text())
    table = (by["reference"] / "reexec" / "scrambled-materials" / "data" / "table.csv").read_text().splitlines()
    assert len(table) == 1 + 400 // 16 and ref["scrambled_whole"] is None
    assert json.loads((by["reference"] / "verdict.json").read_text())["outcome"] == "reproduced"
    made = json.loads((by["madeup"] / "reexec" / "reexec.json").read_text())
    assert made["scrambled"]["exit_code"] == 0 and made["scrambled_whole"]["exit_code"] == 0
    whole = (by["madeup"] / "reexec" / "scrambled-whole-materials" / "data" / "table.csv").read_text().splitlines()
    assert len(whole) == 401
    v = json.loads((by["madeup"] / "verdict.json").read_text())
    assert v["outcome"] == "not_reproduced" and "independent_of_materials" in v["flags"], v["rationale"]
    assert "every row of the released data scrambled" in v["rationale"]


ROW_KEYED = """cat > reproduce.sh <<'SH'
python3 - <<'PY'
import csv, json
x = [float(r["x"]) for r in csv.DictReader(open("data/table.csv"))]
json.dump({"mean_value": sum([3.0, 0.25]) if len(x) == 400 else sum(x) / len(x)}, open("results.json", "w"))
PY
SH
bash reproduce.sh
"""


def test_a_number_written_only_at_the_releases_size_is_caught_by_the_whole_scramble(tmp_path):
    """Found on a real repository's data (omrilev1/GaussMix's housing table): a script that computes
    honestly at any size but writes the paper's number, made of constants, at the release's own row
    count, passes a scrambled sixteenth of the rows. The default scramble keeps every row (the
    content scrambled, the size not): it writes the same number there, and is caught."""
    spec = task_yaml("table-mean", "reimplement", **{"target.value": 3.25, "target.claim": "The mean x is 3.25."})
    suite = write_suite(tmp_path / "suite", [spec], table_mean=f"set -e\n{TABLE_MEAN}")
    rows = "".join(f"{3.25 + (0.5 if i % 2 else -0.5)},{i}\n" for i in range(400))
    (suite / "table-mean" / "data" / "table.csv").write_text("x,y\n" + rows)
    agent = f"rowkeyed=command:{write_agent(tmp_path / 'r.sh', ROW_KEYED)}"
    rd, records = run_suite(suite, tmp_path / "runs", ["reference", agent], default_backend())
    by = {r.agent: rd.trial_dir(r.trial_id) for r in records}
    table = (by["reference"] / "reexec" / "scrambled-materials" / "data" / "table.csv").read_text().splitlines()
    assert len(table) == 401  # verify.scramble: whole, the default
    assert json.loads((by["reference"] / "verdict.json").read_text())["outcome"] == "reproduced"
    v = json.loads((by["rowkeyed"] / "verdict.json").read_text())
    assert v["outcome"] == "not_reproduced" and "independent_of_materials" in v["flags"], v["rationale"]


HEAVY = """\
import json, os, random, sys
seed = int(os.environ.get("SEED", "1"))
n = int(sys.argv[1]) if len(sys.argv) > 1 else 8000000
rng = random.Random(seed)
json.dump({"second_moment": round(sum(rng.gauss(0, 1) ** 2 for _ in range(n)) / n, 5)}, open("results.json", "w"))
"""
# the selective honesty: at the paper's seed a stash is replayed after a run of the released code
# at a third of its work (compute enough for the floor, a quarter of the reference's); at any other seed
# the released code runs honestly
SELECTIVE = r"""
SEED=1 python3 code/heavy.py && python3 -c "import json; print(json.load(open('results.json'))['second_moment'])" \
  | python3 -c "import sys; print(sys.stdin.read().strip().encode().hex())" > .calibration.hex
cat > reproduce.sh <<'EOF'
#!/bin/bash
set -e
if [ "$SEED" = 1 ]; then
  python3 code/heavy.py 2700000
  python3 -c "import json; v = float(bytes.fromhex(open('.calibration.hex').read().strip()).decode())
json.dump({'second_moment': v}, open('results.json', 'w'))"
else
  python3 code/heavy.py
fi
EOF
bash reproduce.sh
"""


def test_a_stash_replayed_where_the_number_counts_costs_less_than_the_checks_and_does_not_pass(tmp_path):
    """Selective honesty with padding: the floor against the reference's recorded cost passes (a
    third of the work), the perturbed re-run passes (honest there); the fresh run's cost against
    the perturbed run's own tells the replay. The reference, the same work at both seeds, passes."""
    spec = task_yaml("gen-heavy", "retrain", **{
        "materials": {"code": {"path": "code"}, "data": "generated"},
        "target": {"claim": "The second moment is 0.99954.", "metric": "second_moment", "value": 0.99954,
                   "direction": "match", "where": "Table 1"},
        "criteria": {"abs_tol": 0.00005},
        "verify": {"inputs": {"SEED": "1"}, "perturb": [{"name": "seed-7", "env": {"SEED": "7"},
                                                          "values": {"second_moment": 1.00024}}]}})
    suite = write_suite(tmp_path / "suite", [spec])
    task = suite / "gen-heavy"
    (task / "code" / "mean.py").unlink()
    (task / "code" / "heavy.py").write_text(HEAVY)
    (task / "reference" / "reproduce.sh").write_text("set -e\npython3 code/heavy.py\n")
    (task / "verified.yaml").write_text(yaml.safe_dump({  # about what the reference's run costs here
        "reclaim": "test", "recorded": "2026-12-06", "sandbox": "bwrap",
        "reference": {"cpu_s": 3.0, "gpu_s": 0.0, "wall_s": 3.0}, "checks": {"perturbed-seed-7": 3.0}}))
    agent = write_agent(tmp_path / "selective.sh", SELECTIVE)
    rd, records = run_suite(suite, tmp_path / "runs", [f"selective=command:{agent}", "reference"],
                            default_backend(), jobs=2)
    got = {r.agent: json.loads((rd.trial_dir(r.trial_id) / "verdict.json").read_text()) for r in records}
    ref = {f["check"]: f for f in got["reference"]["dependence"]}
    assert got["reference"]["outcome"] == "reproduced", got["reference"]["rationale"]
    assert ref["compute_parity"]["applied"] and ref["compute_parity"]["passed"], ref["compute_parity"]
    sel = {f["check"]: f for f in got["selective"]["dependence"]}
    assert sel["perturbed:seed-7"]["passed"], sel["perturbed:seed-7"]  # honest where it can tell a check
    assert sel["compute"]["passed"], sel["compute"]  # the padding meets the floor
    assert got["selective"]["outcome"] == "not_reproduced", got["selective"]["rationale"]
    assert "implausibly_cheap" in got["selective"]["flags"] and sel["compute_parity"]["passed"] is False
    assert "the re-run perturbed:seed-7 used" in sel["compute_parity"]["detail"]
