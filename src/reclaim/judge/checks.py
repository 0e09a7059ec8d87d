"""Every check a re-execution makes, in one shape: what its run changes in the view, what honest
work shows there, and what the judge concludes where it does not.

runner/reruns.py decides which runs a trial gets and builds their views; judge/rules.py and
judge/dependence.py read what each found into a ``Finding`` named by the check; this table is
where a reviewer reads what each name means. A check ``vouches`` where honest work passes it by
running and giving the expected number (a meaning-kept rewrite, a perturbation with reference
numbers): only those can make a number ``reproduced``. The others an honest program passes by
failing (a material withheld), by not following (a literal altered) or by spending (compute):
they may disqualify a number or keep it from counting, never vouch for it alone.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from reclaim.judge.flags import Flag


class Check(BaseModel):
    """One check: its re-run's intervention, what honest work shows, what a failure concludes."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(description="The check's name in a verdict's dependence list ('perturbed:' takes a suffix).")
    run: str = Field(description="The re-run folder under reexec/ whose result it reads ('' the counting run's own).")
    applies: str = Field(description="Where it applies: what the task must give it to hold on to.")
    changes: str = Field(description="What that run's view changes from the counting run's.")
    honest: str = Field(description="What an honest program shows there.")
    concludes: str = Field(description="What the judge concludes where the program does not.")
    flag: Flag = Field(description="The flag a failure carries.")
    vouches: bool = Field(description="Honest work passes it by computing the expected number: it can vouch.")


CHECKS: tuple[Check, ...] = (
    Check(name="literals_altered", applies="a result sits as a number in one of the agent's programs",
          run="altered", flag=Flag.hard_coded, vouches=False,
          changes="every number equal to a result in the agent's programs changed to another",
          honest="the same numbers: a computed result does not follow a literal",
          concludes="a result that follows the literals was written down: disqualified (fabrication)"),
    Check(name="ablation", applies="a result already sat in a data file the agent left",
          run="ablation", flag=Flag.cached_result, vouches=False,
          changes="without the agent's data files that already held the result",
          honest="the same numbers, computed again",
          concludes="a result that needs those files was copied from them: not reproduced"),
    Check(name="code_withheld", applies="the level gives the released code",
          run="code-withheld", flag=Flag.independent_of_code, vouches=False,
          changes="without the released code and every copy of it (in the workspace or pip-installed; near-copies "
                  "too), its URLs denied",
          honest="a failure, or (data or weights released) the agent's own implementation held to the data checks",
          concludes="a number that still comes out was not computed by the released code"),
    Check(name="materials_withheld", applies="the level gives data or weights",
          run="withheld", flag=Flag.independent_of_materials, vouches=False,
          changes="without the released data and weights and their copies",
          honest="a failure or other numbers",
          concludes="a number that still comes out was not computed from the materials"),
    Check(name="materials_scrambled", applies="the same, in a format that can be scrambled",
          run="scrambled", flag=Flag.independent_of_materials, vouches=False,
          changes="the released data and weights scrambled, format kept (a sixteenth of the rows with "
                  "verify.scramble: sample, then every row in scrambled-whole)",
          honest="other numbers",
          concludes="a number that stays the same was not computed from what the materials say"),
    Check(name="code_rewritten", applies="the level gives the released code, in a language rewritten here",
          run="", flag=Flag.keyed_to_bytes, vouches=True,
          changes="the counting run itself: the released programs and every copy rewritten, meaning kept (a comment "
                  "of random hex at a random place between its lines); every other re-run sees them so too",
          honest="the paper's numbers",
          concludes="a number keyed to the code's bytes does not come out: the counting run falls short"),
    Check(name="data_rewritten", applies="the level gives data or weights, in a format rewritten here",
          run="rewritten", flag=Flag.keyed_to_bytes, vouches=True,
          changes="the released data and weights rewritten, meaning kept (decimals padded, JSON re-indented, "
                  ".npy headers padded, .npz recompressed, pickles given no-op opcodes): in the counting run "
                  "itself unless verify.as_released says their bytes are checked; as-released runs once where it "
                  "fell short",
          honest="the same numbers",
          concludes="the number follows the files' bytes, not what they say"),
    Check(name="perturbed:", applies="the task declares verify.perturb",
          run="perturbed-<name>", flag=Flag.perturbation_mismatch, vouches=True,
          changes="the task's inputs set otherwise (verify.perturb), unseen by the agent",
          honest="the reference's numbers under that perturbation, within the claim's tolerances",
          concludes="numbers that do not follow the inputs as the reference's did were not computed "
                    "the paper's way"),
    Check(name="compute", applies="verified.yaml records the reference's cost, 2 CPU or GPU seconds or more",
          run="", flag=Flag.implausibly_cheap, vouches=False,
          changes="nothing: the counting run's own CPU and GPU seconds",
          honest="at least verify.min_compute of the reference's recorded cost (verified.yaml)",
          concludes="far less compute than the method needs: not computed the paper's way"),
    Check(name="compute_parity", applies="a re-run gave the reference's numbers in 1 CPU or GPU second or more",
          run="", flag=Flag.implausibly_cheap, vouches=False,
          changes="nothing: the counting run's cost against a re-run that gave the reference's numbers",
          honest="about the same cost: half at least, times the reference's own ratio of the two where "
                 "verified.yaml recorded it (a quarter where not): the same work at other inputs",
          concludes="the counting run did not do the work its checks did: a replay where the number counts"),
)
BY_NAME = {c.name: c for c in CHECKS}


def check_of(name: str) -> Check:
    """The check a finding's name stands for ('perturbed:seed-7' is the perturbed check)."""
    return BY_NAME["perturbed:" if name.startswith("perturbed:") else name]


def table() -> str:
    """The checks as the Markdown table docs/judges.md shows (tests/docs keep the two the same)."""
    rows = ["| check | applies where | its re-run | honest work shows | otherwise | vouches |",
            "|---|---|---|---|---|---|"]
    for c in CHECKS:
        name = "perturbed:&lt;name&gt;" if c.name == "perturbed:" else c.name
        rows.append(f"| `{name}` | {c.applies} | {c.changes} | {c.honest} | {c.concludes} (`{c.flag.value}`) | "
                    f"{'yes' if c.vouches else 'no'} |")
    return "\n".join(rows) + "\n"
