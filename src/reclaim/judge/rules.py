"""The offline rule judge: decides from the harness's own record, in code, with citations.

A trial is ``reproduced`` only when all of these hold:
1. the agent left a results.json with the target's numbers (every required metric of the claim);
2. the harness re-ran the agent's reproduce.sh in a fresh sandbox — without results.json, and
   with paper.md, TASK.md and the release's texts showing another value for each target
   (runner/answers.py), so a number copied from them is the wrong one — and it exited 0 (a
   result equal to the value shown in the target's place was copied: disqualified);
3. the re-execution wrote the metric, and it agrees with the agent's own value;
4. the value is not written as a literal in any program the agent left (see provenance.py):
   a reproduce.sh that only prints the paper's number re-executes fine but computes nothing,
   which is fabrication and disqualifies the trial; and where the value already sat in a data
   file the agent left, a second re-execution without that file still computes it. What is read
   is judge/scope.py's decision, recorded with the re-execution and stated in the verdict (its
   ``scope``, and the rationale of a literal found): a program the re-execution rewrote or deleted
   is read as the agent wrote it, and a file too large to read is flagged
   ``provenance_incomplete`` (a flag: an unread file is not a literal found);
5. every required re-executed number satisfies its criteria, computed in criteria.py, and none
   is better than the paper by more than is plausible (criteria.max_better);
6. where the workspace held released data or weights, a re-execution without them (and
   without any copy of them) did not produce the value again, nor did one with their content
   scrambled (runner/scramble.py): a number that still comes out was not computed from the
   materials (not reproduced; disqualified where the agent's own files hold that number in a
   form it could be read back from). Where there is nothing to withhold or scramble, the
   verdict says the check did not apply.

With ``budget.reexec.mode: evaluate`` the re-executed script is the agent's evaluation entry
point, and a result counts only where training.py finds the artefacts it evaluated made by
recorded training of a plausible cost.

With several numbers, "the value" is each of them: any one written as a literal disqualifies;
a re-run "gives the value again" when every required number agrees.

Before all of these: a trial whose files hold files of a material its level withholds (the
official code at ``reimplement``, the weights at ``retrain``), by whatever route they came, is
disqualified; requests the egress proxy denied are flagged (``network_denied``, and
``withheld_material_requested`` where the URL was a withheld material's).
"""

from __future__ import annotations

from pathlib import Path

from reclaim.judge.checks import check_of
from reclaim.judge.claim import Reading, acceptances, read_claim, same_result
from reclaim.judge.config import JudgeConfig
from reclaim.judge.criteria import consistent
from reclaim.judge.dependence import Finding, at_bound, findings, flag_of, keyed_to_bytes, literals_altered, qualifies
from reclaim.judge.flags import Flag
from reclaim.judge.provenance import checkable, find_encoded, find_literals, reads_texts
from reclaim.judge.training import check_training
from reclaim.judge.verdict import Citation, MetricVerdict, TrainingSummary, Verdict
from reclaim.spec import TaskSpec
from reclaim.store import RESULTS, TRACE, Outcome, ReexecRecord, Status, read_model
from reclaim.trace import BudgetEvent, CommandFinished, NetworkRequest, WithheldFound, read_trace

PAPER_TEXTS = ("paper.md", "TASK.md")  # shown with other values in re-execution; a program reading them may copy


def _writer_of(trace: list, path: str, phase: str) -> int | None:
    """The last command of ``phase`` that created or changed ``path``."""
    found = None
    for ev in trace:
        if (isinstance(ev, CommandFinished) and ev.phase == phase
                and any(f.path == path and f.change != "deleted" for f in ev.files)):
            found = ev.id
    return found


def _bounds(r: tuple[float, float]) -> dict:
    return {"accept_low": r[0] if r[0] > float("-inf") else None,
            "accept_high": r[1] if r[1] < float("inf") else None}


def _named(name: str, several: bool) -> str:
    return f" ({name})" if several else ""


REWRITTEN = " (as the agent left it: the re-execution rewrote it)"
CHANGED_IN_PLACE = " (a released file the agent changed in place: its own program now)"


def _scanned(trial_dir: Path, rx: ReexecRecord) -> list[tuple[Path, list[str], str]]:
    """(root, files, note) that the literal checks read: the agent's programs in the re-execution's
    workspace, and those the re-execution rewrote or deleted in the version the agent wrote (a
    program that prints the paper's number and then blanks itself is still that program)."""
    out = [(trial_dir / "reexec" / "workspace", rx.sources, "")]
    if rx.scope is not None and rx.scope.rewritten:
        out.append((trial_dir / "workspace", rx.scope.rewritten, REWRITTEN))
    if rx.scope is not None and rx.scope.changed_materials:
        out.append((trial_dir / "workspace", rx.scope.changed_materials, CHANGED_IN_PLACE))
    return out


