"""`reclaim tasks validate --with-reference`: the checks are checked. Each reference must reproduce,
each weakened experiment must miss, and where the rules cannot check a target, validate says so."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from conftest import run_suite, task_yaml, write_suite
from reclaim.cli.main import app
from reclaim.report import build_report
from reclaim.report.render import render
from reclaim.store import Outcome, Status

WEAK = "weakened.sh"
# a weakened experiment that misses: the mean of the first two values only (1.875)
HALF_MEAN = """\
set -e
python3 -c "
import json
vals = [float(x) for x in open('data/values.csv').read().split()][:2]
print('mean of two', sum(vals) / len(vals))
json.dump({'mean_value': sum(vals) / len(vals)}, open('results.json', 'w'))
"
"""


@pytest.fixture(autouse=True)
def own_tmp(tmp_path, monkeypatch):
    """validate's run folders go under this test's tmp_path, where they can be looked for."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def _weak(task_id: str, level: str = "reimplement", **overrides) -> dict:
    return task_yaml(task_id, level, **{"reference.weakened": WEAK}, **overrides)


def _validate(suite: Path, sandbox: str, *extra: str):
    return CliRunner().invoke(app, ["tasks", "validate", str(suite), "--with-reference", "--sandbox", sandbox,
                                    *extra])


def _kept(output: str) -> Path:
    m = re.search(r"run folder kept: (\S+)", output)
    assert m, output
    return Path(m.group(1))


def test_a_weakened_experiment_that_meets_the_criteria_fails_validation(tmp_path, sandbox_name):
    suite = write_suite(tmp_path / "suite", [_weak("weak-meets"), _weak("weak-misses")])
    # weak-meets: its "weakened" experiment is the full one, so it reproduces the paper
    (suite / "weak-meets" / "reference" / WEAK).write_text("set -e\npython3 ref_mean.py\n")
    (suite / "weak-misses" / "reference" / WEAK).write_text(HALF_MEAN)
    res = _validate(suite, sandbox_name)
    assert res.exit_code == 1, res.output
    out = res.output
    assert "✓ weak-meets: reference reproduced" in out and "✓ weak-misses: reference reproduced" in out
    assert ("✗ weak-meets: the weakened experiment (reference/weakened.sh) meets the criteria "
            "(mean_value measured 3.19375, criteria |value - 3.194| <= 0.01)") in out
    assert "Fix: make the weakened experiment weaker, or tighten the target" in out
    assert "✓ weak-misses: weakened experiment not_reproduced (mean_value measured 1.875" in out
    assert "1 task(s) whose weakened experiment does not miss the target" in out
    assert "reference misses" not in out
    kept = _kept(out)  # something failed: the run stays, and validate says where
    assert (kept / "trials" / "weak-meets__partial__0" / "verdict.json").is_file()


def test_without_a_weakened_experiment_validate_warns_and_the_adversarial_baselines_skip(tmp_path, sandbox_name):
    suite = write_suite(tmp_path / "suite", [task_yaml("no-weak")])
    res = _validate(suite, sandbox_name)
    assert res.exit_code == 0, res.output
    assert "! no-weak: no weakened experiment (reference.weakened)" in res.output
    assert "overclaim and partial baselines skip this task" in res.output
    assert "every reference reproduces its own target (1 tasks)" in res.output
    assert "run folder kept" not in res.output
    assert not list(tmp_path.glob("reclaim-validate-*"))  # nothing failed: the temp folder is gone

    rd, records = run_suite(suite, tmp_path / "runs", ["reference", "overclaim", "partial"], sandbox_name)
    by = {r.agent: r for r in records}
    for agent in ("overclaim", "partial"):
        rec = by[agent]
        assert (rec.status, rec.outcome, rec.error) == (Status.skipped, Outcome.skipped, None), rec
        assert "no weakened experiment" in rec.note and "no-weak" in rec.note
        assert not (rd.trial_dir(rec.trial_id) / "verdict.json").exists()  # nothing was judged
    assert not rd.retried("no-weak__overclaim__0")  # skipped is not an error: never run again
    report = build_report(rd.spec(), records)
    rows = report.levels["reimplement"].agents
    assert (rows["overclaim"].trials, rows["overclaim"].errors, rows["overclaim"].skipped) == (0, 0, 1)
    assert (rows["reference"].trials, rows["reference"].rate) == (1, 1.0)
    assert report.totals.outcomes["skipped"] == 2 and report.totals.outcomes["error"] == 0
    md = render(report, "markdown")
    assert "Skipped (left out of the rates):" in md and "- no-weak__partial__0: partial needs" in md
    res = CliRunner().invoke(app, ["report", str(rd.path), "--format", "json"])
    assert json.loads(res.output)["totals"]["outcomes"]["skipped"] == 2


