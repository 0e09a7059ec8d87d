"""`reclaim judge` files verdicts side by side; `reclaim report --judge` shows either."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from conftest import run_suite, task_yaml, write_suite
from reclaim.cli.main import app
from scripted_openai import Reply, ScriptedOpenAI


def test_rejudge_with_rules_and_llm_side_by_side(tmp_path, sandbox_name, monkeypatch):
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    rd, _ = run_suite(suite, tmp_path / "runs", ["reference", "fabricate"], sandbox_name)
    runner = CliRunner()
    res = runner.invoke(app, ["judge", str(rd.path), "--judge", "rules"])
    assert res.exit_code == 0, res.output
    assert "2 trials judged by rules" in res.output

    server = ScriptedOpenAI()
    # a strict model: says not_reproduced to everything
    server.always(Reply(content={"outcome": "not_reproduced", "measured_value": None, "citations": [],
                                 "computed_by": "unclear", "rationale": "strict", "flags": []}))
    monkeypatch.setenv("RECLAIM_CACHE_DIR", str(tmp_path / "cache"))
    try:
        res = runner.invoke(app, ["judge", str(rd.path), "--judge", "llm", "--judge-model", "local-model",
                                  "--judge-base-url", server.url, "--judge-samples", "1"])
    finally:
        server.close()
    assert res.exit_code == 0, res.output
    for t in rd.trials_dir.iterdir():
        assert sorted(p.name for p in (t / "verdicts").iterdir()) == ["llm-local-model.json", "rules.json"]

    by_rules = json.loads(runner.invoke(app, ["report", str(rd.path), "--format", "json"]).output)
    by_llm = json.loads(runner.invoke(app, ["report", str(rd.path), "--format", "json",
                                            "--judge", "llm-local-model"]).output)
    assert by_rules["judge"] == "rules" and by_llm["judge"] == "llm-local-model"
    assert by_rules["levels"]["run"]["agents"]["reference"]["reproduced"] == 1
    assert by_llm["levels"]["run"]["agents"]["reference"]["reproduced"] == 0  # the stricter model
    assert by_llm["totals"]["outcomes"]["disqualified"] == 1  # code's finding stands under any judge
    res = runner.invoke(app, ["report", str(rd.path), "--judge", "llm-nobody"])
    assert res.exit_code == 2 and "no verdicts of judge 'llm-nobody'" in res.output


def test_llm_judge_without_model_is_refused(tmp_path):
    res = CliRunner().invoke(app, ["run", "--judge", "llm", "--runs-root", str(tmp_path)])
    assert res.exit_code == 2 and "--judge-model" in res.output


def test_run_with_the_llm_judge_records_its_config_but_no_key(tmp_path, sandbox_name, monkeypatch):
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    server = ScriptedOpenAI()
    server.always(Reply(content={"outcome": "not_reproduced", "measured_value": None, "citations": [],
                                 "computed_by": "unclear", "rationale": "strict", "flags": []}))
    monkeypatch.setenv("RECLAIM_JUDGE_API_KEY", "sk-secret-judge-key")
    monkeypatch.setenv("RECLAIM_CACHE_DIR", str(tmp_path / "cache"))
    try:
        res = CliRunner().invoke(app, ["run", "--suite", str(suite), "--agent", "reference", "--sandbox", sandbox_name,
                                       "--judge", "llm", "--judge-model", "m1", "--judge-base-url", server.url,
                                       "--judge-samples", "1", "--run-dir", str(tmp_path / "r")])
    finally:
        server.close()
    assert res.exit_code == 0, res.output
    run_json = (tmp_path / "r" / "run.json").read_text()
    assert json.loads(run_json)["judge"] == "llm-m1" and "sk-secret" not in run_json
    assert server.requests[0]["auth"] == "Bearer sk-secret-judge-key"
    (trial,) = (tmp_path / "r" / "trials").iterdir()
    verdict = json.loads((trial / "verdict.json").read_text())
    assert verdict["judge"] == "llm-m1" and verdict["outcome"] == "not_reproduced"
    assert "sk-secret" not in "".join(p.read_text(errors="ignore") for p in trial.rglob("*") if p.is_file())
