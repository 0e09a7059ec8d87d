"""Every way reclaim itself refuses or fails, under one root.

A ``ReclaimError`` carries a message meant for the person at the terminal: what went wrong and
how to fix it, in one line. The command line turns any of them into that line and the exit
status the class names (cli/main.py); the runner tells a harness failure from an unexpected one
by this root. How a trial *ends* (out of budget, skipped, interrupted) is not an error: those are
the named stops of runner/outcomes.py.

Each pipeline package raises the child named for it; children that replace a builtin the code
used before (``FileNotFoundError``, ``ValueError``) keep it as a second base, so a caller that
catches the builtin still does.
"""

from __future__ import annotations


class ReclaimError(Exception):
    """Root of reclaim's own errors; the message says what went wrong and how to fix it."""

    exit_code = 2
    """The `reclaim` command's exit status for it: 2, bad usage or input (nothing ran); 1, work failed."""


class UsageError(ReclaimError, ValueError):
    """An option, agent spec, format or judge name that is not one reclaim knows."""


class NotFound(ReclaimError, FileNotFoundError):
    """A suite, run, trial or record that is not where it was looked for."""


class SpecError(ReclaimError):
    """A task or suite that does not validate (spec/load.py subclasses it with its problems)."""


class MaterialsError(ReclaimError):
    """A material, paper or environment that cannot be fetched, verified or prepared."""


class SandboxError(ReclaimError):
    """The sandbox itself failed (not the command run inside it)."""


class BudgetError(ReclaimError):
    """A budget that cannot be met here (GPUs asked for that do not exist)."""


class AgentError(UsageError):
    """An agent that cannot be made or cannot run: its spec, its program, its model."""


class PreflightError(ReclaimError):
    """A run that would fail before its first trial: refused with the fix."""


class RunError(ReclaimError):
    """A run that cannot start or resume."""


class TrialError(ReclaimError):
    """A trial the harness or its set-up could not carry through: ends ``error``, never the agent's."""

    exit_code = 1


class JudgeError(ReclaimError):
    """A judge that cannot be set up or cannot answer."""


class ReportError(ReclaimError):
    """A report that cannot be made from what is on disk."""


class CurateError(ReclaimError):
    """Curation that cannot reach or read its sources."""


__all__ = ["AgentError", "BudgetError", "CurateError", "JudgeError", "MaterialsError", "NotFound",
           "PreflightError", "ReclaimError", "ReportError", "RunError", "SandboxError", "SpecError",
           "TrialError", "UsageError"]
