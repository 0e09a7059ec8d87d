"""Released materials are the agent's to change, copy on write: real agents edit released code in
place and write beside it; the cache never changes; the harness knows every file changed."""

from __future__ import annotations

import json

import pytest

from conftest import VALUES, run_suite, task_yaml, write_agent, write_suite
from reclaim.materials import MaterialCache
from reclaim.sandbox import backend
from reclaim.trace import CommandFinished, read_trace

EDIT = """\
set -e
sed -i 's/^print/# print/' code/mean.py        # repair a line of a released module, in place
echo 'a note beside the code' > code/notes.txt  # write next to released code
mkdir -p data/processed && echo 1 > data/processed/cache.txt
rm code/unused.py
printf 'set -e\\npython3 code/mean.py\\n' > reproduce.sh
bash reproduce.sh
"""


@pytest.fixture
def cow(sandbox_name):
    if sandbox_name != "bwrap" or backend("bwrap").overlays() is not None:
        pytest.skip("copy-on-write materials need bwrap and a root harness")


def test_an_agent_edits_released_code_in_place_and_reproduces(tmp_path, sandbox_name, cow):
    agent = write_agent(tmp_path / "edit.sh", EDIT)
    suite = write_suite(tmp_path / "suite", [task_yaml("edit-in-place", "retrain")])
    (suite / "edit-in-place" / "code" / "unused.py").write_text("x = 1\n")
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name)
    tdir = rd.trial_dir(rec.trial_id)
    assert rec.outcome.value == "reproduced", (tdir / "verdict.json").read_text()
    changed = {c["path"]: c["change"] for c in json.loads((tdir / "materials-changed.json").read_text())}
    assert changed == {"code/mean.py": "modified", "code/notes.txt": "added",
                       "data/processed/cache.txt": "added", "code/unused.py": "deleted"}
    assert rec.materials_changed == 4 and "materials-changed.json" in rec.records
    # the agent's upper layer holds its version; the cache's object is as released
    assert "# print" in (tdir / "workspace" / "code" / "mean.py").read_text()
    cache = MaterialCache()
    obj = next(p for p in (cache.root / "objects").iterdir() if (p / "mean.py").is_file()
               and (p / "unused.py").is_file())
    assert "# print" not in (obj / "mean.py").read_text() and (obj / "unused.py").is_file()
    # every command's changes are on the record as changes to the release
    trace = read_trace(tdir / "trace.jsonl")
    files = {f.path: f.change for e in trace if isinstance(e, CommandFinished) and e.phase == "agent" for f in e.files}
    assert files["code/mean.py"] == "modified" and files["code/unused.py"] == "deleted"
    # re-runs: the fresh one computed it with the edit; without the code it does not come out
    verdict = json.loads((tdir / "verdict.json").read_text())
    checks = {f["check"]: f for f in verdict["dependence"]}
    assert checks["code_withheld"]["passed"] and checks["materials_withheld"]["passed"]
    assert "changed in place" not in verdict["rationale"]
    assert (tdir / "reexec" / "workspace" / "results.json").exists()


def test_task_md_says_the_materials_are_the_agents_to_change(tmp_path, sandbox_name, cow):
    agent = write_agent(tmp_path / "look.sh", "cat TASK.md > /dev/null; echo -n > data/values.csv || true\n")
    suite = write_suite(tmp_path / "suite", [task_yaml("look", "retrain")])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name)
    tdir = rd.trial_dir(rec.trial_id)
    assert "yours to change in place" in (tdir / "workspace" / "TASK.md").read_text()
    assert (tdir / "workspace" / "data" / "values.csv").read_text() == ""  # the agent's own emptied copy
    obj = next(p for p in (MaterialCache().root / "objects").iterdir() if (p / "values.csv").is_file())
    assert (obj / "values.csv").read_text() == VALUES


