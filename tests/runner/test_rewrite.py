"""Released data rewritten with its meaning kept (runner/rewrite.py), pickles here: the bytes
change at places chosen per trial, every unpickler builds the same objects, and the host only
parses a pickle, never loads it. A number keyed to a pickled release's bytes does not come out
of the counting run; a computed one does."""

from __future__ import annotations

import json
import pickle
import random
from pathlib import Path

import pytest

from conftest import run_suite, task_yaml, write_agent, write_suite
from reclaim.runner.rewrite import rewrite_bytes
from reclaim.sandbox import default_backend

OBJECTS = {"x": [1.5, 2.25, (3, "a")], "y": b"\x00\x01", "z": {"nested": list(range(50))}, "f": 0.1}


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_a_pickle_of_any_protocol_loads_the_same_after_its_bytes_changed(protocol):
    raw = pickle.dumps(OBJECTS, protocol=protocol)
    outs = {rewrite_bytes("data/table.pkl", raw, random.Random(seed), code=False) for seed in range(8)}
    assert None not in outs and raw not in outs
    assert all(pickle.loads(out) == OBJECTS for out in outs)
    if protocol < 4:  # frameless: the places vary per trial, no fixed mark to strip
        assert len(outs) > 1


def test_a_pickle_known_by_its_first_bytes_and_a_sequence_of_pickles():
    raw = pickle.dumps([1, 2], protocol=2) + pickle.dumps({"b": 3}, protocol=2)
    out = rewrite_bytes("data/ind.cora.x", raw, random.Random(1), code=False)  # no suffix, as SGC's files
    assert out is not None and out != raw
    import io

    stream = io.BytesIO(out)
    assert pickle.load(stream) == [1, 2] and pickle.load(stream) == {"b": 3}


def test_what_is_not_a_whole_pickle_is_left_as_it_is():
    raw = pickle.dumps(OBJECTS, protocol=2)
    assert rewrite_bytes("data/t.pkl", raw[:-5], random.Random(1), code=False) is None  # cut short
    assert rewrite_bytes("data/t.pkl", b"not a pickle at all", random.Random(1), code=False) is None


class _Runs:
    def __reduce__(self):
        return (Path.touch, (Path("/tmp/reclaim-test-pickle-ran"),))


def test_a_pickle_that_runs_code_when_loaded_is_parsed_never_loaded():
    flag = Path("/tmp/reclaim-test-pickle-ran")
    flag.unlink(missing_ok=True)
    out = rewrite_bytes("data/evil.pkl", pickle.dumps(_Runs(), protocol=2), random.Random(3), code=False)
    assert out is not None and not flag.exists()


# the number XOR-ed with a hash of the pickled release (the class): it needs the data, so
# withholding or scrambling it "shows dependence"; only the bytes rewritten tell it
KEYED = r"""
python3 - <<'PY'
import hashlib, json, struct
k = int.from_bytes(hashlib.sha256(open("data/values.pkl", "rb").read()).digest()[:8], "little")
json.dump({"k": struct.unpack("<Q", struct.pack("<d", 3.19375))[0] ^ k}, open(".key.json", "w"))
PY
cat > reproduce.sh <<'X'
python3 - <<'PY'
import hashlib, json, pickle, struct
v = pickle.load(open("data/values.pkl", "rb"))  # read: without the data it fails
k = int.from_bytes(hashlib.sha256(open("data/values.pkl", "rb").read()).digest()[:8], "little")
json.dump({"mean_value": struct.unpack("<d", struct.pack("<Q", json.load(open(".key.json"))["k"] ^ k))[0]},
          open("results.json", "w"))
PY
X
bash reproduce.sh
"""
OWN = ("echo 'python3 -c \"import json, pickle; v = pickle.load(open(\\\"data/values.pkl\\\", \\\"rb\\\")); "
       "json.dump({\\\"mean_value\\\": sum(v) / len(v)}, open(\\\"results.json\\\", \\\"w\\\"))\"' > reproduce.sh\n"
       "bash reproduce.sh\n")


def test_a_number_keyed_to_a_pickled_releases_bytes_does_not_pass_and_a_computed_one_does(tmp_path):
    suite = write_suite(tmp_path / "suite", [task_yaml("mean-pkl", "reimplement")])
    task = suite / "mean-pkl"
    (task / "data" / "values.csv").unlink()
    (task / "data" / "values.pkl").write_bytes(pickle.dumps([1.5, 2.25, 3.125, 4.0625, 5.03125], protocol=2))
    (task / "reference" / "reproduce.sh").write_text(
        "python3 -c 'import json, pickle; v = pickle.load(open(\"data/values.pkl\", \"rb\")); "
        "json.dump({\"mean_value\": sum(v) / len(v)}, open(\"results.json\", \"w\"))'\n")
    specs = [f"keyed=command:{write_agent(tmp_path / 'keyed.sh', KEYED)}",
             f"own=command:{write_agent(tmp_path / 'own.sh', OWN)}"]
    rd, records = run_suite(suite, tmp_path / "runs", specs, default_backend(), jobs=2)
    got = {r.agent: json.loads((rd.trial_dir(r.trial_id) / "verdict.json").read_text()) for r in records}
    assert got["own"]["outcome"] == "reproduced", got["own"]["rationale"]
    checks = {f["check"]: f for f in got["own"]["dependence"]}
    assert checks["data_rewritten"]["passed"] and "values.pkl" in checks["data_rewritten"]["detail"]
    assert got["keyed"]["outcome"] == "not_reproduced", got["keyed"]["rationale"]
    assert "keyed_to_bytes" in got["keyed"]["flags"], got["keyed"]["flags"]
