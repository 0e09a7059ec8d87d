"""The Sandbox protocol, on every backend this machine has."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reclaim.sandbox import (
    BACKENDS,
    Bind,
    Sandbox,
    SandboxConfig,
    SandboxError,
    check_backend,
    make_sandbox,
)


def _backends():
    # the container backend needs an image: test_container.py builds one; here only a given one is used
    return [b for b in BACKENDS if check_backend(b) is None
            and (b != "container" or os.environ.get("RECLAIM_CONTAINER_IMAGE"))]


@pytest.fixture(params=_backends())
def box(request, tmp_path):
    sb = make_sandbox(request.param, SandboxConfig(tmp_path / "ws", image=os.environ.get("RECLAIM_CONTAINER_IMAGE")))
    sb.start()
    yield sb
    sb.stop()


def test_exec_streams_output_to_files_and_returns_exit_code(box, tmp_path):
    assert isinstance(box, Sandbox)
    res = box.exec(["bash", "-c", "echo out; echo err >&2; exit 3"], stdout=tmp_path / "o", stderr=tmp_path / "e")
    assert res.exit_code == 3 and not res.timed_out
    assert (tmp_path / "o").read_text() == "out\n" and (tmp_path / "e").read_text() == "err\n"


def test_files_written_inside_land_in_the_workspace(box, tmp_path):
    box.write_file("in/a.txt", b"A")
    res = box.exec(["bash", "-c", "cat in/a.txt > b.txt; pwd"], stdout=tmp_path / "o", stderr=tmp_path / "e")
    assert res.ok
    assert box.read_file("b.txt") == b"A"
    assert (tmp_path / "o").read_text().strip() == box.workspace_inside


def test_file_access_cannot_leave_the_workspace(box):
    with pytest.raises(SandboxError):
        box.read_file("../../etc/passwd")
    with pytest.raises(SandboxError):
        box.write_file("../escape.txt", b"x")


def test_timeout_marks_and_kills(box, tmp_path):
    res = box.exec(["bash", "-c", "echo before; sleep 30"], stdout=tmp_path / "o", stderr=tmp_path / "e",
                   timeout=0.5)
    assert res.timed_out and res.exit_code is None and res.duration < 10
    assert (tmp_path / "o").read_text() == "before\n"


def test_bwrap_setup_failure_is_a_sandbox_error_not_an_exit_code(tmp_path, bwrap_only):
    sb = make_sandbox("bwrap", SandboxConfig(tmp_path / "ws", binds=[Bind(Path("/nonexistent/x"), "/run/x")]))
    sb.start()
    with pytest.raises(SandboxError, match="could not set up"):
        sb.exec(["true"], stdout=tmp_path / "o", stderr=tmp_path / "e")


def test_unknown_backend_is_named():
    with pytest.raises(SandboxError, match="choose one of bwrap, process"):
        make_sandbox("docker-ish", SandboxConfig(Path("/tmp")))


def test_hidden_paths_inside_bound_folders_are_masked(tmp_path, bwrap_only):
    """How an installed suite (inside the bound virtual environment) stays out of sight."""
    tree = tmp_path / "tree"
    (tree / "suite" / "reference").mkdir(parents=True)
    (tree / "suite" / "reference" / "solve.py").write_text("secret")
    (tree / "lib.py").write_text("visible")
    sb = make_sandbox("bwrap", SandboxConfig(tmp_path / "ws", binds=[Bind(tree, "/run/tree")],
                                             hidden=[tree / "suite"]))
    sb.start()
    res = sb.exec(["bash", "-c", "cat /run/tree/lib.py; ls -A /run/tree/suite; cat /run/tree/suite/reference/solve.py"],
                  stdout=tmp_path / "o", stderr=tmp_path / "e")
    assert (tmp_path / "o").read_text() == "visible"
    assert "No such file" in (tmp_path / "e").read_text() and res.exit_code != 0
