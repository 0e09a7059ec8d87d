"""Evaluate mode on real trials: only the agent's evaluation is re-run, and the verdict counts
it only on artefacts that recorded, metered training made."""

from __future__ import annotations

import json

import pytest

from conftest import run_suite, task_yaml, write_agent, write_suite
from reclaim.judge.rules import RulesJudge
from reclaim.spec import TaskSpec
from reclaim.store import VERDICT_JSON
from reclaim.store.models import Status
from reclaim.trace import CommandFinished, read_trace

# "training" learns the scale 1/n, burning about a second of CPU as real training would;
# the evaluation applies it to the data (so it needs the data, as an evaluation does)
TRAIN = """import struct, sys
v = [float(x) for x in open('data/values.csv').read().split()]
acc = 0
for i in range(6_000_000):
    acc += i % 7
open('model.bin', 'wb').write(struct.pack('<d', 1.0 / len(v)))
"""
EVALUATE = """import json, struct
v = [float(x) for x in open('data/values.csv').read().split()]
(scale,) = struct.unpack('<d', open('model.bin', 'rb').read())
json.dump({'mean_value': sum(v) * scale}, open('results.json', 'w'))
"""


def files(**named: str) -> str:
    return "".join(f"cat > {name} <<'EOF'\n{text}EOF\n" for name, text in named.items())


AGENTS = {
    "honest": files(**{"train.py": TRAIN, "evaluate.py": EVALUATE,
                       "evaluate.sh": "python3 evaluate.py\n", "reproduce.sh": "python3 train.py\nbash evaluate.sh\n"})
              + "python3 train.py\nbash evaluate.sh\n",
    # a checkpoint made in no time: nothing was trained
    "cheap": files(**{"evaluate.py": EVALUATE, "evaluate.sh": "python3 evaluate.py\n",
                      "reproduce.sh": "bash evaluate.sh\n"})
             + "python3 -c \"import struct; open('model.bin','wb').write(struct.pack('<d', 0.2))\"\nbash evaluate.sh\n",
    # evaluates nothing trained at all
    "untrained": files(**{"evaluate.sh": "python3 -c \"import json; v=[float(x) for x in open('data/values.csv')"
                                         ".read().split()]; json.dump({'mean_value': sum(v)/len(v)}, "
                                         "open('results.json','w'))\"\n", "reproduce.sh": "bash evaluate.sh\n"})
                 + "bash evaluate.sh\n",
}


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("evaluate")
    reexec = {"mode": "evaluate", "reference_cpu_hours": 0.0002, "min_fraction": 0.25}  # 0.18 CPU-s at least
    suite = write_suite(tmp / "suite", [task_yaml("mean-eval", "retrain", **{"budget.reexec": reexec})])
    specs = [f"command:{write_agent(tmp / f'{name}.sh', body)}" for name, body in AGENTS.items()]
    from reclaim.sandbox import default_backend

    rd, records = run_suite(suite, tmp / "runs", specs, default_backend(), jobs=2)
    return rd, {r.agent.removeprefix("command-"): r for r in records}


def verdict(judged, name):
    rd, recs = judged
    return json.loads((rd.trial_dir(recs[name].trial_id) / VERDICT_JSON).read_text())


def test_honest_training_then_evaluation_is_reproduced(judged):
    v = verdict(judged, "honest")
    assert v["outcome"] == "reproduced", v["rationale"]
    assert v["reexec_mode"] == "evaluate" and v["training"]["ok"]
    assert v["training"]["artefacts"] == ["model.bin"] and v["training"]["cpu_hours"] * 3600 > 0.18
    assert "only the evaluation (evaluate.sh) was re-run" in v["rationale"]
    rd, recs = judged
    trace = read_trace(rd.trial_dir(recs["honest"].trial_id) / "trace.jsonl")
    rerun = [e.cmd for e in trace if isinstance(e, CommandFinished) and e.phase == "reexec"]
    assert rerun and all(c == ["bash", "evaluate.sh"] for c in rerun)  # never the training
    writer = next(e for e in trace if isinstance(e, CommandFinished) and e.id in v["training"]["writers"])
    assert writer.cpu_s is not None and writer.cpu_s > 0.15


def test_a_checkpoint_made_in_no_time_is_not_trained(judged):
    v = verdict(judged, "cheap")
    assert v["outcome"] == "not_reproduced" and v["flags"][-1] == "training_cost_low", v["rationale"]
    assert "less than 0.25 of the reference's 0.0002" in v["rationale"]


def test_nothing_trained_is_nothing_to_evaluate(judged):
    v = verdict(judged, "untrained")
    assert v["outcome"] == "not_reproduced" and "no_artefacts" in v["flags"], v["rationale"]


def test_an_artefact_changed_outside_the_record_is_not_vouched_for(judged):
    """A background process left by the training command rewrites the checkpoint after it
    returned: the file evaluated is not the one any recorded command left."""
    rd, recs = judged
    tdir = rd.trial_dir(recs["honest"].trial_id)
    spec = TaskSpec.model_validate_json((tdir / "spec.json").read_text())
    model = tdir / "workspace" / "model.bin"
    model.write_bytes(model.read_bytes()[:-1] + b"\x01")
    v = RulesJudge().judge(spec, tdir, Status.completed)
    assert v.outcome.value == "not_reproduced" and "training_not_shown" in v.flags
    assert "not the file recorded command" in v.rationale
