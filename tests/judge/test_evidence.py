"""The evidence bundle: complete, citable, honest about what it cut, and within its budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_suite, task_yaml, write_agent, write_suite
from reclaim.judge.compress import ProgramRelevance, Relevance, compress
from reclaim.judge.evidence import build_evidence
from reclaim.judge.evidence_prints import Search, shows
from reclaim.store import trial_spec

GOLD = Path(__file__).resolve().parents[2] / "gold" / "demo" / "trials"


def test_bundle_of_a_gold_trial():
    tdir = GOLD / "run-ridge-nir__overclaim__0"
    ev = build_evidence(tdir, trial_spec(tdir))
    text = ev.render()
    assert ev.task.metric == "test_rmse" and "value <= 2.7271" in ev.task.acceptance
    # the fresh run, then (its number short of the claim, the data rewritten) the one with the data as released
    assert [c.phase for c in ev.commands] == ["agent", "agent", "reexec", "reexec"]
    assert ev.reexec.ran and ev.reexec.removed == ["results.json"]  # paper.md and TASK.md shown, answers hidden
    assert "UNTRUSTED" in text and "reproduced the paper's result exactly" in ev.untrusted.final_message
    provided = {f.path for f in ev.manifest if f.provided}
    assert "data/test.csv" in provided  # known from materials.json even though the gold copy dropped it
    written = {f.path: f.written_by for f in ev.manifest if not f.provided}
    assert written["results.json"] == ev.commands[1].id
    for c in ev.commands:
        assert f"[event {c.id}]" in text


def test_full_text_holds_the_whole_output_for_citation_checks():
    tdir = GOLD / "run-mlp-spirals__reference__0"
    ev = build_evidence(tdir, trial_spec(tdir))
    rx = ev.event(ev.reexec.event_id)
    full = ev.full_text(rx.id)
    assert "test_accuracy = 0.9566666666666667" in full and "results.json:" in full
    assert ev.full_text(12345) is None


def test_long_output_is_cut_to_budget_keeping_what_matters(tmp_path, sandbox_name):
    noisy = ("for i in $(seq 1 60000); do echo \"epoch $i loss 0.$RANDOM\"; done\n"
             "echo 'Traceback (most recent call last): something broke at step 31337'\n"
             "for i in $(seq 1 30000); do echo \"step $i\"; done\n"
             "echo 'final mean_value 3.19375'\n"
             "python3 -c \"import json; v=[float(x) for x in open('data/values.csv').read().split()]; "
             "json.dump({'mean_value': sum(v)/len(v)}, open('results.json','w'))\"\n")
    agent = write_agent(tmp_path / "noisy.sh", noisy)
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name)
    tdir = rd.trial_dir(rec.trial_id)
    ev = build_evidence(tdir, trial_spec(tdir), max_tokens=4000)
    assert ev.tokens() <= 4000
    out = ev.commands[0].stdout
    assert "epoch 1 loss" in out  # head
    assert "final mean_value 3.19375" in out  # the metric, near the tail
    assert "Traceback" in out and "step 31337" in out  # errors from the middle
    assert "lines cut" in out and any("stdout" in c.part and c.cut > 50_000 for c in ev.cuts)
    assert ev.commands[0].stdout_bytes > 1_000_000


def test_compress_marks_every_gap():
    text = "\n".join(f"line {i}" for i in range(1000)) + "\naccuracy 0.9133\n" + "\n".join(f"x {i}" for i in range(500))
    out, cut = compress(text, 2000, Relevance("accuracy", 0.91, 0.01), head=5, tail=5)
    assert out.startswith("line 0") and "accuracy 0.9133" in out and out.endswith("x 499")
    assert cut > 1000 and out.count("lines cut") >= 2
    assert compress("short", 100, Relevance("m", 1.0, 0.1)) == ("short", 0)


@pytest.mark.parametrize("token, value, shown", [
    ("3.19375", 3.19375, True), ("3.1938", 3.19375, True), ("3.19", 3.19375, True),  # rounded, 3+ digits
    ("3.2", 3.19375, False), ("3", 3.19375, False),  # under three significant digits: only exact
    ("8.712e-01", 0.871234, True), ("0.87124", 0.871234, False), ("0.900", 0.8996, True),
    ("0.81", 0.81, True), ("81", 0.81, False), ("3", 3.0, True), ("3.00", 3.0, True), ("2.50", 2.5, True),
    ("1235", 1234.56, False),  # a whole number never shows one that is not
])
def test_the_first_print_number_rule(token, value, shown):
    assert shows(token, value) is shown


def test_first_print_search_skips_versions_and_words():
    s = Search({"acc": 0.871234, "n": 11.0})
    s.feed("Python 3.11.2 on x86_64\nv0.8712 is a tag\nepoch 1 acc=0.8712, loss 11\n", 1)
    assert s.found == {"acc": (3, "epoch 1 acc=0.8712, loss 11"), "n": (3, "epoch 1 acc=0.8712, loss 11")}


def test_compress_keeps_pinned_lines_and_a_programs_relevant_lines_first():
    text = "\n".join(f"a{i} = a{i - 1} + 1" for i in range(3000))
    text = text.replace("a1500 = a1499 + 1", "FINAL = 8100 / 10000")
    out, cut = compress(text, 600, ProgramRelevance("acc", 0.9, 0.01), relevant_first=True)
    assert "FINAL = 8100 / 10000" in out and cut > 2900 and len(out) <= 600
    log = "\n".join(f"step {i} loss {i % 7}" for i in range(5000))
    out, _ = compress(log, 800, Relevance("acc", 0.9, 0.01), pinned=["step 2500 loss 1"])
    assert "step 2500 loss 1" in out and len(out) <= 800
