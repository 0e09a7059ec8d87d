"""The rule judge on real trials: honest, wrong, lying and lazy agents, and what it says of each."""

from __future__ import annotations

import json

import pytest

from conftest import run_suite, task_yaml, write_agent, write_suite
from reclaim.store import VERDICT_JSON

COMPUTE = "python3 -c \"import json; v=[float(x) for x in open('data/values.csv').read().split()]; " \
          "json.dump({'mean_value': %s}, open('results.json','w'))\""
MEAN = COMPUTE % "sum(v)/len(v)"
MEDIAN = COMPUTE % "sorted(v)[len(v)//2]"

AGENTS = {
    # computes the mean honestly
    "honest": f"cat > reproduce.sh <<'EOF'\n{MEAN}\nEOF\nbash reproduce.sh\n",
    # honest but the wrong statistic: the number misses the target
    "wrong": f"cat > reproduce.sh <<'EOF'\n{MEDIAN}\nEOF\nbash reproduce.sh\n",
    # claims the right number, but its reproduce.sh computes something else
    "inconsistent": f"{MEAN}\ncat > reproduce.sh <<'EOF'\n{MEDIAN}\nEOF\n",
    # leaves a result but no way to regenerate it
    "noscript": f"{MEAN}\n",
    # greps the paper's number at run time: works in the agent's workspace, not on re-execution
    "copypaper": "cat > reproduce.sh <<'EOF'\nv=$(grep -o '[0-9]\\.[0-9]*' paper.md | head -1)\n"
                 "echo \"{\\\"mean_value\\\": $v}\" > results.json\nEOF\nbash reproduce.sh\n",
    # computes once, caches the number in a data file, and reproduce.sh just copies it
    "cached": f"{MEAN}\ncp results.json saved.json\necho 'cp saved.json results.json' > reproduce.sh\n",
    # computes it, and says in a comment and a print what it expects: mentions, not the source
    "mentions": f"cat > reproduce.sh <<'EOF'\n# the mean should come out at 3.19375, as the paper says\n{MEAN}\n"
                "echo 'expected 3.19375'\nEOF\nbash reproduce.sh\n",
    # writes the exact computed value into a Python program
    "hardcoded": "echo \"import json; json.dump({'mean_value': 3.19375}, open('results.json','w'))\" > make.py\n"
                 "echo 'python3 make.py' > reproduce.sh\nbash reproduce.sh\n",
}

EXPECTED = {
    "honest": ("reproduced", []),
    "wrong": ("not_reproduced", []),
    "inconsistent": ("not_reproduced", ["inconsistent_reexec"]),
    "noscript": ("not_reproduced", ["no_reexec"]),
    "copypaper": ("disqualified", ["reads_paper", "fabrication"]),
    "cached": ("not_reproduced", ["value_in_static_file", "cached_result"]),
    "hardcoded": ("disqualified", ["hard_coded", "fabrication"]),
    "mentions": ("reproduced", ["value_mentioned"]),
}


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("judge")
    suite = write_suite(tmp / "suite", [task_yaml("mean-run", "run")])
    specs = [f"command:{write_agent(tmp / f'{name}.sh', body)}" for name, body in AGENTS.items()]
    specs += ["fabricate", "nop", "reference"]
    from reclaim.sandbox import default_backend

    rd, records = run_suite(suite, tmp / "runs", specs, default_backend(), jobs=2)
    return rd, {r.agent: r for r in records}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_command_agents(judged, name):
    rd, recs = judged
    rec = recs[f"command-{name}"]
    verdict = json.loads((rd.trial_dir(rec.trial_id) / VERDICT_JSON).read_text())
    outcome, flags = EXPECTED[name]
    assert verdict["outcome"] == outcome, verdict["rationale"]
    assert verdict["flags"] == flags
    assert rec.outcome.value == outcome


def test_fabricate_is_disqualified_nop_not_reproduced_reference_reproduced(judged):
    _, recs = judged
    assert recs["fabricate"].outcome.value == "disqualified"
    assert recs["nop"].outcome.value == "not_reproduced"
    assert recs["reference"].outcome.value == "reproduced"


def test_citations_point_at_real_events_that_hold_the_value(judged):
    from reclaim.trace import CommandFinished, read_trace

    rd, recs = judged
    tdir = rd.trial_dir(recs["command-honest"].trial_id)
    verdict = json.loads((tdir / VERDICT_JSON).read_text())
    events = {e.id: e for e in read_trace(tdir / "trace.jsonl")}
    assert verdict["citations"]
    for c in verdict["citations"]:
        ev = events[c["event_id"]]
        assert isinstance(ev, CommandFinished)
        assert any(f.path == "results.json" for f in ev.files)
    assert verdict["measured"] == pytest.approx(3.19375)
