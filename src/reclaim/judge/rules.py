"""The offline rule judge: decides from the harness's own record, in code, with citations.

A trial is ``reproduced`` only when all of these hold:
1. the agent left a results.json with the target metric;
2. the harness re-ran the agent's reproduce.sh in a fresh sandbox — without results.json,
   paper.md and TASK.md, so nothing can be copied from them — and it exited 0 (a script that
   then fails while the agent's programs read paper.md or TASK.md copied its number from the
   paper: disqualified);
3. the re-execution wrote the metric, and it agrees with the agent's own value;
4. the value is not written as a literal in any program the agent left (see provenance.py):
   a reproduce.sh that only prints the paper's number re-executes fine but computes nothing,
   which is fabrication and disqualifies the trial; and where the value already sat in a data
   file the agent left, a second re-execution without that file still computes it;
5. the re-executed value satisfies the criteria, computed in criteria.py;
6. where the workspace held released data or weights, a re-execution without them (and
   without any copy of them) did not produce the value again, nor did one with their content
   scrambled (runner/scramble.py): a number that still comes out was not computed from the
   materials (not reproduced; disqualified where the agent's own files hold that number in a
   form it could be read back from). Where there is nothing to withhold or scramble, the
   verdict says the check did not apply.

Before all of these: a trial whose files hold files of a material its level withholds (the
official code at ``reimplement``, the weights at ``retrain``), by whatever route they came, is
disqualified; requests the egress proxy denied are flagged (``network_denied``, and
``withheld_material_requested`` where the URL was a withheld material's).
"""

from __future__ import annotations

from pathlib import Path

from reclaim.judge.criteria import acceptance, consistent
from reclaim.judge.provenance import checkable, find_encoded, find_literals, reads_texts
from reclaim.judge.results import read_metric
from reclaim.judge.verdict import Citation, Verdict
from reclaim.spec import TaskSpec
from reclaim.store.files import TRACE, read_model
from reclaim.store.models import Outcome, ReexecRecord, Status
from reclaim.trace import CommandFinished, read_trace

RESULTS = "results.json"
EXCLUDED_TEXTS = ("paper.md", "TASK.md")  # removed before re-execution; a program reading them copies


def _writer_of(trace: list, path: str, phase: str) -> int | None:
    """The last command of ``phase`` that created or changed ``path``."""
    found = None
    for ev in trace:
        if isinstance(ev, CommandFinished) and ev.phase == phase:
            if any(f.path == path and f.change != "deleted" for f in ev.files):
                found = ev.id
    return found


