"""The bundled neurips2025 suite, checked offline (CI has no network): every task loads, every pin
is well-formed and every source cited at it, every target cites where it was read, levels follow
what the authors released (tasks posed harder are counted apart), "accepted" means checked, and
what was verified holds its target."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from reclaim.cli.main import app
from reclaim.cli.validation import task_problems
from reclaim.judge.claim import Reading, holds
from reclaim.spec import Level, load_suite
from reclaim.spec.overview import CPU_TAG, overview, status
from reclaim.spec.review import UNVERIFIED_KEYS, acceptance_problem, is_draft
from reclaim.suites import bundled

SUITE = bundled()["neurips2025"]


PAPERS, PER_LEVEL, VERIFIED = 100, 25, 12
"""What the suite holds at least: issue 33's aims (100 papers, 25 per level as released, 12 verified here)."""


def test_papers_per_level_as_released_over_many_areas():
    s = load_suite(SUITE)
    papers = {t.spec.paper.title for t in s.tasks}
    assert len(papers) >= PAPERS
    for level in Level:  # counted by what the authors released: the level published figures mean
        as_released = {t.spec.paper.title for t in s.tasks if t.spec.level == level and not t.spec.posed_harder()}
        assert len(as_released) >= PER_LEVEL, level
    assert sum(t.spec.verified is not None for t in s.tasks) >= VERIFIED
    assert len({t.spec.area for t in s.tasks}) >= 40
    # the main track or its datasets-and-benchmarks track
    assert all(t.spec.paper.venue.startswith("NeurIPS") and t.spec.paper.year == 2025 for t in s.tasks)
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


COMMIT = re.compile(r"/(?:blob|tree|raw|commit)/[0-9a-f]{40}(?:/|$)"
                    r"|raw\.githubusercontent\.com/[^/]+/[^/]+/[0-9a-f]{40}/")
ARXIV = re.compile(r"arxiv\.org/(?:abs|pdf|html)/\d{4}\.\d{4,5}v\d+")


def test_every_source_is_cited_where_it_stands_at_a_pinned_version():
    for t in load_suite(SUITE).tasks:
        url = t.spec.target.source.url
        if "github.com" in url or "githubusercontent.com" in url:  # a repository's file: at the commit read
            assert COMMIT.search(url), (t.id, url)
        if "arxiv.org" in url:  # the abstract of one version, not whichever is newest
            assert ARXIV.search(url), (t.id, url)


def test_pins_and_levels_agree_with_what_the_authors_released():
    for t in load_suite(SUITE).tasks:
        sp = t.spec
        assert sp.level.rank >= sp.materials.released_level().rank, t.id  # never easier than released
        code = sp.materials.code
        if sp.released_level() != Level.reimplement:  # code released: a public repository at a commit
            assert code is not None, t.id
            if code.git is None:  # vendored: byte-identical files of a named commit (VENDORED.md says which)
                vendored = (t.dir / str(code.path) / "VENDORED.md").read_text()
                assert re.search(r"https://github\.com/\S+", vendored), t.id
                assert re.search(r"\b[0-9a-f]{40}\b", vendored), t.id
            else:
                assert code.git.url.startswith("https://github.com/"), t.id
        else:  # no code released: the checklist says how that was established
            assert code is None and sp.review is not None and sp.review.checklist.get("level", "").strip(), t.id
        assert sp.paper.arxiv or sp.paper.pdf, t.id  # a versioned arXiv id, or a PDF the lock pins
        if CPU_TAG in sp.tags:
            assert sp.budget.gpus == 0 and sp.budget.gpu_hours == 0, t.id
        else:
            assert sp.verify.needs or sp.verified is not None, t.id  # says what verifying it needs
        if not is_draft(sp):  # accepted: nothing left to pin or read
            assert sp.reference is not None and (sp.paper.arxiv or sp.paper.pdf), t.id
            for ref in sp.materials.refs().values():
                assert ref.path or ref.git or (ref.hub and ref.hub.revision) or (ref.http and ref.http.sha256), t.id
        if sp.pending_values():
            assert status(t) == "value pending" and sp.review is not None and sp.review.status == "pending"


def test_accepted_means_checked_here_or_says_what_checking_it_needs():
    for t in load_suite(SUITE).tasks:
        sp = t.spec
        assert acceptance_problem(sp) is None, t.id
        if sp.review is not None and sp.review.status == "accepted":
            assert sp.reference is not None, t.id
            assert sp.verified is not None or all(sp.review.checklist.get(k, "").strip() for k in UNVERIFIED_KEYS), t.id


def test_verified_tasks_hold_their_target_with_what_the_reference_measured():
    verified = [t for t in load_suite(SUITE).tasks if t.spec.verified is not None]
    assert verified
    for t in verified:
        v = t.spec.verified
        assert holds(t.spec, Reading(dict(v.values), {})), t.id
        assert v.reference.cpu_s > 0 and v.reference.peak_memory_mb, t.id
        assert t.spec.reference is not None and t.spec.reference.weakened, t.id


def test_validate_and_list_offline():
    res = CliRunner().invoke(app, ["tasks", "validate", "neurips2025"])  # drafts are a status, not a failure
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["tasks", "list", "neurips2025"], env={"COLUMNS": "120"})
    assert res.exit_code == 0, res.output
    harder = sum(t.spec.posed_harder() for t in load_suite(SUITE).tasks)
    assert f"{harder} posed harder than released (rated apart)" in res.output
    for words in ("run: ", "retrain: ", "reimplement: ", "GPU-h in all", "verified"):
        assert words in res.output, words


NO_ROUTE = {"HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9",
            "http_proxy": "http://127.0.0.1:9", "NO_PROXY": "", "no_proxy": ""}


def test_a_dry_run_of_the_suite_on_a_machine_without_network_refuses_naming_each_item(tmp_path):
    """As on a compute node: every host refuses (a proxy that is not there), the cache is empty. The dry run
    must say what a real run would stop at, item by item, with the way to bring it here, and still name
    the tasks it leaves out."""
    env = NO_ROUTE | {"COLUMNS": "250", "RECLAIM_MATERIALS_CACHE": str(tmp_path / "empty-cache"),
                      "RECLAIM_ENVS_CACHE": str(tmp_path / "no-envs")}
    res = CliRunner().invoke(app, ["run", "--suite", "neurips2025", "--agent", "nop", "--dry-run",
                                   "--sandbox", "process", "--gpus", "none"], env=env)
    assert res.exit_code != 0, res.output
    out = " ".join(res.output.split())
    assert "every check passed" not in out and "nothing found that would stop the run" not in out
    tasks = load_suite(SUITE).tasks
    runs = [t for t in tasks if not is_draft(t.spec) and not t.spec.budget.gpus]
    assert "item(s) this run needs cannot be had here" in out
    for t in runs:
        assert f"{t.id} " in out, t.id
    assert "arxiv.org cannot be reached" in out and "reclaim materials pack neurips2025 --task" in out
    assert "RECLAIM_GIT_MIRRORS" in out
    gpus = [t for t in tasks if not is_draft(t.spec) and t.spec.budget.gpus]  # left out: --gpus none
    assert f"{len(runs)} tasks of {len(tasks)} run (accepted, values read, within this machine)" in out
    assert not gpus or "needing more GPUs than this machine has (no GPUs" in out
    pending = [t.id for t in tasks if t.spec.pending_values()]
    assert f"{len(pending)} tasks left out, a target value not yet read from the paper (value: pending): " \
           f"{', '.join(pending)}" in out
