"""What `reclaim tasks validate` says about a task beyond its spec: where the rules cannot check
its target, and, after running them, why a reference or a weakened experiment came out as it did."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from reclaim.judge import MIN_SIGNIFICANT_DIGITS, acceptance, applicable, at_bound, checkable, meaning, qualifying
from reclaim.spec import VERIFIED_FILE, Direction, Task, Verified, quoted
from reclaim.spec.review import acceptance_problem, is_draft
from reclaim.store import CHECK_RUNS, VERDICT_JSON, TrialRecord

REEXEC_RUNS = tuple(name.replace("_", "-") for name in CHECK_RUNS)  # the re-runs' folders beside reexec/
TAIL_LINES = 20
TAIL_BYTES = 8192



def _metric_list(values: dict[str, float]) -> str:
    return ", ".join(f"{k} = {v:g}" for k, v in values.items())


def task_problems(task: Task, llm_judged: list[str], sources_required: bool = False) -> list[str]:
    """What fails validation beyond the spec: an acceptance no check earned (spec/review.py), a
    task where no check in code can force the number to be computed (unless the suite leaves it to
    the LLM judge), a perturbation with no numbers, a target whose quoted source does not print its
    numbers (or, where the suite requires it, has none)."""
    spec = task.spec
    out = []
    if (unchecked := acceptance_problem(spec)) is not None:
        out.append(unchecked)
    source = spec.target.source
    if source is None and sources_required:
        out.append("target.source: missing, and suite.yaml requires one: give kind (paper or authors), url and "
                   "the quote as printed, with the number")
    elif source is not None:
        missing = [f"{m.name} = {m.value:g}" for m in spec.metrics()
                   if not m.pending and not quoted(m.value, source.quote)]
        if missing:
            out.append(f"target.source.quote does not print {', '.join(missing)}: quote the text with the number "
                       "as printed there (a percentage counts: 87.1 for 0.871), or correct the value")
    for p in spec.verify.perturb:
        if not spec.expected(p):
            out.append(f"verify.perturb '{p.name}' has no reference numbers: give its values, or run "
                       f"reclaim tasks validate --with-reference --record to measure them into {VERIFIED_FILE}")
    if not is_draft(spec):  # a draft has not been verified yet: what it lacks is said, not failed (task_warnings)
        out += dependence_problems(task, llm_judged)
    return out


def dependence_problems(task: Task, llm_judged: list[str]) -> list[str]:
    """Where no check in code can tell a computed number from a written one (unless the suite leaves
    the task to the LLM judge): a problem for a task that runs, a warning for a draft."""
    spec = task.spec
    out = []
    if applicable(spec) and not qualifying(spec) and task.id not in llm_judged:
        bound = ("every target is a short number (a metric's bound), which a literal gives as well as a run: "
                 if at_bound(spec) else "")
        out.append(f"no check that honest work passes by computing the number can apply ({bound}the checks "
                   f"that do, {', '.join(applicable(spec))}, only fail a number, never vouch for one). Fix: declare "
                   "verify.inputs and verify.perturb (another seed or size whose numbers differ) and run reclaim "
                   "tasks validate --with-reference --record, or list the task in suite.yaml's llm_judged")
    if not applicable(spec) and task.id not in llm_judged:
        out.append("no check in code applies to what its number depends on: nothing released to withhold "
                   "(no code at this level, no data or weights), no perturbation with known numbers, no "
                   "measurable reference cost. Fix: declare verify.inputs and verify.perturb (another seed or "
                   "size) and run reclaim tasks validate --with-reference --record, or list the task in "
                   "suite.yaml's llm_judged to leave it to the LLM judge")
    return out


def task_warnings(task: Task, llm_judged: list[str] | None = None) -> list[str]:
    """Where the rules cannot check this task's target; none of these fails validation."""
    spec = task.spec
    out = []
    if is_draft(spec):
        out += [f"a draft, before it can be accepted: {p}" for p in dependence_problems(task, llm_judged or [])]
    if pending := spec.pending_values():
        out.append(f"value pending for {', '.join(pending)} (not yet read from the paper): the task is listed and "
                   "validated, never run, until the number is read where it says and the task is reviewed")
    short = {m.name: m.value for m in spec.metrics() if not m.pending and not checkable(m.value)}
    if short:
        out.append(f"target value(s) with fewer than {MIN_SIGNIFICANT_DIGITS} significant digits "
                   f"({_metric_list(short)}): the literal check cannot tell a number written into a program "
                   "from a computed one; only the checks of what it depends on can (the re-runs without the released "
                   "code or data, perturbations, the recorded compute), or the LLM judge")
    checks = applicable(spec)
    if checks and checks == ["code_withheld"]:
        why = "data: generated" if spec.materials.data_generated else "none released"
        out.append(f"only the re-run without the released code checks what the number depends on ({why}): a "
                   "number keyed to the code's meaning, or one the code computes lazily, passes it; declare "
                   "verify.inputs and verify.perturb, and record the reference's cost (--with-reference --record)")
    ref = spec.reference
    if ref is None:
        out.append("no reference solution (reference: null): --with-reference cannot check this task")
    elif ref.weakened is None:
        out.append("no weakened experiment (reference.weakened): nothing checks that a weaker run misses the "
                   "target, and the overclaim and partial baselines skip this task")
    for m in spec.metrics():
        if m.pending or m.direction == Direction.match or m.criteria.interval is not None:
            continue
        if m.bounds is None and m.value in (0, 1):
            out.append(f"{m.name} is one-sided at {m.value:g} with no bounds: if {m.value:g} is the best the metric "
                       "allows (an SHD of 0, a TPR of 1), say so with bounds: [0, .inf] or [0, 1], so that nothing "
                       "is accepted as better than it")
        acc = acceptance(m)
        edge = acc.plausible_high if m.direction == Direction.higher_is_better else acc.plausible_low
        if math.isinf(edge):
            cause = "max_better: .inf" if m.criteria.max_better is not None else "tolerance 0"
            out.append(f"{m.name} is one-sided ({m.direction.value}) with no bound on its better side ({cause}): "
                       "where the metric can go past the paper's value, any value there passes, however "
                       "implausible; give criteria.max_better (and a tolerance above 0)")
    return out


