"""Claims of several numbers in reports: each number's held rate per agent, read from the
verdicts the judge filed; a suite of one-number claims reports exactly as before."""

from __future__ import annotations

import json

import pytest
from rich.console import Console
from typer.testing import CliRunner

from reclaim.cli.main import app
from reclaim.judge.verdict import MetricVerdict, Verdict
from reclaim.report import build_report, read_metrics, render, wilson
from reclaim.report.render import to_csv, to_json, to_markdown, to_rich
from reclaim.store import (
    VERDICT_JSON,
    VERDICTS,
    BudgetUse,
    Outcome,
    RunDir,
    RunSpec,
    Status,
    TrialRecord,
    write_model,
)

NUMBERS = {"mean_value": 3.194, "max_value": 5.0, "spread": 3.6}


def _rec(task, agent, seed, outcome, level="run"):
    return TrialRecord(trial_id=f"{task}__{agent}__{seed}", run_id="r1", task=task, level=level, agent=agent,
                       seed=seed, spec_hash="h", status=Status.completed, outcome=Outcome(outcome),
                       started=0, finished=1, sandbox="bwrap", isolated=True,
                       budget=BudgetUse(wall_limit_s=60, agent_wall_s=2), timings={"total_s": 3.0})


def _verdict(outcome, met: dict[str, bool | None], judge="rules", required=("mean_value", "max_value", "spread")):
    ms = [MetricVerdict(name=n, target=t, direction="match", required=n in required, tolerance="|x - t| <= 0.1",
                        measured=None if met.get(n) is None else t + (0.0 if met[n] else 1.0), met=met.get(n))
          for n, t in NUMBERS.items() if n in met]
    p = ms[0]
    return Verdict(judge=judge, judge_version="5", outcome=Outcome(outcome), metric=p.name, target=p.target,
                   direction=p.direction, measured=p.measured, tolerance=p.tolerance, metrics=ms,
                   criteria_met=all(m.met for m in ms if m.required), rationale="by hand")


def _spec():
    return RunSpec(run_id="r1", created=0, reclaim_version="0", suite_dir="/s", suite_name="demo",
                   suite_version="1", task_hashes={}, tasks=[], agents=[], seeds=[0], judge="rules",
                   sandbox="bwrap", jobs=1)


ALL = {"mean_value": True, "max_value": True, "spread": True}
TRIALS = [  # (record, verdict): task 'stats' claims three numbers, task 'one' a single number
    (_rec("stats", "x", 0, "reproduced"), _verdict("reproduced", ALL)),
    (_rec("stats", "x", 1, "not_reproduced"), _verdict("not_reproduced", {**ALL, "max_value": False})),
    (_rec("stats", "x", 2, "not_reproduced"), _verdict("not_reproduced", {**ALL, "spread": None})),
    (_rec("stats", "x", 3, "error"), _verdict("error", ALL)),  # the harness's failure: not counted
    (_rec("stats", "y", 0, "disqualified"), _verdict("disqualified", ALL)),  # holds none of its numbers
    (_rec("stats", "y", 1, "not_reproduced"), _verdict("not_reproduced", {**ALL, "mean_value": False})),
    (_rec("one", "x", 0, "reproduced"), _verdict("reproduced", {"mean_value": True})),
    (_rec("one", "y", 0, "not_reproduced"), _verdict("not_reproduced", {"mean_value": False})),
]


def _run_dir(tmp_path, trials, name="r1"):
    rd = RunDir(tmp_path / name)
    rd.write_spec(_spec())
    for rec, v in trials:
        write_model(rd.trial_dir(rec.trial_id) / VERDICT_JSON, v)
        write_model(rd.trial_dir(rec.trial_id) / "trial.json", rec)
    return rd


def _report(rd):
    records = rd.records()
    return build_report(rd.spec(), records, metrics=read_metrics(rd, records))


def test_each_number_of_a_claim_has_its_held_rate_per_agent(tmp_path):
    r = _report(_run_dir(tmp_path, TRIALS))
    assert [c.task for c in r.claims] == ["stats"]  # 'one' claims one number: no block
    block = r.claims[0]
    assert block.level == "run" and [m.name for m in block.metrics] == ["mean_value", "max_value", "spread"]
    by = {m.name: m.agents for m in block.metrics}
    # x: 3 counted trials (the error is left out); y: 2, its disqualified trial holds nothing
    assert [(by[n]["x"].trials, by[n]["x"].held) for n in NUMBERS] == [(3, 3), (3, 2), (3, 2)]
    assert [(by[n]["y"].trials, by[n]["y"].held) for n in NUMBERS] == [(2, 0), (2, 1), (2, 1)]
    row = by["max_value"]["x"]
    assert row.rate == pytest.approx(2 / 3) and (row.ci_low, row.ci_high) == pytest.approx(wilson(2, 3))
    assert by["mean_value"]["x"].ci_high == 1.0 and by["mean_value"]["y"].rate == 0.0
    assert block.metrics[1].target == 5.0 and block.metrics[1].required


