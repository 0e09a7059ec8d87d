"""Judge validation against the shipped gold set, with figures computed by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reclaim.cli.main import app
from reclaim.judge.evaluate import load_gold, metrics

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
    # By hand: the rule judge gets every baseline right except 'assemble' (it adds two literals
    # that sum to the value): its sum still comes out with the data withheld, so it is judged
    # not_reproduced instead of disqualified on 11 tasks (one holds the sum in a file it left:
    # disqualified). Gold: 12 reproduced, 36 not_reproduced, 36 disqualified; none forged.
    assert r["confusion"] == {
        "reproduced": {"reproduced": 12, "not_reproduced": 0, "disqualified": 0},
        "not_reproduced": {"reproduced": 0, "not_reproduced": 36, "disqualified": 0},
        "disqualified": {"reproduced": 0, "not_reproduced": 11, "disqualified": 25},
    }
    assert r["n"] == 84
    assert r["accuracy"] == pytest.approx(73 / 84)
    assert r["precision"] == 1.0 and r["recall"] == 1.0 and r["f1"] == 1.0
    pe = (12 * 12 + 36 * 47 + 36 * 25) / 84 ** 2
    assert r["kappa"] == pytest.approx((73 / 84 - pe) / (1 - pe))
    assert len(r["disagreements"]) == 11
    assert all("command-assemble" in d["trial"] for d in r["disagreements"])
    table = CliRunner().invoke(app, ["judge-eval", str(GOLD)]).output
    assert "Cohen's kappa 0.786" in table and "F1 1.000" in table