def test_what_the_agent_changed_is_shown_as_a_diff_in_show_the_page_and_the_evidence(tmp_path, sandbox_name, cow):
    from typer.testing import CliRunner

    from reclaim.cli.main import app
    from reclaim.judge.evidence import build_evidence
    from reclaim.report.html.trialdata import trial_page
    from reclaim.spec import TaskSpec

    agent = write_agent(tmp_path / "edit.sh", EDIT)
    suite = write_suite(tmp_path / "suite", [task_yaml("edit-shown", "retrain")])
    (suite / "edit-shown" / "code" / "unused.py").write_text("x = 1\n")
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name)
    tdir = rd.trial_dir(rec.trial_id)
    res = CliRunner().invoke(app, ["show", str(tdir)])
    assert "released files the agent changed in place" in res.output
    assert "+# print('mean'" in res.output and "-print('mean'" in res.output and "deleted code/unused.py" in res.output
    page = trial_page(tdir)
    assert {d.path for d in page.story.changed} >= {"code/mean.py", "code/notes.txt"}
    spec = TaskSpec.model_validate_json((tdir / "spec.json").read_text())
    text = build_evidence(tdir, spec).render()
    assert "## Released files the agent changed in place" in text and "+# print('mean'" in text


def test_every_re_run_may_write_where_the_agent_could(tmp_path, sandbox_name, cow):
    """The re-runs show the release through layers of the harness's making (rewritten, scrambled, the
    agent's changes): a program that writes beside itself must work there as it did for the agent."""
    agent = write_agent(tmp_path / "beside.sh", "set -e\nmkdir -p code/cache\necho 1 > code/cache/seen.txt\n"
                        "printf 'set -e\\nmkdir -p code/cache/sub\\necho w > code/cache/seen.txt\\n"
                        "echo w > code/sub.txt\\npython3 code/mean.py\\n' > reproduce.sh\nbash reproduce.sh\n")
    suite = write_suite(tmp_path / "suite", [task_yaml("beside", "retrain")])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name)
    tdir = rd.trial_dir(rec.trial_id)
    assert rec.outcome.value == "reproduced", (tdir / "verdict.json").read_text()
    rx = json.loads((tdir / "reexec" / "reexec.json").read_text())
    assert rx["exit_code"] == 0 and rx["scrambled"]["exit_code"] == 0



BROKEN = "raise SystemExit('np.int is gone: fix this line')\n"
REPAIR = """\
set -e
sed -i 's/^raise SystemExit.*$/pass/' code/fix_me.py     # repair the released module in place
mkdir -p data/processed
cat > total.py <<'PY'
print(sum(float(x) for x in open('data/values.csv').read().split()))
PY
python3 total.py > data/processed/total.txt              # a preprocessed file beside the released data
cat > mean.py <<'PY'
import json, os
n = len(open('data/values.csv').read().split())
total = float(open('data/processed/total.txt').read())
json.dump({'mean_value': int(os.environ.get('SCALE', '1')) * total / n}, open('results.json', 'w'))
PY
printf 'set -e\\npython3 code/fix_me.py\\nmkdir -p data/processed\\n\
[ -f data/processed/total.txt ] || python3 total.py > data/processed/total.txt\\npython3 mean.py\\n' > reproduce.sh
bash reproduce.sh
"""


def test_every_re_run_sees_what_the_agent_changed_in_the_release(tmp_path, sandbox_name, cow):
    """An agent that must repair released code to run it, and that leaves a preprocessed file beside
    the released data for reproduce.sh to read (made again where missing): the fresh re-run and the
    perturbed one see its repair and its file over the release (before, they saw the release alone,
    and honest work failed there); the scrambled one sees the scrambled data without the agent's
    file, derived from the real data, so its own is derived again from what it sees."""
    spec = task_yaml("repair", "retrain", **{
        "verify": {"inputs": {"SCALE": "1"}, "perturb": [{"name": "double", "env": {"SCALE": "2"},
                                                          "values": {"mean_value": 6.3875}}]}})
    suite = write_suite(tmp_path / "suite", [spec])
    (suite / "repair" / "code" / "fix_me.py").write_text(BROKEN)
    agent = write_agent(tmp_path / "repair.sh", REPAIR)
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name)
    tdir = rd.trial_dir(rec.trial_id)
    verdict = json.loads((tdir / "verdict.json").read_text())
    assert rec.outcome.value == "reproduced", verdict["rationale"]
    checks = {f["check"]: f for f in verdict["dependence"]}
    assert checks["perturbed:double"]["passed"], checks
    assert all(checks[c]["passed"] for c in ("code_withheld", "materials_withheld", "materials_scrambled")), checks
    rx = json.loads((tdir / "reexec" / "reexec.json").read_text())
    assert rx["exit_code"] == 0 and rx["scrambled"]["exit_code"] == 0
    assert (tdir / "reexec" / "scrambled" / "workspace" / "data" / "processed" / "total.txt").read_text() != \
        (tdir / "workspace" / "data" / "processed" / "total.txt").read_text()