def test_targets_the_rules_cannot_check_are_warned_about(tmp_path):
    suite = write_suite(tmp_path / "suite", [
        _weak("short", **{"target.value": 3.2, "target.claim": "The mean is 3.2."}),
        _weak("unbounded", **{"target.direction": "higher_is_better", "criteria.max_better": float("inf")}),
        _weak("exact", **{"target.direction": "lower_is_better", "criteria": {"abs_tol": 0}}),
        _weak("generated", "retrain", **{"materials.data": "generated"}),
        _weak("fine"),
    ])
    for d in suite.iterdir():
        if d.is_dir():
            (d / "reference" / WEAK).write_text(HALF_MEAN)
    res = CliRunner().invoke(app, ["tasks", "validate", str(suite)])
    assert res.exit_code == 0, res.output  # warnings, not failures
    out = res.output
    assert "! short: target value(s) with fewer than 3 significant digits (mean_value = 3.2)" in out
    assert "! unbounded: mean_value is one-sided (higher_is_better) with no bound on its better side " \
           "(max_better: .inf)" in out
    assert "! exact: mean_value is one-sided (lower_is_better) with no bound on its better side (tolerance 0)" in out
    assert "! generated: only the re-run without the released code checks what the number depends on " \
           "(data: generated)" in out
    assert "fine:" not in out
    assert "4 warning(s)" in out


def test_a_failing_reference_shows_its_logs_and_keeps_its_run(tmp_path, sandbox_name):
    suite = write_suite(tmp_path / "suite", [task_yaml("bad-ref")],
                        bad_ref="set -e\npython3 ref_mean.py\necho 'solver diverged at step 7' >&2\nexit 3\n")
    res = _validate(suite, sandbox_name)
    assert res.exit_code == 1, res.output
    out = res.output
    assert "✗ bad-ref: reference not_reproduced" in out
    assert "verdict not_reproduced: reproduce.sh failed on re-execution (exit 3)" in out
    assert "flags: reproduce.sh failed when re-executed (reexec_failed)" in out
    # the tail of the agent's command and of the re-execution, not the verdict's JSON
    assert re.search(r"logs/agent-\d+\.stderr \(last 1 line\(s\)\):\n\s+solver diverged at step 7", out), out
    assert re.search(r"reexec/logs/reexec-\d+\.stderr \(last 1 line\(s\)\):\n\s+solver diverged at step 7", out)
    assert '"judge_version"' not in out
    assert "1 task(s) whose reference misses its own target" in out
    kept = _kept(out)
    assert (kept / "trials" / "bad-ref__reference__0" / "reexec" / "logs").is_dir()
    assert f"trial folder: {kept / 'trials' / 'bad-ref__reference__0'}" in out


GENERATE = """\
import json, sys
n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
x, total = 12345, 0.0
for _ in range(n):  # the paper's simulation: a linear congruential generator, seeded
    x = (1103515245 * x + 12345) % 2**31
    total += x / 2**31
print('simulated', n, 'draws; mean', total / n)
json.dump({'mean_draw': total / n}, open('results.json', 'w'))
"""


def _simulated_mean(n: int) -> float:
    x, total = 12345, 0.0
    for _ in range(n):
        x = (1103515245 * x + 12345) % 2**31
        total += x / 2**31
    return total / n


