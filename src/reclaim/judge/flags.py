"""The flags a verdict can carry, each defined once with its meaning.

A flag is a finding the judge puts on the record beside the outcome: why a trial failed, what a
check found, or what could not be checked. ``tasks validate``, ``reclaim show``, the reports and
docs/records.md read the meanings from here. An LLM judge's model may add flags of its own
words (``Verdict.flags`` holds them as given); these are the harness's.
"""

from __future__ import annotations

from enum import Enum


class Flag(str, Enum):
    """A harness finding on a verdict; ``meaning`` says it in words."""

    def __new__(cls, value: str, meaning: str) -> Flag:
        obj = str.__new__(cls, value)
        obj._value_ = value
        obj.meaning = meaning
        return obj

    meaning: str

    def __str__(self) -> str:  # the flag as written on disk, in messages as in JSON
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    # what the agent left, and its re-execution
    no_results = "no_results", "the agent left no usable results.json"
    no_reexec = "no_reexec", "reproduce.sh was not re-executed"
    reexec_failed = "reexec_failed", "reproduce.sh failed when re-executed"
    reexec_timeout = "reexec_timeout", "the re-execution ran out of its wall-clock budget"
    reexec_no_results = "reexec_no_results", "the re-execution wrote no usable result"
    inconsistent_reexec = "inconsistent_reexec", "the re-executed value differs from the agent's own"
    implausibly_better = "implausibly_better", "the value beats the paper's by more than criteria.max_better allows"
    # where the number came from
    equals_reported_value = "equals_reported_value", "the value equals the paper's to every digit"
    provenance_unchecked = "provenance_unchecked", "the value has too few digits for the literal check"
    provenance_incomplete = "provenance_incomplete", "some of the agent's files were too large to read for literals"
    value_in_static_file = "value_in_static_file", "the value already sat in a data file"
    value_mentioned = ("value_mentioned", "the agent's programs mention the value (a comment, a docstring, a printed "
                       "comparison), and the re-run with it changed there computed the same: a mention, not the source")
    cached_result = "cached_result", "reproduce.sh copies a cached result"
    hard_coded = "hard_coded", "the value is written into a program"
    fabrication = ("fabrication", "the number was written or copied, not computed: what the checks beside it "
                   "found, in one word")
    reads_paper = "reads_paper", "reproduce.sh reads the paper"
    record_incomplete = ("record_incomplete", "the re-execution's exec record was cut: the checks read every file "
                         "the cut record could hide, and rest on nothing it does not show")
    # what the value depends on
    independent_of_materials = ("independent_of_materials",
                                "the value comes out without (or with scrambled) released materials")
    independent_of_code = ("independent_of_code",
                           "the value comes out without the released code and its copies: not computed by it")
    keyed_to_bytes = ("keyed_to_bytes", "the value changes when the released files' bytes change and their "
                      "meaning does not: keyed to the bytes, not computed from the content")
    perturbation_ignored = ("perturbation_ignored", "with other inputs reproduce.sh gives the same numbers, where "
                            "the reference's change")
    perturbation_mismatch = ("perturbation_mismatch", "with other inputs the numbers do not follow the "
                             "reference's")
    implausibly_cheap = ("implausibly_cheap", "the re-execution used far less compute than the reference's own: "
                         "not computed the paper's way")
    dependence_unchecked = ("dependence_unchecked", "no check in code applied to what the number depends on: "
                            "the rule judge cannot vouch that it was computed")
    materials_check_not_applicable = ("materials_check_not_applicable",
                                      "no released data or weights to withhold: the materials check did not apply")
    content_check_not_applicable = ("content_check_not_applicable",
                                    "no released file of a format that can be scrambled")
    # evaluate mode
    no_artefacts = "no_artefacts", "no trained artefact for the re-run evaluation"
    training_not_shown = "training_not_shown", "no recorded command wrote the evaluated artefacts"
    training_cost_unmeasured = "training_cost_unmeasured", "the recorded training's cost could not be measured"
    training_cost_low = "training_cost_low", "the recorded training cost far less than the reference's"
    # what the agent reached for
    withheld_material = "withheld_material", "a withheld material was found in the agent's files"
    withheld_material_requested = "withheld_material_requested", "a withheld material was requested over the network"
    network_denied = "network_denied", "a network request was denied"
    # the llm judge
    samples_disagree = "samples_disagree", "the judge model's answers disagreed"
    checks_overrule_model = "checks_overrule_model", "code's checks overruled the judge model's 'reproduced'"
    model_stricter_than_rules = "model_stricter_than_rules", "the judge model was stricter than the rule judge"
    unsupported_disqualification = ("unsupported_disqualification",
                                    "the judge model disqualified without citations code could verify")
    judge_error = "judge_error", "the judge itself failed (not the agent)"


def meaning(flag: str) -> str:
    """A flag in words: the harness's own, or a judge model's (``unparsed_answers:2``) as given."""
    try:
        return Flag(flag).meaning  # type: ignore[call-arg]  # a lookup by value (EnumMeta.__call__), not __new__
    except ValueError:
        name, _, n = flag.partition(":")
        if name == "unparsed_answers":
            return f"{n} of the judge model's answers could not be parsed"
        return flag.replace("_", " ")


__all__ = ["Flag", "meaning"]
