"""One error root: every exception reclaim defines is a ReclaimError, or one of the named ways a
trial ends or a transfer retries; and the command line turns any of them into one line."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from typer.testing import CliRunner

import reclaim
from reclaim.cli.main import app
from reclaim.errors import NotFound, ReclaimError

NOT_ERRORS = {
    "BudgetExhausted": "a trial's budget ran out: an outcome, not a failure",
    "Skipped": "the agent does not apply to the task: an outcome",
    "Cancelled": "the run was interrupted: the trial is left to resume",
    "Transient": "a network answer worth another try, inside a retry loop",
    "BudgetSpent": "the gateway's refusal of one more model call, answered to the agent",
    "Closed": "a proxied connection that ended, inside the egress proxy",
}


def _defined_exceptions():
    for mod in pkgutil.walk_packages(reclaim.__path__, "reclaim."):
        if ".suites." in mod.name or mod.name.endswith("__main__"):
            continue
        module = importlib.import_module(mod.name)
        for name, obj in vars(module).items():
            if inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == mod.name:
                yield name, obj


def test_every_exception_of_reclaims_is_under_the_one_root_or_a_named_stop():
    strays = [f"{cls.__module__}.{name}" for name, cls in _defined_exceptions()
              if not issubclass(cls, ReclaimError) and name not in NOT_ERRORS]
    assert strays == []


def test_a_reclaim_error_is_one_line_and_its_exit_status(tmp_path):
    res = CliRunner().invoke(app, ["report", str(tmp_path / "no-such-run")])
    assert res.exit_code == 2
    assert "error:" in res.output and "Traceback" not in res.output
    assert issubclass(NotFound, FileNotFoundError)  # callers that caught the builtin still do
