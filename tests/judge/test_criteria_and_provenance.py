"""Criteria computed in code, and the literal check that tells written numbers from computed ones."""

from __future__ import annotations

import math

from reclaim.judge.criteria import acceptance, consistent
from reclaim.judge.provenance import checkable, find_literals, significant_digits
from reclaim.spec import Criteria, Target


def _t(value, direction):
    return Target(claim="c", metric="m", value=value, direction=direction)


def test_tolerance_widens_only_the_losing_side():
    hi = acceptance(_t(0.9, "higher_is_better"), Criteria(abs_tol=0.01))
    assert hi.accepts(0.891) and hi.accepts(0.93) and not hi.accepts(0.889)
    lo = acceptance(_t(2.0, "lower_is_better"), Criteria(rel_tol=0.05))
    assert lo.accepts(2.1) and lo.accepts(1.7) and not lo.accepts(2.11)
    m = acceptance(_t(5.0, "match"), Criteria(abs_tol=0.1, rel_tol=0.04))
    assert m.tol == 0.2 and m.accepts(4.8) and not m.accepts(5.21)
    iv = acceptance(_t(1.0, "higher_is_better"), Criteria(interval=(0.9, 1.1)))
    assert iv.accepts(0.95) and not iv.accepts(1.2)
    assert not hi.accepts(math.nan)


def test_better_than_the_paper_is_bounded():
    """Claiming 0.99 for a paper's 0.81 is not a reproduction: past PLAUSIBLE_TOLERANCES
    tolerances on the better side the rules do not accept, and say why."""
    acc = acceptance(_t(0.81, "higher_is_better"), Criteria(abs_tol=0.02))
    assert acc.accepts(0.80) and acc.accepts(0.89) and not acc.accepts(0.99)
    assert acc.implausible(0.99) and not acc.implausible(0.70)
    assert "better than the paper" in acc.why_not(0.99) and "misses" in acc.why_not(0.70)
    assert acc.why_not(0.85) == ""
    lo = acceptance(_t(3.0, "lower_is_better"), Criteria(abs_tol=0.5))
    assert lo.accepts(1.01) and not lo.accepts(0.99)
    own = acceptance(_t(0.81, "higher_is_better"), Criteria(abs_tol=0.02, max_better=0.01))
    assert own.accepts(0.82) and not own.accepts(0.83)
    free = acceptance(_t(0.81, "higher_is_better"), Criteria(abs_tol=0.02, max_better=math.inf))
    assert free.accepts(0.99) and "plausibly" not in free.rule
    assert acceptance(_t(0.81, "higher_is_better"), Criteria(abs_tol=0.0)).accepts(0.99)  # no spread: no bound


def test_consistency_uses_the_tolerance():
    assert consistent(0.91, 0.915, 0.01) and not consistent(0.91, 0.93, 0.01)
    assert consistent(1.0, 1.0, 0.0) and not consistent(1.0, 1.001, 0.0)


def test_significant_digits():
    assert significant_digits(0.9133) == 4
    assert significant_digits(3.0) == 1
    assert significant_digits(1200.0) == 2
    assert significant_digits(1.5e-05) == 2
    assert checkable(0.913) and not checkable(0.5) and not checkable(10.0)


def test_find_literals_in_code_and_data(tmp_path):
    (tmp_path / "run.sh").write_text("echo '{\"acc\": 0.9133}' > results.json\nsleep 0.91\n")
    (tmp_path / "notes.txt").write_text("we got 0.91330 today\n")
    (tmp_path / "tool").write_text("#!/usr/bin/env python3\nprint(0.9133)\n")
    (tmp_path / "blob.bin").write_bytes(b"\xff\xfe0.9133")
    found = find_literals(tmp_path, ["run.sh", "notes.txt", "tool", "blob.bin"], 0.9133)
    assert [(f.path, f.line, f.is_code) for f in found] == [
        ("run.sh", 1, True), ("notes.txt", 1, False), ("tool", 2, True)]
    assert find_literals(tmp_path, ["run.sh"], 0.913) == []


def test_a_tiny_value_is_not_matched_by_a_zero_literal(tmp_path):
    """A gold overshoot claimed test_rmse 1.5e-15 and the judge cited `range(0, p)` as that literal:
    the match was absolute (1e-12) below 1, so any 0 in a program 'wrote' every tiny value."""
    (tmp_path / "fit.py").write_text("X = [y for k in range(0, p)]\nEPS = 1.521471441899626e-15\n")
    hits = find_literals(tmp_path, ["fit.py"], 1.521471441899626e-15)
    assert [(h.line, h.text) for h in hits] == [(2, "EPS = 1.521471441899626e-15")]
    assert find_literals(tmp_path, ["fit.py"], 0.30000000000000004) == []
    (tmp_path / "b.py").write_text("A = 0.3\n")
    assert len(find_literals(tmp_path, ["b.py"], 0.1 + 0.2)) == 1  # float noise still matches
