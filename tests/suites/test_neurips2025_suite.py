"""The bundled neurips2025 suite, checked offline (CI has no network): every task loads, every pin
is well-formed, every target cites where it was read, levels agree with what the authors released,
and what was verified holds its target."""

from __future__ import annotations

from typer.testing import CliRunner

from reclaim.cli.main import app
from reclaim.cli.validation import task_problems
from reclaim.judge.claim import Reading, holds
from reclaim.spec import Level, load_suite
from reclaim.spec.overview import CPU_TAG, overview, status
from reclaim.suites import bundled

SUITE = bundled()["neurips2025"]


def test_forty_papers_ten_per_level_over_many_areas():
    s = load_suite(SUITE)
    papers = {t.spec.paper.title for t in s.tasks}
    assert len(papers) >= 40
    for level in Level:
        assert len({t.spec.paper.title for t in s.tasks if t.spec.level == level}) >= 10, level
    assert len({t.spec.area for t in s.tasks}) >= 25
    assert all(t.spec.paper.venue == "NeurIPS" and t.spec.paper.year == 2025 for t in s.tasks)
    bands = overview(s.tasks).bands
    assert bands["CPU only"] and bands["10-100 GPU-h"], bands  # from CPU minutes to multi-GPU days


def test_every_target_is_sourced_and_every_value_printed_where_it_was_read():
    s = load_suite(SUITE)
    assert s.meta.sources_required
    for t in s.tasks:
        src = t.spec.target.source
        assert src is not None and src.url.startswith("https://") and src.where, t.id
        assert task_problems(t, s.meta.llm_judged, s.meta.sources_required) == [], t.id
        for m in t.spec.metrics():
            assert not m.pending or m.where.strip(), (t.id, m.name)  # a pending value says where it stands


def test_pins_and_levels_agree_with_what_the_authors_released():
    for t in load_suite(SUITE).tasks:
        sp = t.spec
        assert sp.level.rank >= sp.materials.released_level().rank, t.id  # never easier than released
        code = sp.materials.code
        assert code is not None and code.git is not None and code.git.url.startswith("https://github.com/"), t.id
        assert sp.paper.arxiv or sp.paper.pdf, t.id  # a versioned arXiv id, or a PDF the lock pins
        if CPU_TAG in sp.tags:
            assert sp.budget.gpus == 0 and sp.budget.gpu_hours == 0, t.id
        else:
            assert sp.verify.needs or sp.verified is not None, t.id  # says what verifying it needs
        if sp.review is not None and sp.review.status == "accepted":  # accepted: nothing left to pin or read
            assert not sp.pending_values() and sp.paper.arxiv, t.id
            for ref in sp.materials.refs().values():
                assert ref.git or (ref.hub and ref.hub.revision) or (ref.http and ref.http.sha256), t.id
        if sp.pending_values():
            assert status(t) == "value pending" and sp.review is not None and sp.review.status == "pending"


def test_verified_tasks_hold_their_target_with_what_the_reference_measured():
    verified = [t for t in load_suite(SUITE).tasks if t.spec.verified is not None]
    assert verified
    for t in verified:
        v = t.spec.verified
        assert holds(t.spec, Reading(dict(v.values), {})), t.id
        assert v.reference.cpu_s > 0 and v.reference.peak_memory_mb, t.id
        assert t.spec.reference is not None and t.spec.reference.weakened, t.id


def test_validate_and_list_offline():
    res = CliRunner().invoke(app, ["tasks", "validate", "neurips2025", "--allow-pending"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["tasks", "list", "neurips2025"], env={"COLUMNS": "120"})
    assert res.exit_code == 0, res.output
    for words in ("run: 17 tasks", "retrain: 15 tasks", "reimplement: 11 tasks", "GPU-h in all", "verified"):
        assert words in res.output, words


def test_a_dry_run_of_the_suite_plans_offline_and_leaves_out_what_cannot_run():
    res = CliRunner().invoke(app, ["run", "--suite", "neurips2025", "--agent", "nop", "--dry-run", "--allow-pending",
                                   "--sandbox", "process"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    pending = sum(bool(t.spec.pending_values()) for t in load_suite(SUITE).tasks)
    assert f"{pending} tasks left out, a target value not yet read from the paper" in res.output
    assert "GPU-h in all" in res.output and "nothing was fetched, run or written" in res.output