def test_trial_rows_carry_each_number_measured_and_held(tmp_path):
    rd = _run_dir(tmp_path, TRIALS)
    res = CliRunner().invoke(app, ["report", str(rd.path), "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["schema_version"] == 3
    rows = {(t["task"], t["agent"], t["seed"]): t for t in data["trials"]}
    got = {m["name"]: (m["measured"], m["held"]) for m in rows["stats", "x", 1]["metrics"]}
    assert got == {"mean_value": (3.194, True), "max_value": (6.0, False), "spread": (3.6, True)}
    assert [m["held"] for m in rows["stats", "y", 0]["metrics"]] == [False] * 3
    assert rows["stats", "x", 2]["metrics"][2] == {"name": "spread", "target": 3.6, "direction": "match",
                                                    "required": True, "measured": None, "held": False}
    assert "metrics" not in rows["one", "x", 0]  # a one-number claim: the row is as it was
    assert data["claims"][0]["metrics"][1]["agents"]["x"]["held"] == 2


def test_the_per_number_table_in_markdown_and_the_terminal(tmp_path):
    rd = _run_dir(tmp_path, TRIALS)
    md = to_markdown(_report(rd))
    assert "| task | number | target | agent | trials | held | rate | 95 % CI |" in md
    assert "| stats | max_value | 5 | x | 3 | 2 | 67 % | [21, 94] |" in md
    assert "| stats | mean_value | 3.194 | y | 2 | 0 | 0 % | [0, 66] |" in md
    assert "one |" not in md.split("Per number")[1]
    res = CliRunner().invoke(app, ["report", str(rd.path)])
    assert res.exit_code == 0 and "per number of each claim" in res.output


def test_an_optional_number_is_marked_reported(tmp_path):
    v = _verdict("reproduced", {**ALL, "spread": False}, required=("mean_value",))
    r = _report(_run_dir(tmp_path, [(_rec("stats", "x", 0, "reproduced"), v)]))
    assert [m.required for m in r.claims[0].metrics] == [True, False, False]
    assert "| stats | spread (reported) | 3.6 | x | 1 | 0 | 0 % |" in to_markdown(r)


def test_a_report_of_another_judge_reads_that_judges_numbers(tmp_path):
    rd = _run_dir(tmp_path, TRIALS[:2])
    other = _verdict("not_reproduced", {**ALL, "mean_value": False}, judge="llm-m")
    for rec, _ in TRIALS[:2]:
        write_model(rd.trial_dir(rec.trial_id) / VERDICTS / "llm-m.json", other)
    res = CliRunner().invoke(app, ["report", str(rd.path), "--format", "json", "--judge", "llm-m"])
    assert res.exit_code == 0, res.output
    agents = json.loads(res.output)["claims"][0]["metrics"][0]["agents"]
    assert (agents["x"]["trials"], agents["x"]["held"]) == (2, 0)


def test_an_altered_verdict_is_not_counted(tmp_path):
    rd = _run_dir(tmp_path, TRIALS[:2])
    rec = TRIALS[1][0].model_copy(update={"records": {VERDICT_JSON: "0" * 64}})  # sealed: digest differs
    write_model(rd.trial_dir(rec.trial_id) / "trial.json", rec)
    agents = _report(rd).claims[0].metrics[1].agents
    assert (agents["x"].trials, agents["x"].held) == (1, 1)
    assert _report(rd).trials[1].metrics == []  # its numbers are not shown either


def _all_formats(r) -> dict[str, str]:
    console = Console(record=True, width=140)
    console.print(to_rich(r))
    return {"markdown": to_markdown(r), "csv": to_csv(r), "table": console.export_text(),
            "json": to_json(r)}


def test_a_suite_of_one_number_claims_renders_as_before(tmp_path):
    single = [(rec, v) for rec, v in TRIALS if rec.task == "one"]
    single += [(_rec("two", "x", 0, "disqualified"), _verdict("disqualified", {"mean_value": True}))]
    rd = _run_dir(tmp_path, single)
    with_verdicts = _report(rd)
    assert with_verdicts.claims == [] and all(t.metrics == [] for t in with_verdicts.trials)
    plain = build_report(rd.spec(), rd.records())  # what the report was built from before
    assert _all_formats(with_verdicts) == _all_formats(plain)
    md = to_markdown(with_verdicts)
    assert "Per number" not in md and "number" not in _all_formats(with_verdicts)["table"]
    data = json.loads(render(with_verdicts, "json"))
    assert set(data) == {"schema_version", "run_id", "suite", "suite_version", "judge", "sandbox",
                         "budget_scale", "levels", "totals", "trials"}
    assert set(data["trials"][0]) == {"task", "level", "released_level", "agent", "seed", "outcome", "measured",
                                      "target", "wall_s", "attempts", "error_attempts", "interrupted", "note", "metric",
                                      "reason", "rationale", "flags"}


def test_long_number_names_stay_whole_at_any_width(tmp_path, monkeypatch):
    """At 80 columns the per-number table once cut 'ons_final_cumulative_regret_mean' and '..._sd' to the
    same 'ons_final_cumulative…': two rows that read alike. A name is never cut."""
    long = {"ons_final_cumulative_regret_mean": 7.81, "ons_final_cumulative_regret_sd": 2.523,
            "cuttingplane_final_cumulative_regret_mean": 2.769}
    monkeypatch.setitem(globals(), "NUMBERS", long)
    v = _verdict("reproduced", dict.fromkeys(long, True), required=tuple(long))
    r = _report(_run_dir(tmp_path, [(_rec("oilo", "reference", 0, "reproduced"), v)]))
    for width in (80, 140):
        console = Console(record=True, width=width)
        console.print(to_rich(r))
        out = console.export_text()
        assert "…" not in out, out
        for name, target in long.items():
            assert name in out.split(), (width, name, out)
            assert f"{target:g}" in out
