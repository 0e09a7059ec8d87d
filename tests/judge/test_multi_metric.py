"""Claims of several numbers, judged on real trials: every required number must hold, any one
written into a program disqualifies, and a number far better than the paper is not accepted."""

from __future__ import annotations

import json

import pytest

from conftest import run_suite, task_yaml, write_agent, write_suite
from reclaim.store import VERDICT_JSON

TARGET = {"claim": "Mean 3.194, maximum 5.0, range 3.6.",
          "metrics": {"mean_value": {"value": 3.194, "direction": "match", "abs_tol": 0.01},
                      "max_value": {"value": 5.0, "direction": "higher_is_better", "abs_tol": 0.05},
                      "spread": {"value": 3.6, "direction": "lower_is_better", "abs_tol": 0.1}}}


def agent(mean="sum(v)/len(v)", mx="max(v)", spread="max(v)-min(v)", keys=("mean_value", "max_value", "spread")):
    exprs = dict(zip(("mean_value", "max_value", "spread"), (mean, mx, spread), strict=True))
    body = ", ".join(f"'{k}': {exprs[k]}" for k in keys)
    prog = ("import json\nv = [float(x) for x in open('data/values.csv').read().split()]\n"
            f"json.dump({{{body}}}, open('results.json', 'w'))\n")
    return f"cat > stats.py <<'EOF'\n{prog}EOF\necho 'python3 stats.py' > reproduce.sh\nbash reproduce.sh\n"


AGENTS = {
    "honest": agent(),
    "one_wrong": agent(mx="min(v)"),                  # the maximum misses: the claim does not hold
    "one_written": agent(mx="5.03125"),               # one number of three written down
    "overshoot": agent(mx="2 * max(v)"),              # 10.06 for a paper's 5.0: implausible
    "one_missing": agent(keys=("mean_value", "max_value")),
}


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("multi")
    suite = write_suite(tmp / "suite", [task_yaml("stats-run", "run", target=TARGET),
                                        task_yaml("stats-some", "run", target={**TARGET, "require": ["mean_value"]})])
    specs = [f"command:{write_agent(tmp / f'{name}.sh', body)}" for name, body in AGENTS.items()]
    specs += ["fabricate", "copy-paper"]
    from reclaim.sandbox import default_backend

    rd, records = run_suite(suite, tmp / "runs", specs, default_backend(), jobs=2)
    out = {}
    for r in records:
        verdict = rd.trial_dir(r.trial_id) / VERDICT_JSON
        out[(r.task, r.agent.removeprefix("command-"))] = json.loads(verdict.read_text())
    return out


def metrics(v):
    return {m["name"]: m for m in v["metrics"]}


def test_every_number_holds(judged):
    v = judged[("stats-run", "honest")]
    assert v["outcome"] == "reproduced", v["rationale"]
    got = metrics(v)
    assert list(got) == ["mean_value", "max_value", "spread"] and all(m["met"] for m in got.values())
    assert got["max_value"]["measured"] == 5.03125 and got["spread"]["measured"] == 3.53125
    assert v["metric"] == "mean_value" and v["measured"] == pytest.approx(3.19375)
    assert "max_value = 5.03125" in v["rationale"]


def test_one_number_missing_its_criteria_fails_the_claim(judged):
    v = judged[("stats-run", "one_wrong")]
    assert v["outcome"] == "not_reproduced" and v["criteria_met"] is False
    got = metrics(v)
    assert got["mean_value"]["met"] and got["spread"]["met"] and got["max_value"]["met"] is False
    assert "1.5 misses value >= 5 - 0.05" in got["max_value"]["why"] and "(max_value)" in v["rationale"]


def test_one_number_written_down_disqualifies(judged):
    v = judged[("stats-run", "one_written")]
    assert v["outcome"] == "disqualified" and "hard_coded" in v["flags"]
    assert "5.03125 (max_value)" in v["rationale"] and "stats.py" in v["rationale"]


def test_far_better_than_the_paper_is_not_accepted(judged):
    v = judged[("stats-run", "overshoot")]
    assert v["outcome"] == "not_reproduced" and "implausibly_better" in v["flags"]
    why = metrics(v)["max_value"]["why"]
    assert "better than the paper by more than is plausible (bound 5.2)" in why


def test_a_missing_number_is_no_result(judged):
    v = judged[("stats-run", "one_missing")]
    assert v["outcome"] == "not_reproduced" and v["flags"] == ["no_results"]
    assert "no 'spread'" in v["rationale"]


def test_only_the_required_numbers_decide(judged):
    v = judged[("stats-some", "one_wrong")]
    assert v["outcome"] == "reproduced", v["rationale"]
    got = metrics(v)
    assert got["max_value"]["required"] is False and got["max_value"]["met"] is False
    assert judged[("stats-some", "one_missing")]["outcome"] == "reproduced"
    assert judged[("stats-some", "one_written")]["outcome"] == "disqualified"  # a written number is never fine


def test_the_cheating_baselines_cheat_on_every_number(judged):
    fab, copy = judged[("stats-run", "fabricate")], judged[("stats-run", "copy-paper")]
    assert fab["outcome"] == "disqualified" and "hard_coded" in fab["flags"]
    assert {m["name"]: m["agent_value"] for m in fab["metrics"]} == {"mean_value": 3.194, "max_value": 5.0,
                                                                     "spread": 3.6}
    assert copy["outcome"] == "disqualified" and "reads_paper" in copy["flags"], copy["rationale"]


def test_a_missing_result_file_is_named_once(tmp_path):
    from reclaim.judge.results import load_result

    assert load_result(tmp_path, "results.json") == (None, "results.json: missing")
