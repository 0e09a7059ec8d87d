"""Reading an agent's files as an adversary's: the attacks each check stops."""

from __future__ import annotations

import os
import socket

import pytest

from reclaim.sandbox import untrusted, untrusted_copy


def test_a_link_anywhere_on_the_way_is_refused_not_followed(tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("root:$6$hash\n")
    ws = tmp_path / "ws"
    (ws / "real").mkdir(parents=True)
    (ws / "results.json").symlink_to(secret)
    (ws / "dir").symlink_to(tmp_path)
    for rel in ("results.json", "dir/secret"):
        with pytest.raises(untrusted.Untrusted, match="link"):
            untrusted.read_bytes(ws, rel)
    with pytest.raises(untrusted.Untrusted, match="leaves"):
        untrusted.read_bytes(ws, "../secret")


def test_a_fifo_a_socket_and_an_oversized_file_are_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "fifo")  # opening it for reading would block forever
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(tmp_path / "sock"))
    (tmp_path / "big").write_bytes(b"x" * 2048)
    with pytest.raises(untrusted.Untrusted, match="fifo"):
        untrusted.read_bytes(tmp_path, "fifo")
    with pytest.raises(untrusted.Untrusted):
        untrusted.read_bytes(tmp_path, "sock")
    with pytest.raises(untrusted.Untrusted, match="limit"):
        untrusted.read_bytes(tmp_path, "big", limit=1024)
    s.close()


def test_walk_lists_links_and_odd_names_and_survives_a_very_deep_tree(tmp_path):
    (tmp_path / "out").symlink_to("/etc")
    (tmp_path / os.fsdecode(b"caf\xe9")).write_text("x")
    deep = tmp_path
    for _ in range(400):
        deep = deep / "d"
    os.makedirs(deep)  # os.fwalk would recurse; this walk is a stack capped at MAX_DEPTH
    entries = {e.rel: e for e in untrusted.walk(tmp_path)}
    assert entries["out"].kind == "symlink" and entries["out"].target == "/etc"
    odd = entries["caf\\xe9"]
    assert odd.kind == "file" and not odd.plain and odd.raw == b"caf\xe9"
    assert max(e.rel.count("/") for e in entries.values()) < untrusted.MAX_DEPTH
    assert not any(e.rel.startswith("out/") for e in entries.values())


def test_copy_keeps_holes_recreates_links_drops_special_files_and_set_id_bits(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    with open(src / "sparse", "wb") as fh:
        fh.truncate(1 << 30)
        fh.write(b"data")
    (src / "link").symlink_to("/etc/shadow")
    os.mkfifo(src / "fifo")
    (src / "suid").write_text("#!/bin/sh\n")
    os.chmod(src / "suid", 0o4755)
    report = untrusted_copy.copy_tree(src, tmp_path / "dest", exclude=set())
    dest = tmp_path / "dest"
    assert (dest / "sparse").stat().st_size == 1 << 30 and (dest / "sparse").stat().st_blocks * 512 < 1 << 20
    assert os.readlink(dest / "link") == "/etc/shadow"
    assert not (dest / "fifo").exists() and any("fifo" in s for s in report.skipped)
    assert not (dest / "suid").stat().st_mode & 0o6000


def test_copy_refuses_a_tree_over_its_disk_budget(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "f").write_bytes(b"x" * 100_000)
    with pytest.raises(untrusted_copy.TooLarge):
        untrusted_copy.copy_tree(tmp_path / "src", tmp_path / "dest", exclude=set(), max_bytes=10_000)
    assert not (tmp_path / "dest").exists()


def test_writes_replace_a_planted_link_instead_of_writing_through_it(tmp_path):
    target = tmp_path / "trial.json"
    target.write_text("the harness's record\n")
    logs = tmp_path / "agent"
    logs.mkdir()
    (logs / "conversation.json").symlink_to(target)
    untrusted.write_bytes(logs, "conversation.json", b"the agent's words\n")
    assert target.read_text() == "the harness's record\n"
    assert not (logs / "conversation.json").is_symlink()


def test_set_id_bits_are_cleared_in_place(tmp_path):
    (tmp_path / "sh").write_text("x")
    os.chmod(tmp_path / "sh", 0o6755)
    assert untrusted.strip_setid(tmp_path) == ["sh"]
    assert (tmp_path / "sh").stat().st_mode & 0o7777 == 0o755
