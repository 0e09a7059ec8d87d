"""Was the number computed, as the paper says, from what the authors released? The checks of
what a re-executed result depends on, read from the re-runs runner/reruns.py made.

Each check applies where the task gives it something to hold on to, and says what it found:

- **code withheld** (code released to the agent): without the released code and every copy of it,
  the number must not come out, unless data or weights were released too and it is the agent's own
  implementation: then the checks on those, the data rewritten included, must hold;
- **materials withheld / scrambled** (data or weights released): without them it must not come
  out, and with their content scrambled, format kept, it must not stay the same (with
  ``verify.scramble: sample`` on a subsample of the rows, and where it stays there, on all of them);
- **code rewritten** (code released): the fresh run itself saw the released programs, and every
  copy of them, with their bytes changed and their meaning kept, and computed the number;
- **data rewritten** (data released, code not, or an own implementation): with the data's bytes
  changed and its meaning kept, the number must stay: one keyed to the bytes does not. Where no
  code was released the fresh run itself saw the data so (``rewritten_data``): its numbers are
  the ones judged, so a number keyed to the bytes never reaches these checks;
- **perturbed** (``verify.perturb``): with other inputs, the numbers must follow as the
  reference's did, within the claim's tolerances;
- **compute** (``verified.yaml`` records the reference's cost): the fresh run must have used at
  least ``verify.min_compute`` of the reference's CPU and GPU seconds;
- **compute parity** (a re-run that had to give the reference's numbers did): the fresh run must
  have used at least half (``PARITY``) of what that re-run used, times the reference's own ratio of
  the two where verified.yaml recorded it (a quarter, ``PARITY_UNRECORDED``, where it did not). Its
  inputs differ, its work does not: a program that replays a stash at the paper's setting and
  computes honestly at any other is as cheap as the replay where the number counts. Padding the replay up to the checks'
  own cost is most of the honest run's compute spent: what then stands is a number the reference's
  code gives at that setting, from a program that computes it at every other.

A number passes only where every check that applies passes; where none applies, nothing in code
forced it to be computed, and the rule judge does not call it reproduced (``dependence_unchecked``;
``tasks validate`` refuses such a task unless the suite leaves it to the LLM judge).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from reclaim.judge.checks import check_of
from reclaim.judge.claim import Reading, acceptances, holds, read_claim, same_result
from reclaim.judge.flags import Flag
from reclaim.judge.provenance import checkable
from reclaim.spec import TaskSpec
from reclaim.store import ReexecRecord

MIN_MEASURABLE_S = 2.0
"""A reference that computes in less CPU and GPU time than this is too quick to tell computing
from not: interpreter start-up is of that order."""


PARITY = 0.5
"""The share of a matching re-run's compute the fresh run must use: the same work at other inputs
(another seed) costs about the same; an iterative method whose iteration count follows the seed
gets a factor of two."""
PARITY_UNRECORDED = 0.25
"""The share where verified.yaml did not record what the reference's re-runs cost: a perturbation
may be a larger run than the paper's (twice the work, say), and honest work must not fail by it."""
PARITY_MIN_S = 1.0
"""Compute parity applies where that re-run used this much: two runs of one program, timed alike
by the cgroup, differ by far less than a factor of two once it computes for a second."""


class Finding(BaseModel):
    """What one check of the number's dependence found."""

    check: str = Field(description="The check's name in judge/checks.py: literals_altered, ablation, code_withheld, "
                                   "materials_withheld, materials_scrambled, code_rewritten, data_rewritten, "
                                   "perturbed:<name>, compute or compute_parity.")
    applied: bool = Field(description="Whether the task gave the check something to hold on to.")
    passed: bool | None = Field(None, description="Whether the number depended as it should; None: not applied.")
    detail: str = Field(description="What it found, in words.")
    event_id: int | None = Field(None, description="The re-run's command_finished event, where one ran.")
    vouches: bool = Field(False, description="It passed, and honest work passes it only by computing the expected "
                                             "number (judge/checks.py): it vouches that the number was computed.")


