"""The literal check reads what a program says: a notebook's code cells (not the outputs a past run
saved, not its markdown), scripts in any encoding and of any size up to 16 MiB, never binary data."""

from __future__ import annotations

import json
import struct

from reclaim.judge.provenance import (
    MAX_SCAN_BYTES,
    find_encoded,
    find_literals,
    reads_texts,
)

VALUE = 0.871
NB_OUTPUT = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
    {"cell_type": "markdown", "metadata": {}, "source": ["We get 0.871 in Table 1."]},
    {"cell_type": "code", "metadata": {}, "execution_count": 3, "source": ["acc = evaluate(model)\n", "print(acc)"],
     "outputs": [{"output_type": "stream", "name": "stdout", "text": ["0.871\n"]},
                 {"output_type": "execute_result", "data": {"text/plain": ["0.871"]}, "metadata": {}}]}]}


def test_a_notebook_is_read_by_its_code_cells(tmp_path):
    (tmp_path / "ran.ipynb").write_text(json.dumps(NB_OUTPUT, indent=1))
    code = json.loads(json.dumps(NB_OUTPUT))
    code["cells"].append({"cell_type": "code", "metadata": {}, "source": "x = 1\nprint(0.871)  # paper.md",
                          "outputs": []})
    (tmp_path / "wrote.ipynb").write_text(json.dumps(code, indent=1))
    v3 = {"nbformat": 3, "worksheets": [{"cells": [{"cell_type": "code", "input": ["print(0.871)"], "outputs": []}]}]}
    (tmp_path / "old.ipynb").write_text(json.dumps(v3))
    (tmp_path / "broken.ipynb").write_text('{"cells": [{"cell_type": "markdown", "source": "0.871"}')  # plain text
    # a key twice: readers could disagree on which cells there are, so it is read as plain text
    (tmp_path / "twice.ipynb").write_text('{"cells": [{"cell_type": "markdown", "source": "print(0.871)"}], '
                                          '"cells": []}')
    assert find_literals(tmp_path, ["ran.ipynb"], VALUE) == []
    (lit,) = find_literals(tmp_path, ["wrote.ipynb"], VALUE)
    assert (lit.cell, lit.line, lit.is_code, lit.where) == (3, 2, True, "wrote.ipynb cell 3 line 2")
    assert [x.where for x in find_literals(tmp_path, ["old.ipynb"], VALUE)] == ["old.ipynb cell 1 line 1"]
    assert reads_texts(tmp_path, ["ran.ipynb", "wrote.ipynb"], ("paper.md",)) == ["wrote.ipynb"]
    assert [(x.path, x.cell, x.is_code) for x in find_literals(tmp_path, ["broken.ipynb", "twice.ipynb"], VALUE)] == [
        ("broken.ipynb", None, True), ("twice.ipynb", None, True)]
    assert find_encoded(tmp_path, ["ran.ipynb"], VALUE) == []
    assert find_encoded(tmp_path, ["wrote.ipynb"], VALUE) == ["wrote.ipynb cell 3 line 2: print(0.871)  # paper.md"]


def test_binary_files_have_no_literals_but_scripts_in_other_encodings_do(tmp_path):
    (tmp_path / "weights.bin").write_bytes(b"\x00\xff" + b"0.871" + struct.pack("<d", VALUE))
    (tmp_path / "make.sh").write_bytes(b"echo '{\"acc\": 0.871}' > results.json  # caf\xe9\n")  # latin-1: bash runs it
    (tmp_path / "tool").write_bytes(b"#!/bin/sh\n# \xff\necho 0.871\n")
    found = find_literals(tmp_path, ["weights.bin", "make.sh", "tool"], VALUE)
    assert [lit.path for lit in found] == ["make.sh", "tool"]
    assert any(h.startswith("weights.bin: float64 le") for h in find_encoded(tmp_path, ["weights.bin"], VALUE))


def test_a_program_padded_past_the_data_limit_is_still_read(tmp_path):
    (tmp_path / "fab.py").write_text("#" * (MAX_SCAN_BYTES + 10) + "\nprint(0.871)\n")
    (tmp_path / "big.csv").write_text("x" * (MAX_SCAN_BYTES + 10) + "\n0.871\n")  # data: as before, too big to read
    assert [(lit.path, lit.line) for lit in find_literals(tmp_path, ["fab.py", "big.csv"], VALUE)] == [("fab.py", 2)]
