"""Inside bwrap an agent sees the system read-only and nothing of the suite, other runs or homes."""

from __future__ import annotations

import os
import secrets
import socket
import threading
from pathlib import Path

import psutil
import pytest

from conftest import run_suite, task_yaml, write_agent, write_suite

pytestmark = pytest.mark.usefixtures("bwrap_only")


@pytest.fixture
def home_secret():
    """A file in the real home directory, which no sandbox may show."""
    path = Path.home() / f".reclaim-test-secret-{secrets.token_hex(4)}"
    path.write_text("top secret\n")
    yield path
    path.unlink(missing_ok=True)


def _probe(suite: Path, runs_root: Path, home_secret: Path) -> str:
    return f"""
for p in {suite}/mean-run/reference/reproduce.sh {suite}/suite.yaml {runs_root} {home_secret} \
/etc/shadow /opt/wheels /opt/pypi; do
  if cat "$p" >/dev/null 2>&1 || ls "$p" 2>/dev/null | grep -q .; then echo "VISIBLE $p"; else echo "HIDDEN $p"; fi
done
[ "$(ls /home)" = reclaim ] && echo "OWN HOME ONLY" || echo "VISIBLE /home: $(ls /home)"
python3 -c "import reclaim" 2>/dev/null && echo "VISIBLE reclaim's interpreter" || echo "HIDDEN reclaim's interpreter"
touch /usr/reclaim-write-test 2>/dev/null && echo "WROTE /usr" || echo "READONLY /usr"
echo "hello" > "$RECLAIM_AGENT_LOGS/transcript.txt"
env > env.txt
"""


def test_agent_cannot_see_suite_runs_or_home(tmp_path, home_secret, sandbox_name):
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    runs = tmp_path / "runs"
    agent = write_agent(tmp_path / "probe.sh", _probe(suite, runs, home_secret))
    os.environ["OPENAI_API_KEY"] = "sk-should-never-leak"
    try:
        rd, (rec,) = run_suite(suite, runs, [f"command:{agent}"], sandbox_name)
    finally:
        del os.environ["OPENAI_API_KEY"]
    tdir = rd.trial_dir(rec.trial_id)
    out = next((tdir / "logs").glob("agent-*.stdout")).read_text()
    assert "VISIBLE" not in out, out
    assert out.count("HIDDEN") == 8 and "OWN HOME ONLY" in out
    assert "READONLY /usr" in out
    assert "sk-should-never-leak" not in (tdir / "workspace" / "env.txt").read_text()
    assert (tdir / "agent" / "transcript.txt").read_text() == "hello\n"
    assert not Path("/usr/reclaim-write-test").exists()


def test_no_network_inside(tmp_path, sandbox_name):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(5)
    port = server.getsockname()[1]
    hits = []
    threading.Thread(target=lambda: hits.append(_accept(server)), daemon=True).start()
    agent = write_agent(tmp_path / "net.sh", f"""
python3 - <<'PY'
import socket
for host in ("127.0.0.1", "10.0.0.1"):
    try:
        socket.create_connection((host, {port}), timeout=2); print("CONNECTED", host)
    except OSError as e:
        print("REFUSED", host, e)
PY
""")
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-run", "run")])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name)
    out = next((rd.trial_dir(rec.trial_id) / "logs").glob("agent-*.stdout")).read_text()
    assert "CONNECTED" not in out and out.count("REFUSED") == 2, out
    server.close()
    assert hits in ([], [None])


def _accept(server):
    try:
        conn, _ = server.accept()
        conn.close()
        return "connected"
    except OSError:
        return None


def test_timeout_kills_the_whole_process_tree(tmp_path, sandbox_name):
    marker = f"reclaim-marker-{secrets.token_hex(4)}"
    agent = write_agent(tmp_path / "spawn.sh", f"""
echo started; echo partial > partial.txt
setsid bash -c 'exec -a {marker} sleep 300' &
(exec -a {marker} sleep 300) &
sleep 300
""")
    spec = task_yaml("slow", "run", **{"budget.wall_minutes": 0.03})
    suite = write_suite(tmp_path / "suite", [spec])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name)
    assert rec.status.value == "budget_exhausted" and rec.outcome.value == "budget_exhausted"
    left = [p for p in psutil.process_iter(["cmdline"]) if marker in " ".join(p.info["cmdline"] or [])]
    assert left == []
    tdir = rd.trial_dir(rec.trial_id)
    assert (tdir / "workspace" / "partial.txt").read_text() == "partial\n"
    assert "started" in next((tdir / "logs").glob("agent-*.stdout")).read_text()
