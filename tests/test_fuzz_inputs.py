"""Every input reclaim reads, fuzzed (hypothesis, 1,000 cases each): a task spec, a suite file, an
agent's results.json, a trace line, a verdict, the CLI's arguments and a curation CSV. Each case ends
in a correct result or a clear error of reclaim's own, never a traceback (issue 25)."""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from conftest import task_yaml
from reclaim.cli.main import app
from reclaim.curate.http import FetchError
from reclaim.curate.sources import CsvPapers
from reclaim.errors import ReclaimError
from reclaim.judge.results import read_metrics
from reclaim.judge.verdict import Verdict
from reclaim.spec import SpecError, load_task
from reclaim.spec.load import load_suite_meta
from reclaim.store import read_model
from reclaim.trace import read_trace

CASES = settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=30),
                    st.sampled_from(["pending", "generated", ".inf", "run", "retrain", "reimplement", "match",
                                     "../../etc", "a" * 40, "https://example.org/x", "", "NaN"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=12), inner, max_size=4)),
                      max_leaves=12)
BASE = task_yaml("fuzzed", "retrain")
PATHS = ["id", "level", "paper", "paper.title", "paper.year", "paper.arxiv", "paper.pdf", "paper.text",
         "materials", "materials.code", "materials.data", "materials.weights", "materials.code.path",
         "target", "target.metric", "target.value", "target.direction", "target.metrics", "target.source",
         "target.bounds", "target.require", "criteria", "criteria.abs_tol", "criteria.interval", "budget",
         "budget.wall_minutes", "budget.gpus", "budget.reexec", "reference", "environment", "network", "verify",
         "verify.inputs", "verify.perturb", "review", "tags", "area", "unknown_key"]


def _set(spec: dict, path: str, value) -> dict:
    node = spec
    *head, last = path.split(".")
    for part in head:
        if not isinstance(node.get(part), dict):
            node[part] = {}
        node = node[part]
    node[last] = value
    return spec


def _task_dir(root: Path, text: str) -> Path:
    d = root / "fuzzed"
    for sub in ("code", "data", "weights", "reference"):
        (d / sub).mkdir(parents=True, exist_ok=True)
    (d / "paper.md").write_text("# A paper\n")
    (d / "reference" / "reproduce.sh").write_text("true\n")
    (d / "task.yaml").write_text(text, encoding="utf-8")
    return d


@CASES
@given(edits=st.lists(st.tuples(st.sampled_from(PATHS), values), min_size=1, max_size=4))
def test_a_mutated_task_spec_loads_or_is_named_as_a_problem(edits):
    spec = copy.deepcopy(BASE)
    for path, value in edits:
        _set(spec, path, value)
    try:
        text = yaml.safe_dump(spec, allow_unicode=True)
    except yaml.YAMLError:
        return
    with tempfile.TemporaryDirectory() as tmp:
        try:
            load_task(_task_dir(Path(tmp), text))
        except SpecError as e:
            assert e.problems and all(p.message for p in e.problems)


@CASES
@given(text=st.text(max_size=300))
def test_any_text_as_a_task_file_or_suite_file_is_named_as_a_problem(text):
    with tempfile.TemporaryDirectory() as tmp:
        for load in (lambda: load_task(_task_dir(Path(tmp), text)), lambda: _suite(Path(tmp), text)):
            try:
                load()
            except SpecError as e:
                assert e.problems


def _suite(root: Path, text: str):
    (root / "suite.yaml").write_text(text, encoding="utf-8")
    return load_suite_meta(root)


@CASES
@given(data=st.one_of(values.map(lambda v: json.dumps(v, allow_nan=True)), st.text(max_size=200)),
       names=st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=3))
def test_any_results_json_gives_values_or_a_reason(data, names):
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "results.json").write_text(data, encoding="utf-8")
        got = read_metrics(Path(tmp), "results.json", names)
    for value, why in got.values():
        assert (value is None) != (why == "") or value is None
        assert value is None or value == value  # never NaN


@CASES
@given(lines=st.lists(st.one_of(values.map(lambda v: json.dumps(v, allow_nan=True)), st.text(max_size=80)),
                      max_size=5))
def test_any_trace_lines_read_as_events_or_a_clear_error(lines):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.jsonl"
        path.write_text("".join(line.replace("\n", " ") + "\n" for line in lines), encoding="utf-8")
        try:
            read_trace(path)
        except ReclaimError as e:
            assert "trace.jsonl" in str(e)


@CASES
@given(doc=values)
def test_any_verdict_file_reads_as_a_verdict_or_none(doc):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "verdict.json"
        path.write_text(json.dumps(doc, allow_nan=True), encoding="utf-8")
        got = read_model(path, Verdict)
        assert got is None or isinstance(got, Verdict)


# no word that would reach the network (materials lock/fetch of a real suite, the neurips2025 suite's
# downloads): the command lines are fuzzed for their parsing and messages, offline and quick
WORDS = ["run", "report", "show", "tasks", "list", "validate", "materials", "judge", "runs",
         "curate", "build", "agents", "--suite", "demo", "--agent", "nop", "--task", "--level", "--seeds", "-1",
         "0", "x", "--jobs", "--dry-run", "--format", "json", "--resume", "/nonexistent", "--judge", "llm",
         "--budget-scale", "nan", "--sandbox", "process", "--help", "--allow-pending", ""]


@CASES
@given(argv=st.lists(st.one_of(st.sampled_from(WORDS), st.text(max_size=10)), max_size=6))
def test_any_command_line_exits_with_a_message_never_a_traceback(argv):
    if argv[:1] == ["run"] and "--dry-run" not in argv and "--help" not in argv:
        return  # a command line that would start a real run: not fuzzed here
    res = CliRunner().invoke(app, argv, env={"RECLAIM_RUNS_ROOT": tempfile.gettempdir() + "/reclaim-fuzz-runs"})
    assert res.exception is None or isinstance(res.exception, SystemExit), (argv, res.output, res.exception)


@CASES
@given(text=st.text(max_size=400))
def test_any_curation_csv_yields_papers_or_says_why(text):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "papers.csv"
        path.write_text(text, encoding="utf-8")
        src = CsvPapers(path)
        try:
            papers = list(src.papers())
        except FetchError as e:
            assert "title" in str(e)
            return
        assert all(p.title for p in papers)