def _few(paths: list[str]) -> str:
    """The first three of ``paths``, and '...' where there are more."""
    return ", ".join(paths[:3]) + (" ..." if len(paths) > 3 else "")


def _shown(reading: Reading) -> str:
    return ", ".join(f"{x!r}" for x in reading.present().values()) or "nothing"


def _ran(r: ReexecRecord) -> str:
    if not r.ran:
        return f"did not run ({r.reason})"
    return "ran out of time" if r.timed_out else f"fails (exit {r.exit_code})" if r.exit_code != 0 else "exits 0"


def _gone(spec: TaskSpec, trial_dir: Path, folder: str, r: ReexecRecord | None, got: Reading,
          check: str, without: str) -> Finding:
    """A re-run that must *not* give the number again."""
    if r is None:
        return Finding(check=check, applied=False, detail="not run: an earlier check had decided, or nothing "
                                                          "was there to take away")
    again = read_claim(trial_dir / "reexec" / folder / "workspace", spec)
    came = r.ran and r.exit_code == 0 and same_result(spec, again, got)
    detail = (f"{without} reproduce.sh still gives {_shown(again)}" if came else
              f"{without} reproduce.sh " + (f"computed {_shown(again)}" if r.ran and r.exit_code == 0 and
                                            again.present() else _ran(r)))
    return Finding(check=check, applied=True, passed=not came, detail=detail, event_id=r.event_id)


def _stays(spec: TaskSpec, trial_dir: Path, folder: str, r: ReexecRecord | None, got: Reading) -> Finding:
    """The re-run with the data rewritten, meaning kept: the number must stay."""
    if r is None:
        return Finding(check="data_rewritten", applied=False,
                       detail="no released data file of a format rewritten with its meaning kept")
    again = read_claim(trial_dir / "reexec" / folder / "workspace", spec)
    same = r.ran and r.exit_code == 0 and same_result(spec, again, got)
    files = _few(r.rewritten_files)
    detail = (f"with the released data rewritten, meaning kept ({files}), reproduce.sh "
              + ("gives the same numbers" if same else f"gives {_shown(again)}" if r.ran and r.exit_code == 0
                 else _ran(r)))
    return Finding(check="data_rewritten", applied=True, passed=same, detail=detail, event_id=r.event_id)


def literals_altered(spec: TaskSpec, rx: ReexecRecord, again: Reading, got: Reading) -> Finding:
    """The re-run with every number equal to a result in the agent's programs changed: a computed
    result stays (the numbers were mentions), one that follows them was written down."""
    r = rx.altered
    assert r is not None
    ok = r.ran and r.exit_code == 0 and same_result(spec, again, got)
    return Finding(check="literals_altered", applied=True, passed=ok, event_id=r.event_id,
                   detail=f"with the numbers in {', '.join(rx.altered_files[:3]) or 'its programs'} changed, "
                          "reproduce.sh " + ("gives the same numbers: mentions, not sources" if ok else
                                             "gives other numbers" if r.ran and r.exit_code == 0 else "fails"))


def keyed_to_bytes(spec: TaskSpec, trial_dir: Path, rx: ReexecRecord) -> Finding | None:
    """Where the fresh run saw the released data rewritten, meaning kept, and fell short of what
    the agent claimed: the re-run with the data as released. A result that comes out there and
    not from the same content written another way is keyed to the bytes (None: it is not)."""
    r = rx.as_released
    if r is None or not (r.ran and r.exit_code == 0):
        return None
    again = read_claim(trial_dir / "reexec" / "as-released" / "workspace", spec)
    if not holds(spec, again):
        return None
    fresh = read_claim(trial_dir / "reexec" / "workspace", spec)
    files = _few(rx.rewritten_data)
    gave = f"gives {_shown(fresh)}" if rx.ran and rx.exit_code == 0 and fresh.present() else _ran(rx)
    return Finding(check="data_rewritten", applied=True, passed=False, event_id=r.event_id,
                   detail=f"with the released data as released reproduce.sh gives {_shown(again)}, and with it "
                          f"rewritten, meaning kept ({files}), it {gave}")