def _copied(rx: ReexecRecord, got) -> str:
    """The numbers the fresh run gave that are the ones its paper.md, TASK.md and the release's
    texts showed in the targets' place (ReexecRecord.answers), in words ('' when none)."""
    out = []
    for name, value in got.present().items():
        if name in rx.answers and isinstance(value, (int, float)):
            paper, shown = rx.answers[name]
            if abs(value - shown) <= 0.02 * abs(shown - paper):
                out.append(f"{name} = {value!r}, the value its texts showed in place of the paper's {paper!r}")
    return "; ".join(out)


def _purged(rx: ReexecRecord) -> str:
    """Which of the agent's files no re-run held, where its numbers fall short: what reproduce.sh must make."""
    if not rx.purged:
        return ""
    items = sorted(rx.purged.items())
    few = "; ".join(f"{rel} ({why})" for rel, why in items[:4]) + (f"; and {len(items) - 4} more" if len(items) > 4
                                                                     else "")
    return (f" (no re-run holds the agent's files that are not source text, which reproduce.sh must make again: "
            f"{few})")


def _what_was_read(rx: ReexecRecord) -> str:
    return f" ({rx.scope.describe()})" if rx.scope is not None else ""


def _data_rewritten(rx: ReexecRecord) -> str:
    """Where the fresh run saw the released data rewritten, meaning kept: said wherever its numbers fall short."""
    if not rx.rewritten_data:
        return ""
    return (f" (it saw the released data rewritten, meaning kept: {', '.join(rx.rewritten_data[:3])}; a number "
            "computed from them does not change, one keyed to their bytes does)")


