"""The shipped gold sets are whole: every label loads, names a trial folder that is there with what
a judge reads, and says its kind; per-number labels name numbers of the trial's own claim. Cheap:
nothing is run or judged (test_judge_eval.py judges gold/demo)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from reclaim.judge.evaluate import load_gold
from reclaim.store import TRIAL_JSON, TrialRecord, read_model, trial_spec

GOLD = Path(__file__).resolve().parents[2] / "gold"
SETS = sorted(p.parent for p in GOLD.glob("*/labels.yaml"))


def test_both_gold_sets_are_shipped():
    assert {p.name for p in SETS} >= {"demo", "shapes"}


@pytest.mark.parametrize("gold", SETS, ids=lambda p: p.name)
def test_every_label_loads_and_names_a_whole_trial_folder(gold):
    raw = yaml.safe_load((gold / "labels.yaml").read_text())
    trials = load_gold(gold)
    assert trials and len(trials) == len(raw["trials"])
    on_disk = {p.name for p in (gold / "trials").iterdir()}
    assert on_disk == {g.trial for g in trials}, "labels and trial folders differ"
    for g in trials:
        tdir = gold / "trials" / g.trial
        assert raw["trials"][g.trial].get("kind") in ("honest", "adversarial"), f"{g.trial}: kind not given"
        for name in ("trace.jsonl", "verdict.json"):
            assert (tdir / name).exists(), f"{g.trial}: no {name}"
        # git keeps no empty folder: an agent that wrote nothing (the nop agents) has no workspace
        # in a clean clone, which the judge reads as an empty one (test_judge_eval judges them)
        assert (tdir / "workspace").is_dir() or "__nop__" in g.trial, f"{g.trial}: no workspace"
        rec = read_model(tdir / TRIAL_JSON, TrialRecord)
        assert rec is not None and rec.trial_id == g.trial
        spec = trial_spec(tdir)
        assert spec.id == rec.task
        assert set(g.metrics) <= {m.name for m in spec.metrics()}, f"{g.trial}: per-number label of no number"


def test_the_shapes_set_holds_honest_and_adversarial_trials_of_every_task():
    gold = load_gold(GOLD / "shapes")
    tasks = {g.trial.split("__")[0] for g in gold}
    assert len(tasks) == 6
    for task in tasks:
        kinds = {g.kind for g in gold if g.trial.startswith(task + "__")}
        assert kinds == {"honest", "adversarial"}, task
    assert any(g.metrics for g in gold)
