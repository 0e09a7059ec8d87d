"""Claims with several numbers, plausibility bounds, generated data and re-execution modes:
what the spec accepts, and one clear message for what it does not."""

from __future__ import annotations

import math

import pytest

from conftest import DELETE, task_yaml, write_suite
from reclaim.judge.criteria import acceptance
from reclaim.spec import Level, SpecError, load_suite

MULTI = {"claim": "The method finds the graph: FDR 0.05, TPR 0.9, SHD 3.",
         "metrics": {"fdr": {"value": 0.05, "direction": "lower_is_better", "abs_tol": 0.02},
                     "tpr": {"value": 0.9, "direction": "higher_is_better"},
                     "shd": {"value": 3, "direction": "lower_is_better", "abs_tol": 1, "where": "Table 2"}}}


def _load(tmp_path, **overrides):
    suite = write_suite(tmp_path / "s", [task_yaml("t", **overrides)])
    return load_suite(suite).tasks[0].spec


def _problem(tmp_path, **overrides):
    suite = write_suite(tmp_path / "s", [task_yaml("t", **overrides)])
    with pytest.raises(SpecError) as info:
        load_suite(suite)
    assert len(info.value.problems) == 1, info.value.problems
    return str(info.value.problems[0])


def test_single_metric_task_is_one_metric(tmp_path):
    spec = _load(tmp_path)
    [m] = spec.metrics()
    assert (m.name, m.value, m.direction.value, m.required) == ("mean_value", 3.194, "match", True)
    assert m.criteria.abs_tol == 0.01 and spec.target.primary == "mean_value"


def test_several_metrics_with_their_own_or_the_default_tolerance(tmp_path):
    spec = _load(tmp_path, target=MULTI, criteria={"rel_tol": 0.05, "notes": "all three"})
    got = {m.name: m for m in spec.metrics()}
    assert list(got) == ["fdr", "tpr", "shd"] and all(m.required for m in got.values())
    assert got["fdr"].criteria.abs_tol == 0.02 and got["tpr"].criteria.rel_tol == 0.05
    assert acceptance(got["tpr"]).accepts(0.86) and not acceptance(got["tpr"]).accepts(0.85)
    assert got["shd"].where == "Table 2" and spec.target.primary == "fdr"


def test_require_names_the_metrics_that_must_hold(tmp_path):
    spec = _load(tmp_path, target={**MULTI, "require": ["tpr", "shd"]}, criteria={"abs_tol": 0.05})
    assert [m.name for m in spec.metrics() if m.required] == ["tpr", "shd"]
    assert spec.target.primary == "tpr"


@pytest.mark.parametrize("overrides, words", [
    ({"target.metrics": MULTI["metrics"]}, "either metric/value/direction or metrics"),
    ({"target": {**MULTI, "require": ["fpr"]}, "criteria": {"abs_tol": 1}}, "require names metrics not in metrics"),
    ({"target": MULTI, "criteria": {"notes": "no tolerance"}}, "target.metrics.tpr: give abs_tol"),
    ({"target.value": DELETE}, "missing value"),
    ({"criteria": {"notes": "x"}}, "criteria: give abs_tol, rel_tol or interval"),
    ({"target": {**MULTI, "metrics": {"bad key": {"value": 1, "direction": "match", "abs_tol": 1}}}},
     "not valid results.json keys"),
    ({"criteria": {"abs_tol": 0.01, "max_better": 0.1}}, "match is two-sided already"),
    ({"criteria": {"interval": [3, 4], "max_better": 0.1}}, "an interval is bounded already"),
])
def test_bad_claims_get_one_clear_message(tmp_path, overrides, words):
    assert words in _problem(tmp_path, **overrides)


def test_max_better_in_the_spec(tmp_path):
    spec = _load(tmp_path, **{"target.direction": "higher_is_better", "criteria": {"abs_tol": 0.01, "max_better": 0.5}})
    acc = acceptance(spec.metrics()[0])
    assert acc.accepts(3.6) and not acc.accepts(3.7)
    spec = _load(tmp_path / "b", **{"target.direction": "higher_is_better", "criteria": {"abs_tol": 0.01,
                                                                                         "max_better": math.inf}})
    assert acceptance(spec.metrics()[0]).accepts(1e9)


def test_generated_data_is_released_but_nothing_to_fetch(tmp_path):
    spec = _load(tmp_path, level="retrain", **{"materials.data": "generated"})
    assert spec.level == Level.retrain and spec.materials.data_generated
    assert spec.materials.released_level() == Level.retrain
    assert list(spec.materials.allowed(Level.retrain)) == ["code"] and spec.withheld() == []
    assert "needs the code" in _problem(tmp_path / "b", **{"materials": {"data": "generated"}})


def test_evaluate_mode_needs_the_reference_cost(tmp_path):
    spec = _load(tmp_path, **{"budget.reexec": {"mode": "evaluate", "reference_gpu_hours": 2}})
    assert spec.budget.reexec.mode.value == "evaluate" and spec.budget.reexec.entrypoint == "evaluate.sh"
    assert spec.budget.reexec.min_fraction == 0.25
    assert "needs reference_gpu_hours" in _problem(tmp_path / "b", **{"budget.reexec": {"mode": "evaluate"}})