def test_a_code_only_retrain_task_validates_and_its_reference_reproduces(tmp_path, sandbox_name):
    """materials.data: generated: the released code makes its data. It loads, gets code/ and no data/,
    reproduces, and its verdict says the materials check did not apply (there is nothing to withhold)."""
    full, weak = _simulated_mean(2000), _simulated_mean(20)
    assert abs(full - weak) > 0.01
    spec = task_yaml("code-only", "retrain", **{
        "materials.data": "generated",
        "target": {"claim": f"The mean draw is {full:.4f}.", "metric": "mean_draw", "value": round(full, 4),
                   "direction": "match", "where": "Table 1"},
        "criteria": {"abs_tol": 0.001},
        "reference.weakened": WEAK})
    suite = write_suite(tmp_path / "suite", [spec], code_only="set -e\npython3 code/simulate.py\n")
    d = suite / "code-only"
    (d / "code" / "simulate.py").write_text(GENERATE)
    (d / "reference" / WEAK).write_text("set -e\npython3 code/simulate.py 20\n")  # too few draws
    res = _validate(suite, sandbox_name, "--keep")
    assert res.exit_code == 0, res.output
    out = res.output
    assert "! code-only: only the re-run without the released code checks" in out and "(data: generated)" in out
    assert "✓ code-only: reference reproduced" in out
    assert f"✓ code-only: weakened experiment not_reproduced (mean_draw measured {weak:.6g}" in out
    kept = _kept(out)  # --keep: kept though nothing failed
    tdir = kept / "trials" / "code-only__reference__0"
    trial = json.loads((tdir / "trial.json").read_text())
    assert trial["materials"] == ["code"] and trial["withheld"] == []
    placed = json.loads((tdir / "materials.json").read_text())  # code bound from the cache, no data at all
    assert "code/simulate.py" in placed and not any(p.startswith("data/") for p in placed)
    assert not (tdir / "workspace" / "data").exists()
    verdict = json.loads((tdir / "verdict.json").read_text())
    assert verdict["outcome"] == "reproduced" and "materials_check_not_applicable" in verdict["flags"]
    assert json.loads((tdir / "reexec" / "reexec.json").read_text())["withheld"] is None


SEEDED = """\
import json, os, sys
seed = int(os.environ.get("SEED", "1"))
n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
x, total = seed, 0.0
for _ in range(n):
    x = (1103515245 * x + 12345) % 2**31
    total += x / 2**31
json.dump({'mean_draw': total / n}, open('results.json', 'w'))
"""


def _seeded(seed: int, n: int = 2000) -> float:
    x, total = seed, 0.0
    for _ in range(n):
        x = (1103515245 * x + 12345) % 2**31
        total += x / 2**31
    return total / n


def test_a_task_no_check_can_hold_is_refused_unless_left_to_the_llm_judge(tmp_path):
    spec = task_yaml("pure-sim", "reimplement", **{"materials": {}, "target": {
        "claim": "The mean is 3.194.", "metric": "mean_value", "value": 3.194, "direction": "match", "where": "T1"}})
    suite = write_suite(tmp_path / "suite", [spec])
    res = CliRunner().invoke(app, ["tasks", "validate", str(suite)])
    assert res.exit_code == 1 and "no check in code applies to what its number depends on" in res.output
    assert "verify.perturb" in res.output and "llm_judged" in res.output
    meta = yaml.safe_load((suite / "suite.yaml").read_text())
    (suite / "suite.yaml").write_text(yaml.safe_dump({**meta, "llm_judged": ["pure-sim"]}))
    res = CliRunner().invoke(app, ["tasks", "validate", str(suite)])
    assert res.exit_code == 0, res.output


