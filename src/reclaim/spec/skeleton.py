"""`reclaim tasks new`: a task folder to fill in, that fails validation until it is filled in.

The skeleton holds every required field of task.yaml as a placeholder (spec/placeholders.py),
the optional ones as comments with an example each, a placeholder paper.md and reference
script, and the material folders the level needs, each with a FILL_IN.md to replace.
"""

from __future__ import annotations

import re
from pathlib import Path

from reclaim.errors import UsageError
from reclaim.spec.models import Level
from reclaim.spec.placeholders import FILE_MARK, MARK, MATERIAL_MARK

TASK_FILE, SUITE_FILE = "task.yaml", "suite.yaml"
TASK_ID, SUITE_NAME = r"[a-z0-9][a-z0-9\-]*", r"[a-z0-9][a-z0-9\-_.]*"  # as in TaskSpec.id, SuiteMeta.name
MATERIALS = {Level.run: ("code", "data", "weights"), Level.retrain: ("code", "data"), Level.reimplement: ("data",)}
LEVEL_WORDS = {
    Level.run: "the authors released code, data and weights: the agent sets up and runs the code",
    Level.retrain: "the authors released code and data, no weights: the agent trains, then evaluates",
    Level.reimplement: "the agent gets the paper (and data, if released) and writes the implementation",
}


class SkeletonError(UsageError):
    """The skeleton cannot be written: the message says why and what to do."""


def check_id(task_id: str) -> None:
    if not re.fullmatch(TASK_ID, task_id):
        better = re.sub(r"[^a-z0-9\-]+", "-", task_id.lower()).strip("-") or "my-task"
        raise SkeletonError(f"task id '{task_id}' is not valid: use lowercase letters, digits and dashes, "
                            f"starting with a letter or digit (e.g. {better})")


def _fill(what: str) -> str:
    return f'"{MARK}: {what}"'


def task_yaml(task_id: str, level: Level) -> str:
    kinds = MATERIALS[level]
    material_lines = [f"  {k}: {{path: {k}}}".ljust(38) + ("# or: data: generated (the released code makes "
                                                  "its own data)" if k == "data" and "code" in kinds else "")
                      for k in kinds]
    if level == Level.reimplement:
        material_lines[0] += "# no data released: materials: {} and delete data/ (then verify.perturb, below)"
    return f"""\
# A task skeleton written by `reclaim tasks new`. Replace every {MARK} below, paper.md,
# reference/reproduce.sh and the {MATERIAL_MARK} in each material folder, then check it:
#   reclaim tasks validate SUITE            (the spec)
#   reclaim tasks validate SUITE --with-reference   (the reference reproduces the target)
# Every field, with its type and default: docs/task-format.md
id: {task_id}
level: {level.value}   # {LEVEL_WORDS[level]}

paper:
  title: {_fill("the paper's title")}
  venue: {_fill("conference or journal, e.g. NeurIPS")}
  year: {_fill("year of publication, e.g. 2025")}
  # authors: [Ada Lovelace, Alan Turing]
  # ids: {{arxiv: 2405.01234, doi: 10.1234/abcd}}
  # urls: [https://arxiv.org/abs/2405.01234]
  # text: paper.md                    # the paper's text (default); or give pdf or arxiv instead
  # pdf: paper.pdf                    # a path, or an https URL with pdf_sha256
  # pdf_sha256: <sha256sum of the PDF>
  # arxiv: 2405.01234v2               # with its version

materials:                            # what the authors released: path, git, http or hub each
{chr(10).join(material_lines)}
  # code: {{git: {{url: https://github.com/org/repo, commit: <full 40-character sha>}}, mirrors: [https://github.com/fork/repo]}}
  # data: {{http: {{url: https://zenodo.org/records/1/files/data.tar.gz, sha256: <64-character sha256>}}}}
  # weights: {{hub: {{repo: org/model, revision: <full 40-character sha>, kind: model, files: ["*.safetensors"]}}}}

target:
  claim: {_fill("the claim, in the paper's words")}
  metric: {_fill("the key the agent writes in results.json, e.g. test_accuracy")}
  value: {_fill("the number the paper reports, e.g. 0.912")}
  direction: {_fill("higher_is_better, lower_is_better or match")}
  where: {_fill("where in the paper, e.g. Table 2, row 3")}
  # several numbers of one claim, instead of metric, value and direction:
  # metrics:
  #   test_accuracy: {{value: 0.912, direction: higher_is_better, where: "Table 2"}}
  #   test_loss: {{value: 0.31, direction: lower_is_better, abs_tol: 0.02}}
  # require: [test_accuracy]          # only these must hold; the others are reported

criteria:
  rel_tol: {_fill("how close is close enough, e.g. 0.02 (2 %); or abs_tol: 0.01, or interval: low and high as a list")}
  # max_better: 0.05                  # one-sided targets: how far past the paper's value is still plausible
  # notes: "..."                      # shown to the agent (TASK.md) and to the judge

budget:
  wall_minutes: {_fill("minutes the agent gets, e.g. 60")}
  # gpu_hours: 0
  # gpus: 0
  # cpus: 1
  # memory_gb: 4
  # disk_gb: 20
  # money_usd: 5.0                    # model calls through the gateway; default: no limit
  # model_tokens: 2000000
  # reexec: {{mode: evaluate, entrypoint: evaluate.sh, reference_gpu_hours: 2.0}}   # default mode: full

reference:                            # the reference solution: never enters an agent's sandbox
  path: reference
  entrypoint: reproduce.sh
  # weakened: weakened.sh             # a genuinely weaker run that must miss the target

# environment:                        # default: the system's python3, in a venv the agent installs into
#   python: "3.11"
#   requirements: requirements.txt    # relative to the task folder, not inside withheld code
#   packages: [numpy>=1.24]
#   system: [libgomp1]
#   image: docker.io/library/python:3.11-slim   # or dockerfile: Dockerfile (container backend)
#   host_python: false
# network:
#   policy: packages                  # none, gateway, packages (default) or allowlist
#   allow: [example.org]              # only with policy: allowlist
# verify:                             # where the paper's code takes a seed or a size: the harness re-runs
#   inputs: {{SEED: "1"}}               # reproduce.sh with another value and checks the numbers follow;
#   perturb: [{{name: seed-7, env: {{SEED: "7"}}}}]   # then: tasks validate --with-reference --record
#   min_compute: 0.25                 # the re-run must use this share of the reference's recorded compute
# tags: [tabular, regression]
"""


