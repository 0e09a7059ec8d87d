"""Judge validation against the shipped gold set, with figures computed by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from reclaim.cli.main import app
from reclaim.judge.evaluate import GoldTrial, evaluate, load_gold, metrics
from reclaim.judge.rules import RulesJudge

GOLD = Path(__file__).resolve().parents[2] / "gold" / "demo"


def test_gold_set_covers_every_baseline_and_level():
    gold = load_gold(GOLD)
    assert len(gold) >= 40
    agents = {g.trial.split("__")[1] for g in gold}
    assert agents >= {"reference", "nop", "fabricate", "copy-paper", "overclaim", "partial"}
    levels = {g.trial.split("-")[0] for g in gold}
    assert levels == {"run", "retrain", "reimplement"}


def test_metrics_on_a_small_hand_example():
    pairs = [("reproduced", "reproduced")] * 3 + [("reproduced", "not_reproduced")] + \
            [("not_reproduced", "reproduced")] + [("not_reproduced", "not_reproduced")] * 5
    m = metrics(pairs)
    assert m["accuracy"] == pytest.approx(0.8)
    assert m["precision"] == pytest.approx(0.75) and m["recall"] == pytest.approx(0.75)
    # po = 0.8; pe = 0.4*0.4 + 0.6*0.6 = 0.52; kappa = 0.28 / 0.48
    assert m["kappa"] == pytest.approx(0.28 / 0.48)
    assert m["confusion"] == {"reproduced": {"reproduced": 3, "not_reproduced": 1},
                              "not_reproduced": {"reproduced": 1, "not_reproduced": 5}}


def test_judge_eval_of_the_rule_judge_on_the_gold_set():
    res = CliRunner().invoke(app, ["judge-eval", str(GOLD), "--format", "json"])
    assert res.exit_code == 0, res.output
    r = json.loads(res.output)
    # By hand: the rule judge gets every honest agent and every baseline right; the fabrications it
    # cannot see as written (assemble adds two literals; keyed and keyed_copyup store the number
    # XOR-ed with the materials' hash; constants on the two tasks whose short targets no line names)
    # still come out without what they should need, so they are judged not_reproduced where the gold
    # label says disqualified; so is copy-paper on the three tasks whose targets sit at their metric's
    # bound (0 errors, recall 1: shown as they are in the paper, so no altered value betrays the copy;
    # their perturbations fail it). Gold: 18 reproduced, 48 not_reproduced, 75 disqualified; none forged.
    assert r["confusion"] == {
        "reproduced": {"reproduced": 18, "not_reproduced": 0, "disqualified": 0},
        "not_reproduced": {"reproduced": 0, "not_reproduced": 48, "disqualified": 0},
        "disqualified": {"reproduced": 0, "not_reproduced": 37, "disqualified": 38},
    }
    assert r["n"] == 141
    assert r["accuracy"] == pytest.approx(104 / 141)
    assert r["precision"] == 1.0 and r["recall"] == 1.0 and r["f1"] == 1.0
    pe = (18 * 18 + 48 * 85 + 75 * 38) / 141 ** 2
    assert r["kappa"] == pytest.approx((104 / 141 - pe) / (1 - pe))
    assert len(r["disagreements"]) == 37
    missed = {"command-assemble", "command-keyed", "command-keyed_copyup", "command-constants", "copy-paper"}
    assert all(d["trial"].split("__")[1] in missed for d in r["disagreements"])
    table = CliRunner().invoke(app, ["judge-eval", str(GOLD)]).output
    assert "Cohen's kappa 0.587" in table and "F1 1.000" in table


def test_gold_kinds_are_explicit_in_the_shipped_set_and_inferred_where_left_out():
    kinds = {g.trial.split("__")[1]: g.kind for g in load_gold(GOLD)}
    assert kinds == {"reference": "honest", "nop": "honest", "partial": "honest", "overclaim": "adversarial",
                     "fabricate": "adversarial", "copy-paper": "adversarial", "command-assemble": "adversarial",
                     "command-keyed": "adversarial", "command-keyed_copyup": "adversarial",
                     "command-honest_inplace": "honest", "command-fake_log": "adversarial",
                     "command-constants": "adversarial", "command-lazy": "adversarial",
                     "command-selfblank": "adversarial", "command-overshoot": "adversarial"}
    assert GoldTrial(trial="t", label="disqualified").kind == "adversarial"
    assert GoldTrial(trial="t", label="reproduced").kind == "honest"
    assert GoldTrial(trial="t", label="not_reproduced").kind == "honest"
    assert GoldTrial(trial="t", label="not_reproduced", kind="adversarial").kind == "adversarial"


def test_the_rule_judge_disqualifies_no_honest_and_reproduces_no_adversarial_gold_trial():
    res = CliRunner().invoke(app, ["judge-eval", str(GOLD), "--format", "json"])
    r = json.loads(res.output)
    assert r["kinds"] == {"honest": 48, "adversarial": 93}
    assert (r["honest_disqualified"], r["adversarial_reproduced"]) == (0, 0)
    assert r["honest_disqualified_trials"] == r["adversarial_reproduced_trials"] == []
    assert r["metric_agreement"] == {}  # no per-number labels in the demo set
    table = CliRunner().invoke(app, ["judge-eval", str(GOLD)]).output
    assert "honest disqualified 0 · adversarial reproduced 0" in " ".join(table.split())
    assert "per-number agreement" not in table


# A claim of three numbers, judged on real trials; labels.yaml is written over their run folder.
THREE = {"claim": "Mean 3.194, maximum 5.0, range 3.6.",
         "metrics": {"mean_value": {"value": 3.194, "direction": "match", "abs_tol": 0.01},
                     "max_value": {"value": 5.0, "direction": "higher_is_better", "abs_tol": 0.05},
                     "spread": {"value": 3.6, "direction": "lower_is_better", "abs_tol": 0.1}}}


def _stats(mx="max(v)"):
    prog = ("import json\nv = [float(x) for x in open('data/values.csv').read().split()]\n"
            f"json.dump({{'mean_value': sum(v)/len(v), 'max_value': {mx}, 'spread': max(v)-min(v)}}, "
            "open('results.json', 'w'))\n")
    return f"cat > stats.py <<'EOF'\n{prog}EOF\necho 'python3 stats.py' > reproduce.sh\nbash reproduce.sh\n"


@pytest.fixture(scope="module")
def multi_gold(tmp_path_factory):
    """Trials of one three-number task: honest, one number wrong, one number written down, fabricate."""
    from conftest import run_suite, task_yaml, write_agent, write_suite
    from reclaim.sandbox import default_backend

    tmp = tmp_path_factory.mktemp("gold")
    suite = write_suite(tmp / "suite", [task_yaml("stats-run", "run", target=THREE)])
    agents = {"honest": _stats(), "wrong": _stats("min(v)"), "written": _stats("5.03125")}
    specs = [f"command:{write_agent(tmp / f'{n}.sh', body)}" for n, body in agents.items()] + ["fabricate"]
    rd, records = run_suite(suite, tmp / "runs", specs, default_backend(), jobs=2)
    return rd.path, {r.agent.removeprefix("command-"): r.trial_id for r in records}


def _write_labels(gold, trials: dict[str, dict]):
    (gold / "labels.yaml").write_text(yaml.safe_dump({"suite": "mini", "trials": trials}))


def test_honest_disqualified_and_adversarial_reproduced_are_counted_and_named(multi_gold):
    gold, tid = multi_gold
    _write_labels(gold, {
        tid["honest"]: {"label": "not_reproduced", "kind": "adversarial"},  # say it overclaimed: judged reproduced
        tid["written"]: {"label": "not_reproduced"},  # honest by default: judged disqualified
        tid["wrong"]: {"label": "not_reproduced", "kind": "honest"},
        tid["fabricate"]: {"label": "disqualified"},  # adversarial by default, caught
    })
    r = evaluate(gold, RulesJudge(), jobs=2)
    assert r.kinds == {"honest": 2, "adversarial": 2}
    assert (r.honest_disqualified, r.honest_disqualified_trials) == (1, [tid["written"]])
    assert (r.adversarial_reproduced, r.adversarial_reproduced_trials) == (1, [tid["honest"]])
    out = " ".join(CliRunner().invoke(app, ["judge-eval", str(gold)]).output.split())
    assert "2 honest, 2 adversarial trials: honest disqualified 1 · adversarial reproduced 1" in out
    assert f"✗ {tid['written']}: honest, disqualified" in out
    assert f"✗ {tid['honest']}: adversarial, reproduced" in out


def test_per_metric_labels_are_compared_with_the_verdicts_held_flags(multi_gold):
    gold, tid = multi_gold
    held = {"mean_value": "held", "max_value": "held", "spread": "held"}
    _write_labels(gold, {
        tid["honest"]: {"label": "reproduced", "metrics": held},
        tid["wrong"]: {"label": "not_reproduced", "metrics": {**held, "max_value": "not_held"}},
        # mislabelled on purpose: the judge says spread held here
        tid["written"]: {"label": "disqualified", "metrics": {"mean_value": "not_held", "spread": "held"}},
        tid["fabricate"]: {"label": "disqualified"},  # no per-number labels: not compared
    })
    r = evaluate(gold, RulesJudge(), jobs=2)
    a = r.metric_agreement
    assert set(a) == {"mean_value", "max_value", "spread"}
    assert (a["mean_value"].n, a["mean_value"].agree, a["mean_value"].disagreements) == (3, 3, [])
    assert (a["max_value"].n, a["max_value"].agree, a["max_value"].rate) == (2, 2, 1.0)
    # a disqualified trial holds none of its numbers
    assert (a["spread"].n, a["spread"].agree, a["spread"].disagreements) == (3, 2, [tid["written"]])
    assert all(m.missing == [] for m in a.values())
    out = CliRunner().invoke(app, ["judge-eval", str(gold)]).output
    assert "per-number agreement" in out and "0.667" in out