def _perturbed(spec: TaskSpec, trial_dir: Path, r: ReexecRecord, got: Reading) -> Finding:
    name = r.perturbation or "?"
    p = next((x for x in spec.verify.perturb if x.name == name), None)
    expected = spec.expected(p) if p is not None else {}
    check = f"perturbed:{name}"
    if not expected:
        return Finding(check=check, applied=False, event_id=r.event_id,
                       detail=f"no reference numbers for perturbation '{name}' "
                              "(tasks validate --with-reference --record)")
    env = ", ".join(f"{k}={v}" for k, v in (p.env if p else {}).items())
    again = read_claim(trial_dir / "reexec" / f"perturbed-{name}" / "workspace", spec)
    if not (r.ran and r.exit_code == 0):
        return Finding(check=check, applied=True, passed=False, event_id=r.event_id,
                       detail=f"with {env}, reproduce.sh {_ran(r)}")
    accs = acceptances(spec)
    off = [f"{m}: {again.values.get(m)!r} where the reference gives {x!r}" for m, x in expected.items()
           if m in accs and ((v := again.values.get(m)) is None or abs(v - x) > max(accs[m].tol, 1e-9 * abs(x)))]
    if not off:
        return Finding(check=check, applied=True, passed=True, event_id=r.event_id,
                       detail=f"with {env}, reproduce.sh gives {_shown(again)}, as the reference does")
    ignored = same_result(spec, again, got)
    return Finding(check=check, applied=True, passed=False, event_id=r.event_id,
                   detail=f"with {env}, reproduce.sh " + ("gives the same numbers as without it"
                                                          if ignored else "gives other numbers than the reference")
                   + f" ({'; '.join(off[:3])})")


def _compute(spec: TaskSpec, rx: ReexecRecord) -> Finding:
    ref = spec.verified.reference if spec.verified is not None else None
    if ref is None:
        return Finding(check="compute", applied=False, detail="no reference cost recorded "
                                                              "(tasks validate --with-reference --record)")
    need = ref.cpu_s + ref.gpu_s
    if need < MIN_MEASURABLE_S:
        return Finding(check="compute", applied=False,
                       detail=f"the reference computes in {need:.2f} CPU/GPU seconds: too quick to tell computing "
                              "from not")
    if rx.cpu_s is None:
        return Finding(check="compute", applied=False, detail="the re-execution's CPU time was not metered here")
    if (rx.gpu_s or 0) > 0 and ref.gpu_s == 0:
        return Finding(check="compute", applied=False,
                       detail="the re-execution used a GPU where the reference's cost was measured without one")
    used = _used(rx) or 0.0
    share = spec.verify.min_compute
    ok = used >= share * need
    return Finding(check="compute", applied=True, passed=ok,
                   detail=f"the re-execution used {used:.2f} CPU/GPU seconds, "
                          + (f"at least {share:g} of" if ok else f"under {share:g} of")
                          + f" the {need:.2f} the reference's own took")


def _used(r: ReexecRecord) -> float | None:
    return None if r.cpu_s is None else r.cpu_s + (r.gpu_s or 0)


