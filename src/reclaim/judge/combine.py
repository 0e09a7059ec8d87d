"""The written rule that turns a model's reading and code's checks into one outcome.

The model can make a verdict stricter, never more generous than code allows:

1. ``reproduced`` needs the majority of the model's answers to say so AND every check to pass:
   each cited event exists and contains its quote; the measured value appears in a cited
   event; it satisfies the criteria (computed in code); it agrees with the value the harness's
   own re-execution computed; the model judged it computed (not restated, copied or
   hard-coded); and the rule judge's mechanical checks (re-execution ran and agrees, no
   hard-coded literal, no cached copy) found nothing against it. Otherwise ``not_reproduced``,
   flagged ``checks_overrule_model``.
2. ``disqualified`` needs the model's citations to verify, or the rule judge to have found
   fabrication itself; an unsupported accusation becomes ``not_reproduced``.
3. ``not_reproduced`` from the model stands, unless code found fabrication (``disqualified``).
4. Ties between answers go to ``not_reproduced``.
"""

from __future__ import annotations

import re
from collections import Counter

from reclaim.judge.criteria import Acceptance, consistent
from reclaim.judge.evidence import Evidence
from reclaim.judge.flags import Flag
from reclaim.judge.prompt import Reading
from reclaim.judge.verdict import Check, Verdict
from reclaim.store import Outcome

_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def _norm(text: str) -> str:
    return " ".join(text.split())


def value_in(text: str, value: float) -> bool:
    """Does ``text`` show ``value`` as a number, to the precision it is written with?"""
    for m in _NUMBER.finditer(text):
        lit = m.group()
        try:
            x = float(lit)
        except ValueError:
            continue
        mantissa = lit.lower().split("e")[0]
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        exp = int(lit.lower().split("e")[1]) if "e" in lit.lower() else 0
        half_ulp = 0.5 * 10 ** (exp - decimals)
        if decimals == 0 and "e" not in lit.lower() and value != round(value):
            continue  # '1' is no evidence of 0.93
        if abs(x - value) <= half_ulp + 1e-12 * max(1.0, abs(value)):
            return True
    return False


def majority(readings: list[Reading]) -> tuple[str, str]:
    counts = Counter(r.outcome for r in readings)
    top = max(counts.values())
    winners = [o for o, n in counts.items() if n == top]
    outcome = winners[0] if len(winners) == 1 else "not_reproduced"
    return outcome, f"{counts[outcome]}/{len(readings)}"


def check_reading(r: Reading, ev: Evidence, acc: Acceptance, rules: Verdict) -> list[Check]:
    checks = []
    missing = [c.event_id for c in r.citations if ev.event(c.event_id) is None]
    checks.append(Check(name="citations_exist", passed=bool(r.citations) and not missing,
                        detail=f"missing events {missing}" if missing else f"{len(r.citations)} cited"))
    bad = [c.event_id for c in r.citations
           if ev.event(c.event_id) is not None and _norm(c.quote) not in _norm(ev.full_text(c.event_id) or "")]
    checks.append(Check(name="quotes_found", passed=bool(r.citations) and not bad and not missing,
                        detail=f"quote not in event(s) {bad}" if bad else ""))
    v = r.measured_value
    shown = v is not None and any(value_in(ev.full_text(c.event_id) or "", v)
                                  for c in r.citations if ev.event(c.event_id) is not None)
    checks.append(Check(name="value_in_cited_output", passed=shown,
                        detail="" if shown else f"{v!r} appears in no cited event"))
    checks.append(Check(name="criteria_met", passed=v is not None and acc.accepts(v),
                        detail=f"{v!r} against {acc.rule}"))
    agree = v is not None and rules.measured is not None and consistent(v, rules.measured, acc.tol)
    checks.append(Check(name="agrees_with_reexecution", passed=agree,
                        detail=f"model {v!r}, re-execution {rules.measured!r}"))
    checks.append(Check(name="judged_computed", passed=r.computed_by == "computed", detail=r.computed_by))
    checks.append(Check(name="rule_checks", passed=rules.outcome == Outcome.reproduced,
                        detail=f"rules: {rules.outcome.value}: {rules.rationale}"))
    return checks


def _best(readings: list[Reading], ev: Evidence, acc: Acceptance, rules: Verdict) -> Reading:
    """The answer whose statements code could verify the most of (the last of equals)."""
    scored = [(sum(c.passed for c in check_reading(r, ev, acc, rules)), i) for i, r in enumerate(readings)]
    return readings[max(scored)[1]]


def combine(readings: list[Reading], ev: Evidence, acc: Acceptance,
            rules: Verdict) -> tuple[Outcome, list[Check], list[str], str]:
    """(outcome, checks of the deciding answer, flags, rationale) by the rule in this module's doc."""
    said, _ = majority(readings)
    mine = [r for r in readings if r.outcome == said]
    if not mine:  # a tie with no sample saying not_reproduced (1 reproduced, 1 disqualified): not reproduced
        said_by = ", ".join(sorted({r.outcome for r in readings}))
        why = f"the model's samples disagree ({said_by}, none a majority): not reproduced on its word. "
        checks = check_reading(_best(readings, ev, acc, rules), ev, acc, rules)  # shown, deciding nothing
        if rules.outcome == Outcome.disqualified:  # what code found stands
            return Outcome.disqualified, checks, list(rules.flags), why + rules.rationale
        return Outcome.not_reproduced, checks, [], why + rules.rationale
    best = _best(mine, ev, acc, rules)
    checks = check_reading(best, ev, acc, rules)
    failed = [c.name for c in checks if not c.passed]
    fabricated = rules.outcome == Outcome.disqualified
    if said == "reproduced":
        if not failed:
            return Outcome.reproduced, checks, [], best.rationale
        outcome = Outcome.disqualified if fabricated else Outcome.not_reproduced
        return outcome, checks, [Flag.checks_overrule_model, *failed], (
            f"the model said reproduced, but code found: {', '.join(failed)}. {rules.rationale}")
    if said == "disqualified":
        supported = fabricated or all(c.passed for c in checks if c.name in ("citations_exist", "quotes_found"))
        if supported:
            return Outcome.disqualified, checks, list(best.flags), best.rationale
        return Outcome.not_reproduced, checks, [Flag.unsupported_disqualification], (
            f"the model said disqualified without verifiable citations. {best.rationale}")
    if fabricated:
        return Outcome.disqualified, checks, list(rules.flags), rules.rationale
    flags: list[str] = [Flag.model_stricter_than_rules] if rules.outcome == Outcome.reproduced else []
    return Outcome.not_reproduced, checks, flags, best.rationale
