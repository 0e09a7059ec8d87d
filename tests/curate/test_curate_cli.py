"""reclaim curate end to end: a venue's accepted papers (OpenReview v2 with PDFs) and the hosts
their links point at, all local servers in the real formats; a draft suite written, refused by
validate and run while pending, the same draft again offline from the cache, then reviewed."""

from __future__ import annotations

import random

import yaml
from hosts import Catalog, HostApis, make_paper, make_pdf
from replay import Replay, note
from typer.testing import CliRunner

from reclaim.cli.main import app
from reclaim.spec.load import load_task

VENUE = "NeurIPS.cc/2025/Conference"
TABLE = ("\n\nTable 1: Main results on the benchmark.\n\n| Method | Accuracy (%) | Test loss |\n|---|---|---|\n"
         "| Baseline | 71.0 | 0.93 |\n| {row} | {value} | 0.41 |\n\nWe train on 4 A100 GPUs for 6 hours.\n")


def _point_at(monkeypatch, hosts: HostApis) -> None:
    """Curation's GitHub, Hub and Zenodo APIs: the local hosts, by the variables a user would set."""
    monkeypatch.setenv("GITHUB_API_URL", hosts.apis.github)
    monkeypatch.setenv("HF_ENDPOINT", hosts.apis.hf)
    monkeypatch.setenv("RECLAIM_ZENODO_API", hosts.apis.zenodo)


def _pdf_folder(folder, n: int, *, seed: int, monkeypatch) -> None:
    """n papers as PDFs in a folder (each with an 'Ours' row at 81.5), their hosts local."""
    cat, rng = Catalog(), random.Random(seed)
    _point_at(monkeypatch, HostApis(cat))
    folder.mkdir()
    for i in range(n):
        text, _ = make_paper(i, rng, cat)
        make_pdf(text + TABLE.format(row="Ours", value="81.5"), folder / f"paper{i}.pdf")


def _venue(tmp_path, n: int = 12):
    cat, rng = Catalog(), random.Random(7)
    notes, files = [], {}
    for i in range(n):
        text, _ = make_paper(i, rng, cat)
        text += TABLE.format(row="Ours" if i != n - 1 else "Another baseline", value=f"7{i % 10}.5")
        make_pdf(text, tmp_path / f"p{i}.pdf")
        files[f"/pdf/{i:040x}.pdf"] = (tmp_path / f"p{i}.pdf").read_bytes()
        notes.append(note(i, VENUE, keywords={"value": [["vision", "graphs", "theory"][i % 3]]}))
    return Replay(notes, files=files), HostApis(cat)


def test_build_a_draft_refuse_it_pending_rebuild_offline_and_review(tmp_path, monkeypatch):
    replay, hosts = _venue(tmp_path)
    monkeypatch.setenv("RECLAIM_OPENREVIEW_API", replay.url)
    monkeypatch.setenv("RECLAIM_OPENREVIEW_SITE", replay.url)
    _point_at(monkeypatch, hosts)
    cache, draft = tmp_path / "cache", tmp_path / "draft"
    args = ["curate", "build", "--openreview", VENUE, "--sample", "8", "--seed", "3", "--cache", str(cache),
            "--name", "neurips", "--version", "2026.0", "--interval", "0"]
    runner = CliRunner()
    res = runner.invoke(app, [*args, "-o", str(draft)])
    assert res.exit_code == 0, res.output
    assert "12 paper(s) read, 8 drafted" in res.output and "1 left out" in res.output
    tasks = sorted(draft.glob("*/task.yaml"))
    assert len(tasks) == 8
    for t in tasks:
        spec = load_task(t.parent)  # a valid task, pending review
        assert spec.review.status == "pending" and spec.target.value in {70.5 + k for k in range(10)}
        assert spec.target.where == "Table 1, row 'Ours', column 'Accuracy (%)'" and spec.criteria.abs_tol == 1.0
        assert spec.budget.gpu_hours == 36.0 and "4 A100 GPUs for 6 hours" in spec.review.checklist["budget rule"]
        assert "found there by code" in spec.review.checklist["claim at its location"]
        if spec.level.value in ("run", "retrain"):
            assert spec.materials.code.git.commit == "a" * 40
            assert "code-created:2025-04-01" in spec.tags  # dates kept, to filter by a training cut-off
        assert "published:2025-09-16" in spec.tags
    assert "Another baseline" not in (draft / "CURATION.md").read_text() and "no results table with a row" in \
        (draft / "CURATION.md").read_text()

    before = sum(replay.hits.values())
    replay.close()
    res = runner.invoke(app, [*args, "-o", str(tmp_path / "again"), "--offline"])
    assert res.exit_code == 0, res.output
    assert "0 request(s)" in res.output and sum(replay.hits.values()) == before
    assert [p.read_text() for p in tasks] == [p.read_text() for p in sorted((tmp_path / "again").glob("*/task.yaml"))]

    res = runner.invoke(app, ["tasks", "validate", str(draft)])  # a draft is a status, not a problem
    assert res.exit_code == 0 and "8 drafts not yet accepted by a reviewer" in res.output, res.output
    res = runner.invoke(app, ["run", "--suite", str(draft), "--agent", "nop", "--dry-run"])
    assert res.exit_code == 2 and "not accepted" in res.output and "--allow-pending" in res.output

    # accepted means checked: a draft with no reference is refused, whatever the reviewer types
    res = runner.invoke(app, ["curate", "review", str(draft), "--reviewer", "ada"], input="a\ns\nr\n" + "s\n" * 6)
    assert res.exit_code == 0, res.output
    assert "reference: null" in res.output and "accepted 0, rejected 1, skipped 7" in res.output
    # the curator writes a reference and what verifying it needs, for a task with code to withhold
    k = next(i for i, p in enumerate(tasks) if i > 1 and load_task(p.parent).level.value != "reimplement")
    spec = yaml.safe_load(tasks[k].read_text())
    (tasks[k].parent / "reference").mkdir()
    (tasks[k].parent / "reference" / "reproduce.sh").write_text("#!/bin/sh\npython3 train.py --eval\n")
    spec["reference"] = {"path": "reference", "entrypoint": "reproduce.sh"}
    spec["review"]["checklist"].update(needs_hardware="4x A100 80 GB, 6 h",
                                       verifier_must_run="reproduce.sh: results.json with accuracy within 1 point")
    tasks[k].write_text(yaml.safe_dump(spec, sort_keys=False))
    walk = ["s"] * 7  # the pending ones, in order: task 1 was rejected
    walk[k - 1] = "a"
    res = runner.invoke(app, ["curate", "review", str(draft), "--reviewer", "ada"], input="\n".join(walk) + "\n")
    assert res.exit_code == 0, res.output
    assert "accepted 1, rejected 0, skipped 6" in res.output
    statuses = [yaml.safe_load(p.read_text())["review"] for p in tasks]
    assert statuses[k]["status"] == "accepted" and statuses[k]["by"] == "ada"
    assert statuses[1]["status"] == "rejected"
    res = runner.invoke(app, ["tasks", "validate", str(draft), "--allow-pending"])
    assert res.exit_code == 0 and "1 draft rejected by a reviewer" in res.output, res.output
    rejected = tasks[1].parent.name
    res = runner.invoke(app, ["run", "--suite", str(draft), "--agent", "nop", "--dry-run", "--allow-pending",
                              "--task", rejected])
    assert res.exit_code == 2 and "not accepted" in res.output  # rejected is never let through


