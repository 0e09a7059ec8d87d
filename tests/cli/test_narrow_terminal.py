"""A real run read at COLUMNS=80, as a newcomer reads it: the report and its trials, the runs, a
trial's story, what to do next, and `tasks new` outside a suite (issue 26)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import task_yaml, write_suite

RECLAIM = Path(sys.executable).with_name("reclaim")  # the console script, as pip installs it
BIN = str(RECLAIM.parent)


def _reclaim(args: list[str], cwd: Path, on_path: bool = True, columns: int = 80) -> subprocess.CompletedProcess:
    env = {**os.environ, "RECLAIM_HOME": str(cwd)}  # runs kept in CWD/runs: the module's run is found by id
    parts = [p for p in env.get("PATH", "").split(os.pathsep) if p and os.path.realpath(p) != os.path.realpath(BIN)]
    env.update(COLUMNS=str(columns), NO_COLOR="1", PATH=os.pathsep.join(([BIN] if on_path else []) + parts))
    cmd = ["reclaim", *args] if on_path else [str(RECLAIM), *args]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def _fits(out: str, columns: int = 80) -> None:
    lines = out.splitlines()
    assert lines, "no output"
    assert not [line for line in lines if len(line) > columns], [line for line in lines if len(line) > columns]
    assert "…" not in out  # wrapped or left out, never cut short


@pytest.fixture(scope="module")
def demo(tmp_path_factory, sandbox_name) -> tuple[Path, str, subprocess.CompletedProcess]:
    """One run of three levels by reference, nop, fabricate, made by `reclaim run` in a folder of its own
    (runs in FOLDER/runs, its RECLAIM_HOME, so its id names it): (that folder, the run id, the run's own output)."""
    here = tmp_path_factory.mktemp("narrow")
    suite = write_suite(here / "suite", [task_yaml("mean-run", "run"), task_yaml("mean-retrain", "retrain"),
                                         task_yaml("a-mean-reimpl", "reimplement")])
    res = _reclaim(["run", "--suite", str(suite), "--agent", "reference", "--agent", "nop", "--agent", "fabricate",
                    "--sandbox", sandbox_name], here)
    assert res.returncode == 0, res.stderr[-3000:]
    (run_id,) = [p.name for p in (here / "runs").iterdir() if (p / "run.json").is_file()]
    return here, run_id, res


def test_trials_at_80_columns_in_level_order_with_whole_reasons_and_flags(demo):
    here, run_id, _ = demo
    res = _reclaim(["report", run_id, "--trials"], here)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    _fits(out)
    trials = json.loads(_reclaim(["report", run_id, "--format", "json"], here).stdout)["trials"]
    heads = [line for line in out.splitlines() if re.match(r"[a-z-]+__[a-z]+__\d+ · ", line)]
    ids = [line.split(" · ")[0] for line in heads]
    assert ids == [f"{t}__{a}__0" for t in ("mean-run", "mean-retrain", "a-mean-reimpl")
                   for a in ("fabricate", "nop", "reference")]  # run, retrain, reimplement; not alphabetical
    flat = " ".join(out.split())
    words = set(flat.replace(",", " ").replace("[", " ").replace("]", " ").split())
    for t in trials:
        assert " ".join(t["rationale"].split()) in flat, t["rationale"]  # the whole reason, never cut
        assert set(t["flags"]) <= words, t["flags"]  # every flag whole on one line, never split mid-word
    section = out.split("trials, in level order")[1].splitlines()  # a line, then the reason across the width
    assert len(section) <= sum(2 + len(t["rationale"] + " ".join(t["flags"])) // 70 for t in trials) + 20


def test_report_keeps_agent_labels_whole_and_says_why_there_is_no_best_agent(demo):
    here, run_id, _ = demo
    out = _reclaim(["report", run_id], here).stdout
    _fits(out)
    for agent in ("reference", "nop", "fabricate"):
        assert f"{agent} (baseline)" in out  # on one line, never "(baseline)" wrapped under it
    rows = [line.split() for line in out.split("per level")[1].splitlines() if line.split()[:1] == ["run"]]
    assert rows and " ".join(rows[0][2:4]) == "baselines only"  # not a bare "—"
    assert "never best" in " ".join(out.split())
    md = _reclaim(["report", run_id, "--format", "markdown", "--trials"], here).stdout
    assert "| run | 1 | baselines only | 100 % |" in md and "never best" in md
    levels = [line.split(" | ")[1] for line in md.split("Trials, in level order")[1].splitlines()
              if line.startswith("| ") and "---" not in line and " level " not in line]
    assert levels == ["run"] * 3 + ["retrain"] * 3 + ["reimplement"] * 3


def test_a_run_ends_with_next_steps_that_work_as_shown(demo):
    here, run_id, res = demo
    tail = res.stdout.split("\nnext:\n")[1]
    commands = [line.strip() for line in tail.splitlines() if line.startswith("  reclaim ")]
    assert commands[0] == f"reclaim report {run_id} --trials"
    assert commands[1].startswith(f"reclaim show {run_id} mean-run__") and len(commands[1].split()) == 4
    assert f"reclaim report {run_id} --format html -o report.html" in commands
    assert f"reclaim view {run_id}" in commands
    assert "not on your PATH" not in tail
    shown = _reclaim(commands[1].split()[1:], here)  # the show command, exactly as printed
    assert shown.returncode == 0, shown.stderr
    _fits(shown.stdout.replace("…", ""))  # long commands of the timeline are shortened on purpose
    html = _reclaim(f"report {run_id} --format html -o report.html".split(), here)
    assert html.returncode == 0 and (here / "report.html").stat().st_size > 1000, html.stderr


def test_next_steps_name_reclaim_by_its_path_where_it_is_not_on_path(demo):
    here, run_id, _ = demo
    res = _reclaim(["run", "--resume", run_id], here, on_path=False)  # a complete run: its report, no trial
    assert res.returncode == 0, res.stderr
    tail = res.stdout.split("\nnext:\n")[1]
    assert f"  {RECLAIM} report {run_id} --trials" in tail.splitlines()
    assert "not on your PATH" in tail and f"  source {RECLAIM.parent / 'activate'}" in tail.splitlines()


def test_runs_and_show_at_80_columns(demo):
    here, run_id, _ = demo
    out = _reclaim(["runs"], here).stdout
    _fits(out)
    assert {"judge", "rules", "reference,", "nop,", "fabricate"} <= set(out.split())
    for trial in ("mean-run__fabricate__0", "a-mean-reimpl__reference__0", "mean-retrain__nop__0"):
        res = _reclaim(["show", run_id, trial], here)
        assert res.returncode == 0, res.stderr
        _fits(res.stdout.replace("…", ""))
        assert "timeline" in res.stdout and "verdict (rules)" in res.stdout


def test_tasks_new_outside_a_suite_refuses_in_one_line_and_a_new_suite_is_said(tmp_path):
    res = _reclaim(["tasks", "new", "mytask", "--level", "run"], tmp_path)
    assert res.returncode == 2 and list(tmp_path.iterdir()) == []  # nothing written by surprise
    said = " ".join(res.stderr.split())
    assert "not a suite (no suite.yaml)" in said and "--suite DIR" in said and "inside a suite folder" in said
    res = _reclaim(["tasks", "new", "mytask", "--level", "run", "--suite", "mysuite"], tmp_path)
    assert res.returncode == 0, res.stderr
    assert "new suite: wrote mysuite/suite.yaml" in " ".join(res.stdout.split())
    text = (tmp_path / "mysuite" / "suite.yaml").read_text()
    assert "# tasks: [mytask]" in text and "-task]" not in text  # the example names the real task
    assert yaml.safe_load(text)["name"] == "mysuite"
    again = _reclaim(["tasks", "new", "second", "--level", "retrain"], tmp_path / "mysuite")  # inside: as before
    assert again.returncode == 0 and "new suite" not in again.stdout
    assert (tmp_path / "mysuite" / "second" / "task.yaml").is_file()
