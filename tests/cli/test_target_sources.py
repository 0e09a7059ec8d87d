"""A target says where its numbers were read, quoted; tasks validate checks the quote in code."""

from __future__ import annotations

import yaml
from typer.testing import CliRunner

from conftest import task_yaml, write_suite
from reclaim.cli.main import app

SOURCE = {"kind": "authors", "url": "https://github.com/example/repo", "quote": "mean 3.194 on the test set"}


def _validate(suite):
    return CliRunner().invoke(app, ["tasks", "validate", str(suite)])


def _require_sources(suite):
    meta = yaml.safe_load((suite / "suite.yaml").read_text())
    (suite / "suite.yaml").write_text(yaml.safe_dump({**meta, "sources_required": True}))


def test_a_quoted_source_that_prints_the_value_validates(tmp_path):
    percent = task_yaml("pct", "retrain", **{"target.value": 0.871, "criteria": {"abs_tol": 0.01},
                                            "target.source": {**SOURCE, "kind": "paper",
                                                              "quote": "reaches 87.1% accuracy"}})
    suite = write_suite(tmp_path / "s", [task_yaml("mean", "retrain", **{"target.source": SOURCE}), percent])
    _require_sources(suite)
    res = _validate(suite)
    assert res.exit_code == 0, res.output


def test_a_quote_without_the_value_or_a_missing_source_is_refused(tmp_path):
    wrong = task_yaml("wrong", "retrain", **{"target.source": {**SOURCE, "quote": "mean 3.19 on the test set"}})
    suite = write_suite(tmp_path / "s", [wrong, task_yaml("none", "retrain")])
    res = _validate(suite)
    assert res.exit_code == 1
    assert "target.source.quote does not print mean_value = 3.194" in res.output
    assert "target.source: missing" not in res.output  # not required by this suite
    _require_sources(suite)
    res = _validate(suite)
    assert "none" in res.output and "target.source: missing, and suite.yaml requires one" in res.output


def test_a_source_is_a_link_and_a_kind_never_a_summary_site_kind(tmp_path):
    bad = task_yaml("bad", "retrain", **{"target.source": {**SOURCE, "kind": "blog", "url": "somewhere"}})
    res = _validate(write_suite(tmp_path / "s", [bad]))
    assert res.exit_code == 1 and "target.source.kind" in res.output and "target.source.url" in res.output
