"""What a task declares so the harness can tell a computed number from a written one, and what
``tasks validate --with-reference --record`` measured of its reference (verified.yaml).

Withholding the released data, and now the released code, is one kind of check. A task whose
released code simulates its own data has nothing to withhold but the code; one posed at
``reimplement`` without data has not even that. So a task may also declare *inputs* its
reproduce.sh takes from the environment (a seed, a size) and *perturbations*: another value of
an input, whose reference numbers are known to the harness and never shown to the agent. And
the reference's own cost, recorded, bounds from below what a re-execution that computed the
number must have spent.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from reclaim.spec.base import Finite, Strict

ENV_NAME = r"^[A-Z_][A-Z0-9_]*$"
MIN_COMPUTE = 0.25
"""The default share of the reference's compute a re-execution must use (verify.min_compute)."""


class Perturbation(Strict):
    """One more re-run with other inputs: the numbers must follow as the reference's did."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9\-]*$", description="A name for it, e.g. 'seed-7'.")
    env: dict[str, str] = Field(description="The inputs' values for this run (names from verify.inputs).")
    values: dict[str, Finite] = Field(
        default_factory=dict, description="The reference's numbers under it, metric -> value; default: "
        "those verified.yaml recorded (tasks validate --with-reference --record).")


class Verify(Strict):
    """How the harness checks that the number was computed, beyond re-running reproduce.sh."""

    inputs: dict[str, str] = Field(
        default_factory=dict, description="Variables reproduce.sh must read from the environment, with the "
        "paper's setting, e.g. {SEED: '1'}: TASK.md tells the agent, every run sets them.")
    perturb: list[Perturbation] = Field(
        default_factory=list, description="Re-runs with other inputs whose reference numbers are known: "
        "a number that does not follow them was not computed.")
    needs: str = Field(default="", description="Where the reference is not verified yet (no verified.yaml): what "
                       "verifying it needs, e.g. '1x A100 80GB, about 3 GPU-hours; the checkpoint from the Hub'.")
    scramble: Literal["whole", "sample"] = Field(
        default="whole", description="How the released data and weights are scrambled to check that the number "
        "follows what they say: 'whole', every row (a run as costly as reproduce.sh's own), or 'sample', one "
        "row in 16 (a sixteenth of that; where the number stays the same there, every row decides). 'sample' "
        "lets through a script that writes the number only at the release's exact size (its row count) and "
        "computes honestly at any other: choose it where a run is too costly to repeat whole.")
    as_released: dict[Literal["data", "weights"], str] = Field(
        default_factory=dict, description="Materials every run shows byte for byte as released, each with its "
        "reason (e.g. {data: 'the loader checks each file's md5 against a list in the code'}): elsewhere the "
        "counting run shows released data and weights rewritten, meaning kept (decimals, JSON layout, array "
        "headers), so that a number keyed to their bytes does not come out; the verdict names the protection "
        "that was off.")
    min_compute: Finite = Field(
        default=MIN_COMPUTE, gt=0, le=1, description="A re-execution that used less than this share of the "
        "reference's recorded compute (CPU plus GPU seconds) did not compute the number the paper's way.")

    @model_validator(mode="after")
    def _inputs_named(self) -> Verify:
        import re

        for name in self.inputs:
            if not re.match(ENV_NAME, name):
                raise ValueError(f"inputs: '{name}' is not an environment variable name (A-Z, 0-9, _)")
        seen = set()
        for p in self.perturb:
            unknown = sorted(set(p.env) - set(self.inputs))
            if unknown:
                raise ValueError(f"perturb '{p.name}' sets {', '.join(unknown)}, not among verify.inputs")
            if not p.env or all(self.inputs[k] == v for k, v in p.env.items()):
                raise ValueError(f"perturb '{p.name}' changes no input from the paper's setting")
            if p.name in seen:
                raise ValueError(f"perturb '{p.name}' is named twice")
            seen.add(p.name)
        return self


class ReferenceCost(Strict):
    """What the reference's own re-execution used, as the harness metered it."""

    cpu_s: Finite = Field(ge=0, description="CPU seconds (cgroup).")
    gpu_s: Finite = Field(0.0, ge=0, description="GPU-busy seconds (NVML); 0 where it ran without a GPU.")
    wall_s: Finite = Field(ge=0, description="Wall-clock seconds.")
    peak_memory_mb: Finite | None = Field(None, ge=0, description="Peak memory of its sandbox (cgroup), in MiB.")


class Verified(Strict):
    """verified.yaml, beside task.yaml: written by `tasks validate --with-reference --record`."""

    reclaim: str = Field(description="The reclaim version that measured it.")
    recorded: str = Field(description="When (ISO date).")
    sandbox: str = Field(description="The sandbox it ran in.")
    reference: ReferenceCost = Field(description="The reference's re-execution.")
    values: dict[str, Finite] = Field(default_factory=dict, description="The numbers the reference's "
                                      "re-execution gave, metric -> value (against the target's).")
    perturb: dict[str, dict[str, Finite]] = Field(
        default_factory=dict, description="Each perturbation's name -> the reference's numbers under it.")
    environment_mb: Finite | None = Field(None, description="What the task's prepared environment holds on disk, "
                                          "in MB (a machine to run it needs that free, once).")
    checks: dict[str, Finite] = Field(
        default_factory=dict, description="What each further re-run of the reference cost (the checks of what "
                                          "its number depends on, each perturbation), name -> CPU and GPU seconds.")
