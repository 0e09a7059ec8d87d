"""The network policy of a trial, end to end: a sandbox reaches other hosts only through the egress
proxy, every request is on the record, and withheld material is denied, flagged, and — if it got
in by another route — found and disqualifying."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_suite, task_yaml, write_agent, write_suite

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "gateway"))
from egress_servers import Upstream, build_wheel, make_repos

OFFICIAL = "The official implementation of the mean estimator, as released by the authors.\n" * 8


@pytest.fixture
def upstream(tmp_path, bwrap_only):
    up = Upstream(tmp_path / "up")
    wheel = build_wheel(tmp_path)
    up.files[wheel.name] = wheel
    make_repos(up.git_root, {"official": OFFICIAL, "fork": OFFICIAL})
    yield up
    up.close()


def _events(tdir: Path, kind: str) -> list[dict]:
    return [e for e in map(json.loads, (tdir / "trace.jsonl").read_text().splitlines()) if e["kind"] == kind]


def _agent_out(tdir: Path) -> str:
    return "".join(p.read_text() for p in sorted((tdir / "logs").glob("agent-*.std*")))


@pytest.mark.parametrize("policy", ["packages", "none"])
def test_pip_installs_through_the_proxy_under_packages_and_not_under_none(tmp_path, upstream, monkeypatch,
                                                                          sandbox_name, policy):
    monkeypatch.setenv("PIP_INDEX_URL", f"{upstream.origin}/simple/")  # this machine's configured index
    agent = write_agent(tmp_path / "installer.sh", "pip install --no-cache-dir tinypkg && "
                        "python3 -c 'import tinypkg; print(\"VALUE\", tinypkg.VALUE)'\n")
    suite = write_suite(tmp_path / "suite", [task_yaml("net-pip", "retrain", **{"network.policy": policy})])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name)
    tdir = rd.trial_dir(rec.trial_id)
    requests = _events(tdir, "network_request")
    assert requests, _agent_out(tdir)
    assert all(e["url"].startswith(upstream.origin) for e in requests)
    logged = [json.loads(line) for line in (tdir / "records" / "egress.jsonl").read_text().splitlines()]
    assert len(logged) == len(requests) and "records/egress.jsonl" in rec.records
    verdict = json.loads((tdir / "verdict.json").read_text())
    if policy == "packages":
        assert "VALUE 42" in _agent_out(tdir)
        assert all(e["allowed"] for e in requests) and any("/files/tinypkg" in e["url"] for e in requests)
        assert any(e["bytes_down"] > 0 for e in requests)
        assert "network_denied" not in verdict["flags"]
    else:
        assert "VALUE 42" not in _agent_out(tdir)
        assert not any(e["allowed"] for e in requests)
        assert not any("/files/" in p for p in upstream.paths())  # the index never saw a download
        assert "network_denied" in verdict["flags"]


def test_a_package_file_crosses_the_network_once_for_every_trial(tmp_path, upstream, monkeypatch, sandbox_name):
    monkeypatch.setenv("PIP_INDEX_URL", f"{upstream.origin}/simple/")
    monkeypatch.setenv("RECLAIM_PACKAGE_CACHE", str(tmp_path / "packages"))
    agent = write_agent(tmp_path / "installer.sh",
                        "pip install -q --no-cache-dir tinypkg && python3 -c 'import tinypkg'\n")
    suite = write_suite(tmp_path / "suite", [task_yaml("net-cache", "retrain")])
    rd, records = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name, seeds=2, jobs=1)
    downloads = [p for p in upstream.paths() if p.startswith("/files/tinypkg")]
    assert len(downloads) == 1, downloads
    second = [e for e in _events(rd.trial_dir(records[1].trial_id), "network_request") if "/files/" in e["url"]]
    assert second and "served from the package cache" in second[0]["rule"] and second[0]["bytes_down"] > 0
    assert not any(p.name.startswith(".part-") for p in (tmp_path / "packages").iterdir())


def _reimplement_with_official_code(tmp_path: Path, upstream: Upstream) -> Path:
    commit = subprocess.run(["git", "-C", str(upstream.git_root / "official.git"), "rev-parse", "HEAD"],
                            capture_output=True, text=True, check=True).stdout.strip()
    spec = task_yaml("net-reimpl", "reimplement", **{
        "materials.code": {"git": {"url": f"{upstream.origin}/git/official.git", "commit": commit}},
        "network": {"policy": "allowlist", "allow": [f"127.0.0.2:{upstream.port}"]}})
    return write_suite(tmp_path / "suite", [spec])


def test_a_denied_url_of_withheld_code_is_recorded_and_flagged(tmp_path, upstream, sandbox_name):
    suite = _reimplement_with_official_code(tmp_path, upstream)
    agent = write_agent(tmp_path / "cloner.sh", f"git clone -q {upstream.origin}/git/official.git off || echo DENIED\n")
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name)
    tdir = rd.trial_dir(rec.trial_id)
    assert "DENIED" in _agent_out(tdir)
    denied = [e for e in _events(tdir, "network_request") if not e["allowed"]]
    assert denied and all(e["forbidden"] == "code" for e in denied)
    assert not (tdir / "workspace" / "off").exists()  # nothing of it reached the workspace
    verdict = json.loads((tdir / "verdict.json").read_text())
    assert {"withheld_material_requested", "network_denied"} <= set(verdict["flags"])
    assert verdict["outcome"] != "disqualified"  # asked, refused: nothing was obtained
    assert {c["event_id"] for c in verdict["citations"]} & {e["id"] for e in denied}


def test_withheld_code_obtained_by_an_unlisted_route_disqualifies(tmp_path, upstream, sandbox_name):
    """A fork the task did not list is allowed by the host rule; its files are the official code's."""
    suite = _reimplement_with_official_code(tmp_path, upstream)
    agent = write_agent(tmp_path / "forker.sh", f"""set -e
git clone -q {upstream.origin}/git/fork.git vendor/fork
python3 -c "import json; json.dump({{'mean_value': 3.19375}}, open('results.json', 'w'))"
printf 'python3 -c "import json; \
json.dump({{\\"mean_value\\": sum(map(float, open(\\"data/values.csv\\").read().split()))/5}}, \
open(\\"results.json\\", \\"w\\"))"\\n' > reproduce.sh
""")
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], sandbox_name)
    tdir = rd.trial_dir(rec.trial_id)
    found = _events(tdir, "withheld_found")
    assert found and found[0]["material"] == "code"
    assert any(f.startswith("workspace/vendor/fork/README = code/README") for f in found[0]["files"])
    verdict = json.loads((tdir / "verdict.json").read_text())
    assert rec.outcome.value == "disqualified" and "withheld_material" in verdict["flags"], verdict["rationale"]
    assert "withheld code" in verdict["rationale"]