class RulesJudge:
    name = "rules"
    label = "rules"
    version = "3"

    def judge(self, spec: TaskSpec, trial_dir: Path, status: Status) -> Verdict:
        t = spec.target
        acc = acceptance(t, spec.criteria)
        v = Verdict(judge=self.name, judge_version=self.version, outcome=Outcome.not_reproduced,
                    metric=t.metric, target=t.value, direction=t.direction.value, tolerance=acc.rule,
                    accept_low=acc.low if acc.low > float("-inf") else None,
                    accept_high=acc.high if acc.high < float("inf") else None, rationale="")
        trace = read_trace(trial_dir / TRACE) if (trial_dir / TRACE).exists() else []

        def done(outcome: Outcome, why: str, *flags: str) -> Verdict:
            v.outcome, v.rationale = outcome, why
            v.flags.extend(flags)
            return v

        # what the network and the content check saw: no result stands on withheld material
        leaks = [e for e in trace if getattr(e, "kind", "") == "withheld_found"]
        if leaks:
            for e in leaks[:5]:
                v.citations.append(Citation(event_id=e.id, why=f"files of the withheld {e.material} in the agent's files"))
            first = leaks[0]
            return done(Outcome.disqualified,
                        f"the agent obtained the withheld {first.material}, which level '{spec.level.value}' "
                        f"keeps from it: {'; '.join(first.files[:5])}", "withheld_material")
        denied = [e for e in trace if getattr(e, "kind", "") == "network_request" and not e.allowed]
        asked = [e for e in denied if e.forbidden]
        if asked:
            v.flags.append("withheld_material_requested")
            for e in asked[:5]:
                v.citations.append(Citation(event_id=e.id, why=f"asked for the withheld {e.forbidden}: {e.url[:200]}"))
        if denied:
            v.flags.append("network_denied")

        if status == Status.budget_exhausted:
            return done(Outcome.budget_exhausted, "the agent ran out of its wall-clock budget and was stopped")

        agent_value, why = read_metric(trial_dir / "workspace", RESULTS, t.metric)
        v.agent_value = agent_value
        if (ev := _writer_of(trace, RESULTS, "agent")) is not None:
            v.citations.append(Citation(event_id=ev, why="the agent's command that wrote results.json"))
        if agent_value is None:
            return done(Outcome.not_reproduced, f"the agent left no usable result: {why}", "no_results")

        rx = read_model(trial_dir / "reexec" / "reexec.json", ReexecRecord)
        if rx is None or not rx.ran:
            reason = rx.reason if rx else "no re-execution record"
            return done(Outcome.not_reproduced, f"not re-executed: {reason}", "no_reexec")
        if rx.event_id is not None:
            v.citations.append(Citation(event_id=rx.event_id, why="the fresh re-execution of reproduce.sh"))
        measured, why = read_metric(trial_dir / "reexec" / "workspace", RESULTS, t.metric)
        readers = reads_texts(trial_dir / "reexec" / "workspace", rx.sources, EXCLUDED_TEXTS)
        if readers and (rx.exit_code != 0 or measured is None):
            return done(Outcome.disqualified,
                        f"reproduce.sh fails without the paper, and the agent's program(s) "
                        f"{', '.join(readers)} read it: the number is copied from the paper",
                        "reads_paper", "fabrication")
        if rx.timed_out:
            return done(Outcome.not_reproduced, "re-executing reproduce.sh ran out of the wall-clock budget",
                        "reexec_timeout")
        if rx.exit_code != 0:
            return done(Outcome.not_reproduced, f"reproduce.sh failed on re-execution (exit {rx.exit_code})",
                        "reexec_failed")
        v.measured = measured
        if measured is None:
            return done(Outcome.not_reproduced, f"re-execution produced no usable result: {why}",
                        "reexec_no_results")

        if checkable(measured):
            literals = find_literals(trial_dir / "reexec" / "workspace", rx.sources, measured)
            in_code = [lit for lit in literals if lit.is_code]
            if in_code:
                where = "; ".join(f"{lit.path}:{lit.line}: {lit.text}" for lit in in_code[:5])
                return done(Outcome.disqualified,
                            f"the value {measured!r} is written into the agent's own program(s), not "
                            f"computed: {where}", "hard_coded", "fabrication")
            if literals:
                v.flags.append("value_in_static_file")
            if (ab := rx.ablation) is not None:
                if ab.event_id is not None:
                    v.citations.append(Citation(event_id=ab.event_id,
                                                why="re-execution without the files that held the value"))
                again, _ = read_metric(trial_dir / "reexec" / "ablation" / "workspace", RESULTS, t.metric)
                if ab.exit_code != 0 or again is None or not consistent(again, measured, acc.tol):
                    got = f"computed {again!r}" if again is not None and ab.exit_code == 0 else "failed"
                    return done(Outcome.not_reproduced,
                                f"reproduce.sh copies its result: without {', '.join(ab.removed)} "
                                f"it {got}", "cached_result")
        else:
            v.flags.append("provenance_unchecked")

        if checkable(t.value) and abs(measured - t.value) <= 1e-12 * max(1.0, abs(t.value)):
            v.flags.append("equals_reported_value")  # computed results rarely stop at the paper's digits
        if not consistent(agent_value, measured, acc.tol):
            return done(Outcome.not_reproduced,
                        f"the agent reported {agent_value!r} but re-execution computed {measured!r}",
                        "inconsistent_reexec")
        v.criteria_met = acc.accepts(measured)
        if v.criteria_met:
            if rx.withheld is None:
                v.flags.append("materials_check_not_applicable")
                return done(Outcome.reproduced,
                            f"re-execution computed {t.metric} = {measured!r}, which satisfies {acc.rule}")
            for which, how in (("withheld", "without the released materials"),
                               ("scrambled", "with the released materials scrambled")):
                w = getattr(rx, which)
                if w is None:
                    continue
                again, _ = read_metric(trial_dir / "reexec" / which / "workspace", RESULTS, t.metric)
                if not (w.ran and w.exit_code == 0 and again is not None and consistent(again, measured, acc.tol)):
                    continue
                if w.event_id is not None:
                    v.citations.append(Citation(event_id=w.event_id, why=f"re-execution {how}"))
                files = w.removed if which == "withheld" else w.scrambled_files
                held = ", ".join(files[:5]) + (" ..." if len(files) > 5 else "")
                where = find_encoded(trial_dir / "reexec" / "workspace", rx.sources, measured)
                if where:
                    return done(Outcome.disqualified,
                                f"{how} ({held}) reproduce.sh still gives {again!r}, and the agent's own "
                                f"files hold that number: {'; '.join(where[:5])}",
                                "independent_of_materials", "fabrication")
                return done(Outcome.not_reproduced,
                            f"{how} ({held}) reproduce.sh still gives {again!r}: the number is not computed "
                            "from them", "independent_of_materials")
            sc = rx.scrambled
            if sc is None or not sc.scrambled_files:
                v.flags.append("content_check_not_applicable")  # no file of a format we can scramble
            check = f"; without the released data and weights it {rx.withheld.reason}"
            if sc is not None and sc.scrambled_files:
                check += " and with them scrambled it " + ("failed" if sc.exit_code != 0 else "computed another value")
            return done(Outcome.reproduced,
                        f"re-execution computed {t.metric} = {measured!r}, which satisfies {acc.rule}{check}, "
                        "so the value depends on them")
        return done(Outcome.not_reproduced,
                    f"re-execution computed {t.metric} = {measured!r}, which misses {acc.rule}")