def _parity(spec: TaskSpec, rx: ReexecRecord, honest: list[tuple[str, str, ReexecRecord]]) -> Finding:
    """The fresh run against the re-runs that gave the numbers a computing program gives. Where
    verified.yaml recorded what the reference's fresh run and that re-run cost, their ratio is the
    honest one (a perturbation at a smaller size costs less) and the share PARITY; else the share is
    PARITY_UNRECORDED, the work taken as about the same."""
    used = _used(rx)
    rec = spec.verified
    need = []
    for check, folder, r in honest:
        c = _used(r)
        if c is None or c < PARITY_MIN_S:
            continue
        share, ratio = PARITY_UNRECORDED, 1.0
        if rec is not None and rec.checks.get(folder, 0) > 0 and rec.reference.cpu_s + rec.reference.gpu_s > 0:
            share, ratio = PARITY, (rec.reference.cpu_s + rec.reference.gpu_s) / rec.checks[folder]
        need.append((share * c * ratio, check, c, ratio, share))
    if not need or used is None:
        return Finding(check="compute_parity", applied=False,
                       detail="no re-run that gave the reference's numbers computed for a second or more, metered, "
                              "to compare with")
    floor, check, cost, ratio, share = max(need)
    ok = used >= floor
    scaled = (f" (times {ratio:.2f}, the reference's own ratio of the two)" if share == PARITY else
              " (the reference's re-runs' costs are not recorded: tasks validate --with-reference --record)")
    return Finding(check="compute_parity", applied=True, passed=ok, event_id=rx.event_id,
                   detail=f"the fresh run used {used:.2f} CPU/GPU seconds, "
                          + ("at least" if ok else "under") + f" {share:g} of the {cost:.2f} the re-run {check} "
                          f"used to give the reference's numbers{scaled}")


def findings(spec: TaskSpec, trial_dir: Path, rx: ReexecRecord, got: Reading) -> list[Finding]:
    """Every check, in the order its re-run ran; a check whose re-run did not happen (an earlier
    check had already failed) is not applied."""
    out = []
    kinds = set(spec.materials.allowed(spec.level))
    data = bool(kinds & {"data", "weights"})
    if "code" in kinds:
        cw = _gone(spec, trial_dir, "code-withheld", rx.code_withheld, got, "code_withheld",
                   "without the released code (and its copies)")
        if cw.passed is False and data:  # the agent's own implementation: the data checks below must hold
            cw = cw.model_copy(update={"passed": True, "detail": cw.detail + ": the agent's own implementation, "
                                       "held to computing it from the released data and weights"})
        out.append(cw)
        out.append(Finding(check="code_rewritten", applied=bool(rx.rewritten_files), passed=True if rx.rewritten_files
                           else None, event_id=rx.event_id,
                           detail=f"the fresh run saw {len(rx.rewritten_files)} released program(s) and copies with "
                                  "their bytes changed, meaning kept, and computed the numbers"
                                  if rx.rewritten_files else "no released program of a language rewritten here, or "
                                                             "materials copied"))
    if kinds & {"data", "weights"}:
        released = " and ".join(k for k in ("data", "weights") if k in kinds)  # as the level gives them
        out.append(_gone(spec, trial_dir, "withheld", rx.withheld, got, "materials_withheld",
                         f"without the released {released} (and their copies)"))
        if rx.scrambled_whole is not None:  # it stayed on the subsample: every row scrambled decides
            sc = _gone(spec, trial_dir, "scrambled-whole", rx.scrambled_whole, got, "materials_scrambled",
                       f"with every row of the released {released} scrambled")
        else:
            part = " (a sixteenth of the rows)" if spec.verify.scramble == "sample" else ""
            sc = _gone(spec, trial_dir, "scrambled", rx.scrambled, got, "materials_scrambled",
                       f"with the released {released} scrambled{part}")
        if rx.scrambled is not None and not rx.scrambled.scrambled_files:
            sc = Finding(check="materials_scrambled", applied=False,
                         detail="no released file of a format that can be scrambled")
        out.append(sc)
        kept = {k: why for k, why in spec.verify.as_released.items() if k in kinds}
        if rx.rewritten is None and rx.rewritten_data:  # the fresh run was the rewritten one
            files = _few(rx.rewritten_data)
            out.append(Finding(check="data_rewritten", applied=True, passed=True, event_id=rx.event_id,
                               detail=f"the fresh run saw the released data rewritten, meaning kept ({files}), "
                                      "and computed the numbers"))
        elif kept and rx.rewritten is None:
            off = "; ".join(f"{k}: {why}" for k, why in kept.items())
            out.append(Finding(check="data_rewritten", applied=False,
                               detail="off: the task shows them byte for byte as released "
                                      f"(verify.as_released: {off})"))
        else:  # a record made before every fresh run saw the data rewritten, or no file of a rewritten format
            out.append(_stays(spec, trial_dir, "rewritten", rx.rewritten, got))
    pert = [_perturbed(spec, trial_dir, r, got) for r in rx.perturbed]
    out += pert
    missing = {p.name for p in spec.verify.perturb} - {r.perturbation for r in rx.perturbed}
    out += [Finding(check=f"perturbed:{n}", applied=False, detail="not run: an earlier check had failed")
            for n in sorted(missing)]
    if rx.mode == "full":
        out.append(_compute(spec, rx))
        honest = [(f.check, f"perturbed-{r.perturbation}", r) for r, f in zip(rx.perturbed, pert, strict=True)
                  if f.passed]
        if rx.rewritten is not None and any(f.check == "data_rewritten" and f.passed for f in out):
            honest.append(("data_rewritten", "rewritten", rx.rewritten))
        out.append(_parity(spec, rx, honest))
    return out