class RulesJudge:
    name = "rules"
    label = "rules"
    version = "6"
    offline = True

    @classmethod
    def from_config(cls, config: JudgeConfig) -> RulesJudge:
        return cls()

    def judge(self, spec: TaskSpec, trial_dir: Path, status: Status) -> Verdict:
        ms, accs = spec.metrics(), acceptances(spec)
        several = len(ms) > 1
        mv = {m.name: MetricVerdict(name=m.name, target=m.value, direction=m.direction.value, required=m.required,
                                    tolerance=accs[m.name].rule, **_bounds(accs[m.name].range)) for m in ms}
        p = mv[spec.target.primary]
        v = Verdict(judge=self.name, judge_version=self.version, outcome=Outcome.not_reproduced,
                    metric=p.name, target=p.target, direction=p.direction, tolerance=p.tolerance,
                    accept_low=p.accept_low, accept_high=p.accept_high, rationale="", metrics=list(mv.values()))
        trace = read_trace(trial_dir / TRACE) if (trial_dir / TRACE).exists() else []

        def done(outcome: Outcome, why: str, *flags: str) -> Verdict:
            if outcome == Outcome.reproduced and v.training is not None:
                why += f"; only the evaluation ({spec.budget.reexec.entrypoint}) was re-run: {v.training.why}"
            if v.mentions and outcome == Outcome.reproduced:
                why += (f"; the agent's programs mention the value ({'; '.join(v.mentions[:3])}), and the re-run "
                        "with it changed there computed the same: a mention, not its source")
            if Flag.provenance_incomplete in v.flags and outcome != Outcome.disqualified and v.scope is not None:
                why += (f"; the literal checks could not read {', '.join(v.scope.unread[:3])}"
                        f"{' ...' if len(v.scope.unread) > 3 else ''} (too large or unreadable): not checked")
            v.outcome, v.rationale = outcome, why
            v.flags.extend(flags)
            v.agent_value, v.measured = p.agent_value, p.measured
            return v

        # what the network and the content check saw: no result stands on withheld material
        leaks = [e for e in trace if isinstance(e, WithheldFound)]
        if leaks:
            for e in leaks[:5]:
                v.citations.append(Citation(event_id=e.id,
                                            why=f"files of the withheld {e.material} in the agent's files"))
            first = leaks[0]
            return done(Outcome.disqualified,
                        f"the agent obtained the withheld {first.material}, which level '{spec.level.value}' "
                        f"keeps from it: {'; '.join(first.files[:5])}", Flag.withheld_material)
        denied = [e for e in trace if isinstance(e, NetworkRequest) and not e.allowed]
        asked = [e for e in denied if e.forbidden]
        if asked:
            v.flags.append(Flag.withheld_material_requested)
            for req in asked[:5]:
                v.citations.append(Citation(event_id=req.id,
                                            why=f"asked for the withheld {req.forbidden}: {req.url[:200]}"))
        if denied:
            v.flags.append(Flag.network_denied)

        if status == Status.budget_exhausted:
            stop = next((e for e in reversed(trace) if isinstance(e, BudgetEvent) and e.what == "stopped"), None)
            if stop is None:  # a trial recorded before the stop named its limit
                return done(Outcome.budget_exhausted, "the agent ran out of its wall-clock budget and was stopped")
            v.citations.append(Citation(event_id=stop.id, why="the limit that stopped the agent"))
            return done(Outcome.budget_exhausted, stop.detail)

        agent = read_claim(trial_dir / "workspace", spec)
        for name, x in agent.values.items():
            mv[name].agent_value = x
        if (ev := _writer_of(trace, RESULTS, "agent")) is not None:
            v.citations.append(Citation(event_id=ev, why="the agent's command that wrote results.json"))
        if missing := agent.missing(spec):
            return done(Outcome.not_reproduced, f"the agent left no usable result: {agent.why[missing[0]]}",
                        Flag.no_results)

        rx = read_model(trial_dir / "reexec" / "reexec.json", ReexecRecord)
        if rx is None or not rx.ran:
            reason = rx.reason if rx else "no re-execution record"
            return done(Outcome.not_reproduced, f"not re-executed: {reason}", Flag.no_reexec)
        v.reexec_mode = rx.mode
        if rx.scope is not None:
            v.scope = rx.scope.model_copy(update={"rewritten": rx.scope.rewritten[:50]})
            if rx.scope.unread:  # a flag, not a verdict: a file too large to read is not a literal found
                v.flags.append(Flag.provenance_incomplete)
        if rx.event_id is not None:
            v.citations.append(Citation(event_id=rx.event_id, why=f"the fresh re-execution of {rx.script}"))
            main = next((e for e in trace if isinstance(e, CommandFinished) and e.id == rx.event_id), None)
            if main is not None and main.programs_cut:
                v.flags.append(Flag.record_incomplete)
        ws = trial_dir / "reexec" / "workspace"
        got = read_claim(ws, spec)
        missing = got.missing(spec)
        readers = [f"{r}{note}" for root, files, note in _scanned(trial_dir, rx)
                   for r in reads_texts(root, files, PAPER_TEXTS)]
        if rx.exit_code == 0 and (copied := _copied(rx, got)):
            read = f"; the agent's program(s) {', '.join(readers)} read the paper" if readers else ""
            return done(Outcome.disqualified,
                        f"the re-execution gave {copied}: the number is copied from the texts, not computed{read}"
                        f"{_what_was_read(rx)}", Flag.reads_paper, "fabrication")
        if (keyed := keyed_to_bytes(spec, trial_dir, rx)) is not None:
            v.dependence = [keyed]
            if keyed.event_id is not None:
                v.citations.append(Citation(event_id=keyed.event_id, why="the re-run with the data as released"))
            return done(Outcome.not_reproduced, f"{keyed.detail}: {check_of('data_rewritten').concludes}",
                        Flag.keyed_to_bytes)
        if rx.timed_out:
            return done(Outcome.not_reproduced, f"re-executing {rx.script} ran out of the wall-clock budget",
                        Flag.reexec_timeout)
        if rx.exit_code != 0:
            return done(Outcome.not_reproduced, f"{rx.script} failed on re-execution (exit {rx.exit_code})"
                        f"{_data_rewritten(rx)}{_purged(rx)}", Flag.reexec_failed)
        if rx.mode == "evaluate":
            tc = check_training(spec, trial_dir, trace)
            v.training = TrainingSummary.model_validate(tc.summary())
            for ev in tc.writers[:5]:
                v.citations.append(Citation(event_id=ev, why="the recorded command that wrote a trained artefact"))
            if not tc.ok:
                return done(Outcome.not_reproduced, f"only the evaluation was re-run, and {tc.why}", tc.flag)
        for name, x in got.values.items():
            mv[name].measured = x
        if missing:
            return done(Outcome.not_reproduced, f"re-execution produced no usable result: {got.why[missing[0]]}"
                        f"{_purged(rx)}", Flag.reexec_no_results)

        if (out := self._provenance(spec, trial_dir, rx, got, several, v, done)) is not None:
            return out
        for m in ms:
            x = got.values.get(m.name)
            if x is not None and checkable(m.value) and abs(x - m.value) <= 1e-12 * abs(m.value):
                v.flags.append(Flag.equals_reported_value)  # computed results rarely stop at the paper's digits
                break
        for m in ms:
            a, x = agent.values.get(m.name), got.values.get(m.name)
            if a is not None and x is not None and not consistent(a, x, accs[m.name].tol):
                return done(Outcome.not_reproduced,
                            f"the agent reported {a!r}{_named(m.name, several)} but re-execution computed {x!r}"
                            f"{_data_rewritten(rx)}{_purged(rx)}", Flag.inconsistent_reexec)
        for m in ms:
            x = got.values.get(m.name)
            if x is not None:
                mv[m.name].met = accs[m.name].accepts(x)
                mv[m.name].why = accs[m.name].why_not(x)
        v.criteria_met = all(mv[m.name].met for m in ms if m.required)
        computed = ", ".join(f"{m.name} = {got.values[m.name]!r}" for m in ms if got.values.get(m.name) is not None)
        rules = "; ".join(f"{accs[m.name].rule}" + _named(m.name, several) for m in ms if m.required)
        if not v.criteria_met:
            failing = [mv[m.name] for m in ms if m.required and not mv[m.name].met]
            # (a required number is measured here: one missing ended the judging above)
            wild = [f for f in failing if f.measured is not None and accs[f.name].implausible(f.measured)]
            why = "; ".join(f.why + _named(f.name, several) for f in failing)
            return done(Outcome.not_reproduced, f"re-execution computed {computed}: {why}{_data_rewritten(rx)}",
                        *([Flag.implausibly_better] if wild else []))
        return self._dependence(spec, trial_dir, rx, got, computed, rules, v, done)

    @staticmethod
    def _provenance(spec: TaskSpec, trial_dir: Path, rx: ReexecRecord, got: Reading, several: bool,
                    v: Verdict, done):
        """A number written into the agent's programs, or read back from its data files."""
        values = [(name, x) for name, x in got.present().items() if checkable(x)]
        if not values:
            v.flags.append(Flag.provenance_unchecked)
            return None
        static = False
        again = read_claim(trial_dir / "reexec" / "altered" / "workspace", spec) if rx.altered is not None else None
        if rx.altered is not None and again is not None:
            v.dependence.append(literals_altered(spec, rx, again, got))
        for name, x in values:
            literals = [(lit, note) for root, files, note in _scanned(trial_dir, rx)
                        for lit in find_literals(root, files, x)]
            in_code = [(lit, note) for lit, note in literals if lit.is_code]
            # the re-run with every such literal changed computed this number the same: they are mentions
            mentioned = rx.altered is not None and again is not None and rx.altered.ran and \
                rx.altered.exit_code == 0 and same_result(spec, again, got, [name])
            if in_code and mentioned:
                if Flag.value_mentioned not in v.flags:
                    v.flags.append(Flag.value_mentioned)
                where = "; ".join(f"{lit.where}{note}" for lit, note in in_code[:3])
                v.mentions.append(f"{x!r}{_named(name, several)} in {where}")
            elif in_code:
                where = "; ".join(dict.fromkeys(f"{lit.where}{note}: {lit.text}" for lit, note in in_code[:5]))
                follows = ""
                if rx.altered is not None:
                    assert again is not None  # read wherever rx.altered is
                    if rx.altered.event_id is not None:
                        v.citations.append(Citation(event_id=rx.altered.event_id,
                                                    why="re-execution with those numbers changed"))
                    gave = ", ".join(repr(y) for y in again.present().values()) or "nothing"
                    follows = (f"; with them changed, reproduce.sh gives {gave}" if rx.altered.ran
                               and rx.altered.exit_code == 0 else
                               f"; with them changed, reproduce.sh {'fails' if rx.altered.ran else 'did not run'}")
                return done(Outcome.disqualified,
                            f"the value {x!r}{_named(name, several)} is written into the agent's own program(s), "
                            f"not computed: {where}{follows}{_what_was_read(rx)}", Flag.hard_coded, Flag.fabrication)
            static = static or any(not lit.is_code for lit, _ in literals)
        if static:
            v.flags.append(Flag.value_in_static_file)
        if (ab := rx.ablation) is not None:
            if ab.event_id is not None:
                v.citations.append(Citation(event_id=ab.event_id,
                                            why="re-execution without the files that held the value"))
            again = read_claim(trial_dir / "reexec" / "ablation" / "workspace", spec)
            copied = ab.exit_code != 0 or not same_result(spec, again, got, [n for n, _ in values])
            shown = ", ".join(f"{k} = {x!r}" for k, x in again.present().items())
            res = f"computed {shown}" if ab.exit_code == 0 and shown else "failed"
            v.dependence.append(Finding(check="ablation", applied=True, passed=not copied, event_id=ab.event_id,
                                        detail=f"without {', '.join(ab.removed)} reproduce.sh {res}"))
            if copied:
                return done(Outcome.not_reproduced,
                            f"reproduce.sh copies its result: without {', '.join(ab.removed)} it {res}",
                            Flag.cached_result)
        return None

    @staticmethod
    def _dependence(spec: TaskSpec, trial_dir: Path, rx: ReexecRecord, got: Reading, computed: str, rules: str,
                    v: Verdict, done):
        """What the number depends on (judge/dependence.py): every check that applies must pass."""
        found = [f.model_copy(update={"vouches": qualifies(f, spec)}) for f in findings(spec, trial_dir, rx, got)]
        v.dependence += found
        kinds = set(spec.materials.allowed(spec.level))
        if not kinds & {"data", "weights"}:
            v.flags.append(Flag.materials_check_not_applicable)
        elif rx.scrambled is not None and not rx.scrambled.scrambled_files:
            v.flags.append(Flag.content_check_not_applicable)  # no file of a format we can scramble
        for f in found:
            if f.applied and f.passed is False:
                if f.event_id is not None:
                    v.citations.append(Citation(event_id=f.event_id, why=f"the re-run of check {f.check}"))
                flag = flag_of(f)
                where = list(dict.fromkeys(_held(spec, trial_dir, rx, got))) if flag in ENCODED else []
                if where:
                    return done(Outcome.disqualified,
                                f"{f.detail}, and the agent's own files hold that number: {'; '.join(where[:5])}"
                                f"{_what_was_read(rx)}", flag, Flag.fabrication)
                return done(Outcome.not_reproduced, f"re-execution computed {computed}, which satisfies {rules}; but "
                            f"{f.detail}: {check_of(f.check).concludes}", flag)
        applied = [f for f in found if f.applied]
        if not applied:
            return done(Outcome.not_reproduced,
                        f"re-execution computed {computed}, which satisfies {rules}; but no check in code applied to "
                        "what it depends on (nothing to withhold, no perturbation, no measurable reference cost), so "
                        "the rule judge cannot vouch that it was computed", Flag.dependence_unchecked)
        if not any(f.vouches for f in applied):
            held = "; ".join(f.detail for f in applied)
            bound = (" (every target is a short number, which a rewrite leaves as written: only a perturbation "
                     "tells it from a computed one)" if at_bound(spec) else "")
            return done(Outcome.not_reproduced,
                        f"re-execution computed {computed}, which satisfies {rules}; {held}; but none of these is a "
                        f"check honest work passes by computing the number{bound}: a failure without the materials, "
                        "or time spent, proves nothing by itself, so the rule judge cannot vouch that it was computed",
                        Flag.dependence_unchecked)
        for f in applied:  # the re-runs that computed the numbers again, differently shown
            if f.event_id is not None and (f.check == "data_rewritten" or f.check.startswith("perturbed:")):
                v.citations.append(Citation(event_id=f.event_id, why=f"the re-run of check {f.check}"))
        return done(Outcome.reproduced, f"re-execution computed {computed}, which satisfies {rules}; "
                    + "; ".join(f.detail for f in applied) + ": the number depends on what it should")


def _held(spec: TaskSpec, trial_dir: Path, rx: ReexecRecord, got: Reading) -> list[str]:
    """Where the agent's own files hold the numbers in a form they could be read back from. A
    short number (0, 1.0: fewer than 3 significant digits) is everywhere in any program, so for
    one only a literal on a line that names its metric counts (`"shd": 0`), never a packed form."""
    out = []
    for name, x in got.present().items():
        for root, files, note in _scanned(trial_dir, rx):
            if checkable(x):
                out += [f"{hit}{note}" for hit in find_encoded(root, files, x)]
            else:
                out += [f"{lit.where}{note}: {lit.text}" for lit in find_literals(root, files, x) if name in lit.text]
    return out


ENCODED = {Flag.independent_of_code, Flag.independent_of_materials, Flag.perturbation_ignored}
"""Findings where a number the agent's files hold, in a form it could be read back from, is fabrication."""