def test_build_names_its_source_and_refuses_a_used_folder(tmp_path):
    runner = CliRunner()
    res = runner.invoke(app, ["curate", "build", "-o", str(tmp_path / "d")])
    assert res.exit_code == 2 and "give one source" in res.output
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    res = runner.invoke(app, ["curate", "build", "--csv", str(tmp_path / "none.csv"), "-o", str(tmp_path / "full")])
    assert res.exit_code == 2 and "is not empty" in res.output


def test_a_folder_of_pdfs_for_any_other_venue(tmp_path, monkeypatch):
    _pdf_folder(tmp_path / "pdfs", 3, seed=3, monkeypatch=monkeypatch)
    (tmp_path / "pdfs" / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    res = CliRunner().invoke(app, ["curate", "build", "--pdf-folder", str(tmp_path / "pdfs"), "-o",
                                   str(tmp_path / "draft"), "--cache", str(tmp_path / "cache"), "--interval", "0"])
    assert res.exit_code == 0, res.output
    assert "3 paper(s) read, 3 drafted" in res.output and "broken.pdf: unreadable PDF" in res.output
    titles = sorted(yaml.safe_load(p.read_text())["paper"]["title"] for p in (tmp_path / "draft").glob("*/task.yaml"))
    assert titles == ["Method 0: a study", "Method 1: a study", "Method 2: a study"]


def test_a_models_proposal_is_kept_only_where_its_value_stands(tmp_path, monkeypatch):
    """An optional model proposes each headline; code re-reads the paper at the place it names. A
    proposal whose value is there replaces the rule's; a made-up one is set aside, and said so."""
    from scripted_openai import Reply, ScriptedOpenAI

    _pdf_folder(tmp_path / "pdfs", 2, seed=5, monkeypatch=monkeypatch)
    model = ScriptedOpenAI().push(
        Reply(content={"claim": "Ours reaches a test loss of 0.41.", "metric": "Test loss", "value": 0.41,
                       "direction": "lower_is_better", "where": "Table 1, row 'Ours', column 'Test loss'"}),
        Reply(content={"claim": "Ours reaches 99.9 %.", "metric": "Accuracy (%)", "value": 99.9,
                       "direction": "higher_is_better", "where": "Table 1, row 'Ours', column 'Accuracy (%)'"}))
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    try:
        res = CliRunner().invoke(app, ["curate", "build", "--pdf-folder", str(tmp_path / "pdfs"), "-o",
                                       str(tmp_path / "draft"), "--cache", str(tmp_path / "cache"), "--interval", "0",
                                       "--model", "scripted", "--openai-base-url", model.url])
    finally:
        model.close()
    assert res.exit_code == 0, res.output
    specs = {yaml.safe_load(p.read_text())["paper"]["title"]: yaml.safe_load(p.read_text())
             for p in (tmp_path / "draft").glob("*/task.yaml")}
    kept, aside = specs["Method 0: a study"], specs["Method 1: a study"]
    assert (kept["target"]["metric"], kept["target"]["value"], kept["target"]["direction"]) == \
        ("test_loss", 0.41, "lower_is_better")
    for p in (tmp_path / "draft").glob("*/task.yaml"):
        load_task(p.parent)  # valid tasks either way
    assert "scripted proposed it; its value stands" in kept["review"]["checklist"]["claim at its location"]
    assert aside["target"]["value"] == 81.5  # the rule's candidate
    assert "99.9" in aside["review"]["checklist"]["claim at its location"] and "set aside" in \
        aside["review"]["checklist"]["claim at its location"]
    assert len(model.requests) == 2