def verdict_of(tdir: Path) -> dict | None:
    """verdict.json as written, read loosely: only its words and numbers are shown."""
    try:
        return json.loads((tdir / VERDICT_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def flags_in_words(flags: list[str]) -> str:
    return "; ".join(f"{meaning(f)} ({f})" for f in flags)


def measured_vs_criteria(verdict: dict) -> str:
    """Each number of the claim: what was measured, and the rule it was held to."""
    rows = verdict.get("metrics") or [verdict]
    parts = []
    for m in rows:
        got = m.get("measured")
        got = "nothing" if got is None else f"{got:.6g}"
        parts.append(f"{m.get('name') or m.get('metric')} measured {got}, criteria {m.get('tolerance') or '?'}")
    return "; ".join(parts)


def _tail(path: Path) -> list[str]:
    """The last lines of a log the harness wrote, never through a link."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return []
    with os.fdopen(fd, "rb") as f:
        size = f.seek(0, os.SEEK_END)
        f.seek(max(0, size - TAIL_BYTES))
        raw = f.read()
    lines = raw.decode("utf-8", "replace").splitlines()
    if size > TAIL_BYTES and lines:
        lines = lines[1:]  # a cut first line
    return lines[-TAIL_LINES:]


def log_tails(tdir: Path) -> list[tuple[str, list[str]]]:
    """The output of the last command of the agent (logs/) and of each re-execution (reexec/**/logs/)."""
    out = []
    rx = tdir / "reexec"
    runs = [*REEXEC_RUNS, *sorted(p.name for p in rx.glob("perturbed-*") if p.is_dir() and not p.is_symlink())]
    for folder in (tdir / "logs", rx / "logs", *(rx / name / "logs" for name in runs)):
        if folder.is_symlink() or not folder.is_dir():
            continue
        commands = sorted({p.name.rsplit(".", 1)[0] for p in folder.iterdir() if p.suffix in (".stdout", ".stderr")})
        if not commands:
            continue
        last = commands[-1]
        for stream in ("stdout", "stderr"):
            lines = _tail(folder / f"{last}.{stream}")
            if lines:
                out.append((f"{(folder / last).relative_to(tdir)}.{stream}", lines))
    return out


def failure_report(rec: TrialRecord, tdir: Path) -> list[str]:
    """Why a trial did not come out as it should, in words: verdict, flags, harness error, logs."""
    out = []
    verdict = verdict_of(tdir)
    if verdict is not None:
        out.append(f"verdict {verdict.get('outcome')}: {verdict.get('rationale') or '(no rationale)'}")
        if verdict.get("flags"):
            out.append(f"flags: {flags_in_words(verdict['flags'])}")
    if rec.error:
        out.append(f"harness error: {rec.error}")
    if (fix := _as_released_hint(tdir)) is not None:
        out.append(fix)
    tails = log_tails(tdir)
    for name, lines in tails:
        out.append(f"{name} (last {len(lines)} line(s)):")
        out += [f"    {line}" for line in lines]
    if not tails:
        out.append("no command output was recorded")
    out.append(f"trial folder: {tdir}")
    return out


def _as_released_hint(tdir: Path) -> str | None:
    """Where the reference fell short on the data rewritten (meaning kept) and computed its number from
    the data as released: the way out, when its code checks the files' bytes (a checksum list)."""
    from reclaim.store import read_model
    from reclaim.store.models import ReexecRecord

    rx = read_model(tdir / "reexec" / "reexec.json", ReexecRecord)
    if rx is None or not rx.rewritten_data or rx.as_released is None or rx.as_released.exit_code != 0:
        return None
    kinds = sorted({p.split("/", 1)[0] for p in rx.rewritten_data if p.split("/", 1)[0] in ("data", "weights")})
    if not kinds:
        return None
    return (f"the reference fell short where the released {' and '.join(kinds)} were rewritten, meaning kept "
            f"({', '.join(rx.rewritten_data[:3])}), and ran as released: if the released code checks those files' "
            f"bytes (a checksum list), declare it in task.yaml, verify: as_released: {{{kinds[0]}: \"why\"}}, and "
            "validate again; otherwise the reference reads the bytes, not the meaning, and must be fixed")


def recorded(tdir: Path, spec, sandbox: str) -> Verified | None:
    """What a reference trial measured, for verified.yaml: its fresh re-execution's cost and the
    numbers each perturbed re-run gave. None when the re-execution did not meet the criteria."""
    import datetime

    from reclaim import __version__
    from reclaim.judge.claim import holds, read_claim
    from reclaim.spec import ReferenceCost
    from reclaim.store import read_model
    from reclaim.store.models import ReexecRecord, TrialRecord

    rx = read_model(tdir / "reexec" / "reexec.json", ReexecRecord)
    if rx is None or not rx.ran or rx.exit_code != 0 or rx.cpu_s is None:
        return None
    claim = read_claim(tdir / "reexec" / "workspace", spec)
    if not holds(spec, claim):
        return None
    trial = read_model(tdir / "trial.json", TrialRecord)
    peak = trial.budget.reexec_peak_memory_mb if trial is not None else None
    perturbed = {}
    for r in rx.perturbed:
        got = read_claim(tdir / "reexec" / f"perturbed-{r.perturbation}" / "workspace", spec).present()
        if r.ran and r.exit_code == 0 and got:
            perturbed[r.perturbation] = got
    checks = {name: round((r.cpu_s or 0.0) + (r.gpu_s or 0.0), 3) for name, r in rx.checks()}
    env = prepared_env(tdir)
    return Verified(reclaim=__version__, recorded=datetime.date.today().isoformat(), sandbox=sandbox,
                    reference=ReferenceCost(cpu_s=round(rx.cpu_s, 3), gpu_s=round(rx.gpu_s or 0.0, 3),
                                            wall_s=round(rx.wall_s, 3), peak_memory_mb=peak),
                    values=claim.present(), perturb=perturbed, checks=checks,
                    environment_mb=env.size_mb if env is not None else None)


def prepared_env(tdir: Path):
    """The environment the harness prepared for a trial (records/environment.json), if any."""
    from reclaim.materials import RECORD, PreparedEnv
    from reclaim.store import read_model

    return read_model(tdir / "records" / RECORD, PreparedEnv)


def cuda_on_cpu(tdir: Path, spec) -> str | None:
    """A warning where a task with no GPU was given CUDA's packages (gigabytes it never uses)."""
    env = prepared_env(tdir)
    if env is None or spec.budget.gpus or not env.cuda_packages:
        return None
    return (f"its environment ({env.size_mb or 0:g} MB) holds CUDA packages though the task has no GPU: "
            f"{', '.join(env.cuda_packages[:4])}{' ...' if len(env.cuda_packages) > 4 else ''}. Pin the CPU build "
            "(torch==X+cpu: reclaim gives pip PyTorch's CPU index for such a task), or drop what pulls CUDA in")


CHECKS_SHARE = 0.25
"""What the checks of a reproduced number may cost together, as a share of its fresh re-run."""


def costly_checks(verified: Verified) -> str | None:
    """A warning where the reference's checks cost more than CHECKS_SHARE of its fresh re-run: each
    reproduced trial pays that again (a perturbation at the paper's full size repeats it whole)."""
    fresh = verified.reference.cpu_s + verified.reference.gpu_s
    spent = sum(verified.checks.values())
    if fresh < 1.0 or spent <= CHECKS_SHARE * fresh:
        return None
    top = max(verified.checks, key=lambda k: verified.checks[k])
    fix = ("Setting verify.scramble: sample scrambles a sixteenth of the rows instead, at the price docs/judges.md "
           "names"
           if top.startswith("scrambled") else
           "A perturbation at a smaller size of the inputs (fewer samples, a shorter horizon) checks the same for a "
           "fraction: see docs/posing-a-paper.md")
    return (f"the checks of the reference's number cost {spent / fresh:.2f}x its fresh re-run (most: {top}, "
            f"{verified.checks[top] / fresh:.2f}x); every reproduced trial pays that again. {fix}")


def write_verified(task_dir: Path, verified: Verified) -> Path:
    """verified.yaml beside task.yaml, with a header that says where it came from."""
    import yaml

    path = task_dir / VERIFIED_FILE
    head = ("# Written by `reclaim tasks validate --with-reference --record`: what the reference's own\n"
            "# re-execution cost and gave under each perturbation. Not edited by hand; record it again\n"
            "# after changing the task or its reference.\n")
    path.write_text(head + yaml.safe_dump(verified.model_dump(mode="json"), sort_keys=False))
    return path
