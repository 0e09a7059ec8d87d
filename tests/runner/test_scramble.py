"""Scrambled materials keep their format and lose what they say."""

from __future__ import annotations

import io
import random

import numpy as np

from reclaim.runner.scramble import KEEP_MIN, SUBSAMPLE, kept, scramble, scramble_bytes, scramble_text


def test_a_table_keeps_header_width_and_integer_columns():
    text = "x,label\n" + "".join(f"{i / 10},{i % 2}\n" for i in range(50))
    out = scramble_text(text, random.Random(0)).splitlines()
    assert out[0] == "x,label" and len(out) == 1 + KEEP_MIN
    rows = [line.split(",") for line in out[1:]]
    assert all(len(r) == 2 and r[1].lstrip("-").isdigit() for r in rows)
    assert [r[0] for r in rows] != [f"{i / 10}" for i in range(KEEP_MIN)]


def test_the_stand_in_is_a_subsample_so_checking_costs_a_fraction_of_the_run():
    """A table keeps one row in SUBSAMPLE, an array as many of its first axis; small ones keep
    KEEP_MIN rows, and fewer are never padded."""
    text = "a,b\n" + "".join(f"{i},{i * 0.5}\n" for i in range(3200))
    assert len(scramble_text(text, random.Random(0)).splitlines()) == 1 + 3200 // SUBSAMPLE
    assert [kept(n) for n in (3, 16, 17, 100, 3200)] == [3, 16, 16, 16, 200]
    buf = io.BytesIO()
    np.save(buf, np.arange(3200.0).reshape(320, 10))
    out = np.load(io.BytesIO(scramble_bytes("x.npy", buf.getvalue(), random.Random(0))))
    assert out.shape == (20, 10)


def test_numbers_outside_a_table_change_and_text_without_numbers_is_left_alone():
    assert scramble_bytes("v.txt", b"1.5 2.25 3.125\n", random.Random(0)) != b"1.5 2.25 3.125\n"
    assert scramble_bytes("words.txt", b"no numbers here\n", random.Random(0)) is None


def test_arrays_keep_shape_and_dtype():
    buf = io.BytesIO()
    np.savez(buf, w=np.arange(12, dtype=np.float32).reshape(3, 4), y=np.arange(5))
    out = np.load(io.BytesIO(scramble_bytes("m.npz", buf.getvalue(), random.Random(0))))
    assert out["w"].shape == (3, 4) and out["w"].dtype == np.float32 and out["y"].dtype.kind == "i"
    assert not np.array_equal(out["w"], np.arange(12, dtype=np.float32).reshape(3, 4))


def test_scramble_never_writes_through_a_link(tmp_path):
    outside = tmp_path / "outside.csv"
    outside.write_text("a,b\n1,2\n3,4\n5,6\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "data").symlink_to(tmp_path)
    assert scramble(ws, ["data/outside.csv"], "seed") == []
    assert outside.read_text() == "a,b\n1,2\n3,4\n5,6\n"


def test_a_csv_whose_quoted_header_holds_the_delimiter_is_still_a_table():
    """Found on real data (a UCI table's header: "Concrete compressive strength(MPa, megapascals) "):
    counted by raw commas it was no table, and every number was scaled by one factor, which left a
    standardised, scale-free method's result exactly as it was."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=3200)
    y = 3 * x + rng.normal(scale=0.1, size=3200)
    rows = "".join(f"{float(a)!r},{float(b)!r}\n" for a, b in zip(x, y, strict=True))
    text = '"cement (kg, m^3)","strength (MPa, megapascals) "\n' + rows
    out = scramble_bytes("Concrete_Data.csv", text.encode(), random.Random(1)).decode()
    assert out.splitlines()[0] == '"cement (kg, m^3)","strength (MPa, megapascals) "'
    rows = np.array([[float(v) for v in line.split(",")] for line in out.splitlines()[1:]])
    assert rows.shape == (200, 2)  # a subsample: one row in 16
    before, after = np.corrcoef(x, y)[0, 1], np.corrcoef(rows[:, 0], rows[:, 1])[0, 1]
    assert before > 0.99 and abs(after) < 0.3  # the columns shuffled apart: the relation is gone


def test_numbers_outside_a_table_are_scaled_each_by_its_own_factor():
    text = "weights: 2.0 4.0 8.0 16.0 32.0 64.0\n"
    out = scramble_bytes("w.txt", text.encode(), random.Random(3)).decode()
    vals = [float(v) for v in out.split()[1:]]
    ratios = {round(a / b, 6) for a, b in zip(vals, [2.0, 4.0, 8.0, 16.0, 32.0, 64.0], strict=True)}
    assert len(ratios) > 1  # not one scale for all: a scale-free statistic of them moves too


def test_a_mean_of_a_few_numbers_always_moves_far_while_their_ratios_move_too():
    """One factor for all left a scale-free result as it was; a factor each let a mean of five
    numbers land back within 1 % of the original by chance (a task's reference failed the check)."""
    values = [1.5, 2.25, 3.125, 4.0625, 5.03125]
    text = " ".join(map(str, values)) + "\n"
    for seed in range(300):
        out = [float(v) for v in scramble_bytes("values.csv", text.encode(), random.Random(seed)).split()]
        assert abs(sum(out) / sum(values) - 1) >= 0.12, seed
        assert len({round(a / b, 9) for a, b in zip(out, values, strict=True)}) > 1, seed