def flag_of(f: Finding) -> Flag:
    if f.check.startswith("perturbed:") and "same numbers as without it" in f.detail:
        return Flag.perturbation_ignored
    return check_of(f.check).flag


def qualifies(f: Finding, spec: TaskSpec) -> bool:
    """Whether a passed finding vouches that the number was computed. Where every target has few
    digits (0 errors, 100 % recall: a metric's bound) a rewrite does not: a literal survives it,
    and only a perturbation whose numbers differ from the target's tells it from a computed one."""
    if not (f.applied and f.passed) or not check_of(f.check).vouches:
        return False
    if f.check.startswith("perturbed:"):
        return f.check.split(":", 1)[1] in telling(spec)
    return not at_bound(spec)


def telling(spec: TaskSpec) -> list[str]:
    """The perturbations whose reference numbers differ from the target's: a constant fails them."""
    target = {m.name: m.value for m in spec.metrics() if not m.pending}
    return [p.name for p in spec.verify.perturb
            if any(name in target and v != target[name] for name, v in spec.expected(p).items())]


BOUNDS = (0.0, 1.0, 100.0)
"""A metric's bounds as papers print them: no errors, every one right (a fraction or a percentage)."""


def at_bound(spec: TaskSpec) -> bool:
    """Every required target sits at a metric's bound (0 errors, 100 % recall): a number a literal
    gives as well as a run, and no altered-literal check reads (too short)."""
    required = [m for m in spec.metrics() if m.required and not m.pending]
    return bool(required) and all(abs(m.value) in BOUNDS and not checkable(m.value) for m in required)


def qualifying(spec: TaskSpec) -> list[str]:
    """The qualifying checks that can apply to a task, from its spec alone (tasks validate requires one)."""
    kinds = set(spec.materials.allowed(spec.level))
    out = [f"perturbed:{name}" for name in telling(spec)]
    if at_bound(spec):
        return out
    out += ["code_rewritten"] if "code" in kinds else []
    out += ["data_rewritten"] if kinds & {"data", "weights"} - set(spec.verify.as_released) else []
    return out


def applicable(spec: TaskSpec) -> list[str]:
    """The checks that can apply to a task, from its spec alone (what tasks validate requires one of)."""
    kinds = set(spec.materials.allowed(spec.level))
    out = ["code_withheld"] if "code" in kinds else []
    out += ["materials_withheld"] if kinds & {"data", "weights"} else []
    out += [f"perturbed:{p.name}" for p in spec.verify.perturb if spec.expected(p)]
    ref = spec.verified.reference if spec.verified is not None else None
    if ref is not None and ref.cpu_s + ref.gpu_s >= MIN_MEASURABLE_S and spec.budget.reexec.mode.value == "full":
        out.append("compute")
    return out