PAPER_MD = f"""\
{FILE_MARK}: the paper's text

Paste the paper's text here, as Markdown (tables as Markdown tables): the agent reads it as
paper.md. Or delete this file and give paper.arxiv or paper.pdf in task.yaml.
"""

REPRODUCE_SH = f"""\
#!/bin/bash
{FILE_MARK}: the reference solution.
# It runs in the sandbox in the workspace root (/workspace), with this folder's files copied there
# and the released materials at code/, data/, weights/ (copy-on-write). python3 and pip are a
# virtual environment of the trial's own (task.yaml environment: says what is installed in it).
# It must write results.json mapping the target's metric to the value it computed, e.g.
#   python3 code/evaluate.py --data data/ --out results.json
# Delete these comment lines once it is written.
set -euo pipefail
echo "reference/reproduce.sh is still the skeleton's placeholder" >&2
exit 1
"""

MATERIAL_MD = f"""\
{FILE_MARK}: the released {{kind}}

Put the authors' released {{kind}} in this folder (or point materials.{{kind}} in task.yaml at a
git, http or hub source and delete the folder), then delete this file.
"""


def suite_yaml(name: str, task_id: str) -> str:
    return (f"name: {name}\nversion: '0.1'\ndescription: ''\n# tasks: [{task_id}]   # the task folders, in order "
            "(default: every folder with task.yaml); a folder not listed is skipped\n")


def suite_name(folder: Path) -> str:
    name = re.sub(r"[^a-z0-9\-_.]+", "-", folder.resolve().name.lower()).strip("-_.")
    return name if re.fullmatch(SUITE_NAME, name) else "my-suite"


def write_skeleton(suite: Path, task_id: str, level: Level) -> list[Path]:
    """Write ``suite/task_id`` (and ``suite/suite.yaml`` when there is none); return what was written."""
    check_id(task_id)
    task_dir = suite / task_id
    if task_dir.exists() or task_dir.is_symlink():
        raise SkeletonError(f"{task_dir} already exists: choose another id, or remove that folder first "
                            "(nothing was written)")
    if suite.exists() and not suite.is_dir():
        raise SkeletonError(f"--suite {suite} is a file, not a folder")
    written: list[Path] = []
    suite.mkdir(parents=True, exist_ok=True)
    if not (suite / SUITE_FILE).exists():
        (suite / SUITE_FILE).write_text(suite_yaml(suite_name(suite), task_id), encoding="utf-8")
        written.append(suite / SUITE_FILE)
    task_dir.mkdir()
    files = {TASK_FILE: task_yaml(task_id, level), "paper.md": PAPER_MD, "reference/reproduce.sh": REPRODUCE_SH}
    files |= {f"{k}/{MATERIAL_MARK}": MATERIAL_MD.format(kind=k) for k in MATERIALS[level]}
    for rel, text in files.items():
        path = task_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    (task_dir / "reference" / "reproduce.sh").chmod(0o755)
    return written