def test_record_measures_the_references_cost_and_perturbed_numbers(tmp_path, sandbox_name):
    spec = task_yaml("seeded", "reimplement", **{
        "materials": {},
        "target": {"claim": "The mean draw is as in Table 1.", "metric": "mean_draw", "value": round(_seeded(1), 5),
                   "direction": "match", "where": "Table 1"},
        "criteria": {"abs_tol": 0.0001},
        "verify": {"inputs": {"SEED": "1"}, "perturb": [{"name": "seed-9", "env": {"SEED": "9"}}]}})
    suite = write_suite(tmp_path / "suite", [spec], seeded="set -e\npython3 sim.py\n")
    (suite / "seeded" / "reference" / "sim.py").write_text(SEEDED)
    res = CliRunner().invoke(app, ["tasks", "validate", str(suite)])
    assert res.exit_code == 1 and "verify.perturb 'seed-9' has no reference numbers" in res.output
    res = _validate(suite, sandbox_name, "--record")
    assert res.exit_code == 0, res.output
    verified = yaml.safe_load((suite / "seeded" / "verified.yaml").read_text())
    assert verified["perturb"]["seed-9"]["mean_draw"] == pytest.approx(_seeded(9))
    assert verified["reference"]["cpu_s"] > 0 and set(verified["checks"]) == {"perturbed-seed-9"}
    assert "recorded" in res.output and "✓ seeded: reference reproduced" in res.output
    res = CliRunner().invoke(app, ["tasks", "validate", str(suite)])  # the recorded numbers now hold it
    assert res.exit_code == 0, res.output


def test_task_runs_only_the_named_references(tmp_path, sandbox_name):
    """--task: one task's reference verified without re-running every other (a suite's references can
    take hours); every task is still checked offline, and a name not in the suite is refused."""
    suite = write_suite(tmp_path / "suite", [task_yaml("first"), task_yaml("second")])
    res = _validate(suite, sandbox_name, "--task", "second")
    assert res.exit_code == 0, res.output
    assert "running 1 reference(s)" in res.output and "✓ second: reference reproduced" in res.output
    assert "first: reference" not in res.output
    res = _validate(suite, sandbox_name, "--task", "third")
    assert res.exit_code == 2 and "--task third: no such task" in res.output


def test_record_says_where_the_checks_cost_more_than_a_quarter_of_the_run():
    """Every reproduced trial pays for the checks of its number again: a perturbation at the paper's
    full size doubles what verifying it costs, and validate --record says so, naming the fix."""
    from reclaim.cli.validation import costly_checks
    from reclaim.spec import ReferenceCost, Verified

    def verified(**checks: float) -> Verified:
        return Verified(reclaim="t", recorded="2026-12-05", sandbox="bwrap", checks=checks,
                        reference=ReferenceCost(cpu_s=100.0, wall_s=100.0))

    said = costly_checks(verified(**{"code-withheld": 0.1, "perturbed-seed-7": 98.0}))
    assert said is not None and "0.98x" in said and "perturbed-seed-7" in said and "posing-a-paper" in said
    assert costly_checks(verified(**{"withheld": 0.2, "scrambled": 6.5, "perturbed-small": 9.0})) is None
    said = costly_checks(verified(**{"withheld": 0.2, "scrambled": 97.0}))
    assert said is not None and "verify.scramble: sample" in said and "docs/judges.md" in said


CHECKSUMMED = """\
set -e
# the released loader's own guard: every data file's md5 against the list it ships with
echo "$(cat checksum.txt)  data/values.csv" | md5sum -c --quiet
python3 code/mean.py
"""


def test_a_reference_whose_code_checks_its_files_bytes_is_told_to_declare_it(tmp_path, sandbox_name):
    import hashlib

    from conftest import VALUES

    suite = write_suite(tmp_path / "suite", [task_yaml("summed", "retrain")], summed=CHECKSUMMED)
    (suite / "summed" / "reference" / "checksum.txt").write_text(hashlib.md5(VALUES.encode()).hexdigest())
    res = _validate(suite, sandbox_name)
    assert res.exit_code == 1, res.output
    out = " ".join(res.output.split())
    assert "fell short where the released data were rewritten, meaning kept" in out, out
    assert 'verify: as_released: {data: "why"}' in out
    spec = yaml.safe_load((suite / "summed" / "task.yaml").read_text())
    spec["verify"] = {"as_released": {"data": "the loader checks each file's md5 against the list it ships"}}
    (suite / "summed" / "task.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    res = _validate(suite, sandbox_name)
    assert res.exit_code == 0, res.output