@pytest.fixture(scope="module")
def image() -> str:
    from reclaim.sandbox import images
    if (why := images.available("podman")) is not None:
        pytest.skip(f"podman cannot run containers here: {why}")
    root = Path(__file__).resolve().parents[2]
    res = subprocess.run([str(root / "scripts" / "build-test-image")], check=False, capture_output=True, text=True,
                         timeout=1800)
    assert res.returncode == 0, res.stderr
    return res.stdout.strip()


@pytest.mark.parametrize("policy", ["packages", "none"])
def test_pip_installs_through_the_proxy_inside_a_container(tmp_path, upstream, monkeypatch, image, policy):
    monkeypatch.setenv("PIP_INDEX_URL", f"{upstream.origin}/simple/")
    agent = write_agent(tmp_path / "installer.sh", "pip install --no-cache-dir tinypkg && "
                        "python3 -c 'import tinypkg; print(\"VALUE\", tinypkg.VALUE)'\n")
    suite = write_suite(tmp_path / "suite", [task_yaml("net-pip-ct", "retrain", **{"network.policy": policy})])
    rd, (rec,) = run_suite(suite, tmp_path / "runs", [f"command:{agent}"], "container", image=image, max_retries=0)
    tdir = rd.trial_dir(rec.trial_id)
    requests = _events(tdir, "network_request")
    assert rec.error is None and requests, (rec.error, _agent_out(tdir))
    if policy == "packages":
        assert "VALUE 42" in _agent_out(tdir), _agent_out(tdir)
        assert all(e["allowed"] for e in requests) and any("/files/tinypkg" in e["url"] for e in requests)
    else:
        assert "VALUE 42" not in _agent_out(tdir) and not any(e["allowed"] for e in requests)
        assert not any("/files/" in p for p in upstream.paths())
