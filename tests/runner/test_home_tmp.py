"""A trial's writable home and on-disk /tmp: the agent writes there, /tmp counts against the disk
budget, and the re-execution gets a fresh home and /tmp of its own."""

from __future__ import annotations

import json

from conftest import run_suite, task_yaml, write_agent, write_suite

REPRODUCE_FROM_TMP = """set -e
cat /tmp/left-by-agent/mean.txt > /dev/null
python3 -c "import json; json.dump({'mean_value': float(open('/tmp/left-by-agent/mean.txt').read())}, \
open('results.json', 'w'))"
"""


def _out(tdir) -> str:
    return "".join(p.read_text() for p in sorted((tdir / "logs").glob("agent-*.std*")))


def test_the_agent_writes_to_home_and_tmp_and_the_reexec_gets_fresh_ones(tmp_path, sandbox_name):
    agent = write_agent(tmp_path / "tmpuser.sh", f"""set -e
echo cached > "$HOME/.cache-probe" && echo HOME-OK "$HOME"
mkdir -p /tmp/left-by-agent && echo 3.19375 > /tmp/left-by-agent/mean.txt && echo TMP-OK
cat > reproduce.sh <<'EOS'
{REPRODUCE_FROM_TMP}EOS
bash reproduce.sh
""")
    suite = write_suite(tmp_path / "suite", [task_yaml("home-tmp", "retrain")])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name)
    tdir = rd.trial_dir(rec.trial_id)
    out = _out(tdir)
    assert "HOME-OK" in out and "TMP-OK" in out, out
    assert json.loads((tdir / "workspace" / "results.json").read_text()) == {"mean_value": 3.19375}
    rx = json.loads((tdir / "reexec" / "reexec.json").read_text())
    assert rx["ran"] and rx["exit_code"] != 0, rx  # the re-execution's /tmp does not hold the agent's file
    err = "".join(p.read_text() for p in (tdir / "reexec" / "logs").glob("*.stderr"))
    assert "left-by-agent/mean.txt" in err, err
    assert rec.outcome.value == "not_reproduced", rec.error


def test_filling_tmp_past_the_disk_budget_ends_budget_exhausted(tmp_path, sandbox_name):
    agent = write_agent(tmp_path / "filler.sh", """
for i in $(seq 1 40); do head -c 8M /dev/urandom > /tmp/fill-$i || break; sleep 0.05; done
sleep 30
""")
    suite = write_suite(tmp_path / "suite", [task_yaml("tmp-fill", "retrain", **{"budget.disk_gb": 0.1})])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name, max_retries=0)
    assert rec.status.value == "budget_exhausted", (rec.status, rec.error)
    events = [json.loads(line) for line in (rd.trial_dir(rec.trial_id) / "trace.jsonl").read_text().splitlines()]
    assert any("disk" in json.dumps(e).lower() for e in events if e["kind"] in ("budget", "budget_exhausted", "note"))
