"""The attack suite (issue 8): adversarial `command:` agents against the real CLI in a real bwrap
sandbox, as the invoking user (root in CI) and again as an unprivileged user.

Every attack under attacks/ gets four tests per dimension, one per thing that must hold:
  test_contained         its trial ends not_reproduced, disqualified or budget_exhausted (never
                         reproduced, never error), its records are the harness's, its own checks pass
  test_host_unchanged    nothing outside the run folder changed, no code of it ran on the host, no
                         device node or set-uid file left behind, no outside process killed
  test_no_leak           no provider key, reference solution or /etc/shadow line in its trial folder
                         or in an LLM judge prompt about it
  test_visible_in_trace  what it did is in the trace's harness-recorded events

All attacks that the session selects run once per dimension, batched into a few `reclaim run`
invocations (see attacklib.BATCHES); `-k a01` runs only what it selects. Attacks are never weakened
to pass: a failing test here is a hole in the harness. RECLAIM_SECURITY_KEEP=1 keeps big files.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections import defaultdict

import attackeval
import attackrun
import pytest
from attacklib import load_attacks

ATTACKS = load_attacks()
DIMENSIONS = ("invoker", "unprivileged")


def _usable() -> str | None:
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed (scripts/test installs it)"
    from reclaim.sandbox.bwrap import available

    return available()


@pytest.fixture(scope="session")
def attack_suite(request, tmp_path_factory):
    """dimension -> SuiteRun (or why it cannot run here), computed on first use."""
    wanted: dict[str, set[str]] = defaultdict(set)
    for item in request.session.items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if "attack" in params and "dim" in params:
            wanted[params["dim"]].add(params["attack"].id)
    done: dict[str, object] = {}
    cleanup = []

    def get(dim: str):
        if dim not in done:
            why = _usable()
            if why:
                done[dim] = why
                return why
            if dim == "invoker":
                d = attackrun.invoker(tmp_path_factory.mktemp("attacks-invoker"))
            else:
                d = attackrun.unprivileged()
                if isinstance(d, str):
                    done[dim] = d
                    return d
                cleanup.append(d.work)
            marker = attackeval.make_marker(tmp_path_factory.mktemp(f"marker-{dim}"))
            chosen = [a for a in ATTACKS if a.id in wanted[dim]]
            done[dim] = attackeval.run_suite(d, chosen, marker)
        return done[dim]

    yield get
    if not os.environ.get("RECLAIM_SECURITY_KEEP"):
        for work in cleanup:  # the attacks leave 100,000-file trees: removed in the background (30 s or more)
            subprocess.Popen(["rm", "-rf", "--one-file-system", str(work)], start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _check(attack_suite, dim: str, attack, category: str) -> None:
    run = attack_suite(dim)
    if isinstance(run, str):
        pytest.skip(run)
    f = run.findings.get(attack.id)
    if f is None:
        pytest.fail(f"{attack.id} was not run")
    if f.skipped:
        pytest.skip(f.skipped)
    problems = f.problems[category]
    head = (f"{attack.id} (class {attack.klass}, as {run.dim.user}): {attack.tries}\n"
            f"outcome {f.outcome}, status {f.status}; trial folder {run.batches[f.batch].run_dir}/trials/"
            f"{attack.trial_id}")
    assert not problems, head + "\n  - " + "\n  - ".join(problems)


parametrize = pytest.mark.parametrize
attacks = parametrize("attack", ATTACKS, ids=str)
dims = parametrize("dim", DIMENSIONS)


@dims
@attacks
def test_contained(attack, dim, attack_suite):
    _check(attack_suite, dim, attack, "contained")


@dims
@attacks
def test_host_unchanged(attack, dim, attack_suite):
    _check(attack_suite, dim, attack, "host")


@dims
@attacks
def test_no_leak(attack, dim, attack_suite):
    _check(attack_suite, dim, attack, "leak")


@dims
@attacks
def test_visible_in_trace(attack, dim, attack_suite):
    _check(attack_suite, dim, attack, "trace")


def test_the_suite_covers_every_class_with_at_least_40_attacks():
    assert len(ATTACKS) >= 40
    assert {a.klass for a in ATTACKS} == set(range(1, 9))
