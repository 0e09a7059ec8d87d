"""Every execution of reproduce.sh sees the same world but for its check's one intervention
(issue 32): a program that fingerprints its surroundings from inside (the mount table, its
variables, what it is told of its time, its cgroup, its output files' paths, the stat of every
file and the order they are listed in) finds the counting run and each check alike, except for
the material the check withholds or scrambles. A script that fabricates where its number counts
and computes in every check has nothing to tell them apart by."""

from __future__ import annotations

import json

import pytest

from conftest import run_suite, write_agent
from reclaim.suites import resolve_suite

FINGERPRINT = r'''
import hashlib, json, os, sys, time
out = {}
rows = []
for line in open("/proc/self/mountinfo"):
    f = line.split()
    dash = f.index("-")
    rows.append(" ".join([f[3], f[4], f[5], *f[dash + 1:]]))  # root, where, options, type, source, super options
out["mountinfo"] = rows
env = dict(os.environ)
out["deadline_left"] = int(env.pop("RECLAIM_DEADLINE", "0")) - time.time()
out["env"] = env
for p in ("/proc/self/cgroup", "/proc/self/limits", "/proc/self/status", "/etc/hostname"):
    try:
        text = open(p).read()
    except OSError as e:
        text = repr(e)
    if p.endswith("status"):  # its own pid, memory and context switches are the process's, not the run's
        text = "\n".join(l for l in text.splitlines() if l.split(":")[0] in ("Uid", "Gid", "Groups", "CapInh",
                         "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp", "Cpus_allowed_list"))
    out[p] = text
out["hostname"] = os.uname().nodename
out["fds"] = {str(fd): os.readlink(f"/proc/self/fd/{fd}") for fd in (0, 1, 2)}
files = []
for root in ("/workspace", os.environ.get("HOME", "/"), "/tmp"):
    st = os.lstat(root)
    files.append([root, oct(st.st_mode), st.st_uid, st.st_gid, st.st_mtime_ns])
    for top, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not (top == "/workspace" and d in ("fp", "out"))]
        for n in [*dirs, *names]:
            p = os.path.join(top, n)
            if top == "/workspace" and n in ("results.json",):
                continue
            st = os.lstat(p)
            files.append([p, oct(st.st_mode), st.st_uid, st.st_gid, st.st_size, st.st_mtime_ns, st.st_nlink])
out["files"] = files
os.makedirs("fp", exist_ok=True)
json.dump(out, open("fp/fingerprint.json", "w"), indent=1)
'''

AGENT = """
cat > fingerprint.py <<'PY'
""" + FINGERPRINT + """
PY
cp code/evaluate.py my_evaluate.py  # a copy of released code: every re-run rewrites it as the release
cat > reproduce.sh <<'EOF'
#!/bin/bash
python3 fingerprint.py
mkdir -p out && python3 my_evaluate.py --weights weights/model.npz --data data/test.csv --out out/m.json || exit 1
python3 -c "import json; m = json.load(open('out/m.json'))
json.dump({'test_accuracy': m['accuracy']}, open('results.json', 'w'))"
EOF
bash reproduce.sh
"""


@pytest.fixture(scope="module")
def prints(tmp_path_factory, sandbox_name):
    if sandbox_name != "bwrap":
        pytest.skip("the re-runs' sameness is the bwrap sandbox's (a root harness's overlays)")
    tmp = tmp_path_factory.mktemp("fingerprints")
    agent = write_agent(tmp / "fingerprint.sh", AGENT)
    rd, records = run_suite(resolve_suite("demo"), tmp / "runs", [f"fp=command:{agent}"], sandbox_name,
                            tasks=["run-logreg-sensor-faults"])
    rx = rd.trial_dir(records[0].trial_id) / "reexec"
    got = {"fresh": json.loads((rx / "workspace" / "fp" / "fingerprint.json").read_text())}
    for folder in sorted(p for p in rx.iterdir() if (p / "workspace" / "fp" / "fingerprint.json").is_file()):
        got[folder.name] = json.loads((folder / "workspace" / "fp" / "fingerprint.json").read_text())
    verdict = json.loads((rd.trial_dir(records[0].trial_id) / "verdict.json").read_text())
    return got, verdict


def _without(fp: dict, kinds: tuple[str, ...]) -> dict:
    """A fingerprint less what a check changes: the materials ``kinds`` (their mounts, their files)."""
    places = tuple(f"/workspace/{k}" for k in kinds)
    out = dict(fp)
    out["mountinfo"] = [r for r in fp["mountinfo"] if r.split()[1] not in places]
    out["files"] = [f for f in fp["files"] if not f[0].startswith(places)]
    out.pop("deadline_left")
    return out


# what each check changes (the agent's copy of released code goes with the code)
INTERVENES = {"code-withheld": ("code", "my_evaluate.py"), "withheld": ("data", "weights"),
              "scrambled": ("data", "weights"), "scrambled-whole": ("data", "weights"),
              "as-released": ("data", "weights")}


def test_the_checks_ran(prints):
    got, verdict = prints
    assert {"code-withheld", "withheld", "scrambled"} <= set(got), sorted(got)
    assert verdict["outcome"] == "reproduced", verdict["rationale"]


@pytest.mark.parametrize("check", ["code-withheld", "withheld", "scrambled"])
def test_a_check_looks_like_the_counting_run_but_for_its_intervention(prints, check):
    got, _ = prints
    kinds = INTERVENES[check]
    fresh, other = _without(got["fresh"], kinds), _without(got[check], kinds)
    for key in fresh:
        assert fresh[key] == other[key], f"{check} differs from the counting run in {key}"
    assert abs(got["fresh"]["deadline_left"] - got[check]["deadline_left"]) < 15  # told the same time
    # and the intervention is real: the withheld material is not there
    if check.endswith("withheld"):
        assert not [r for r in got[check]["mountinfo"] if r.split()[1] in {f"/workspace/{k}" for k in kinds}]


def test_no_path_names_a_check(prints):
    got, _ = prints
    for name, fp in got.items():
        text = json.dumps(fp)
        for word in ("code-withheld", "withheld", "scrambled", "rewritten", "reexec/workspace", "altered"):
            assert word not in text, f"{name}: {word!r} in its fingerprint"
