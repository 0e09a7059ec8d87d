"""What pip is asked for: a task's git requirements come through the git mirrors (a machine without
GitHub installs them all the same, at the pinned commit), and a task with no GPU that asks for
PyTorch is given PyTorch's CPU index, so that its +cpu build wins over PyPI's CUDA one."""

from __future__ import annotations

import functools
import http.server
import socket
import subprocess
import threading
from pathlib import Path

import pytest

from conftest import make_wheel, task_yaml, write_suite
from reclaim.materials.environment import EnvironmentFailed, prepare
from reclaim.materials.requirements import cpu_index_args, cuda_packages, names, through_mirrors
from reclaim.spec import load_suite

URL = "https://github.com/nowhere-reclaim/gitprobe"


def test_git_urls_a_mirror_serves_are_rewritten_and_the_ref_kept():
    mirrors = {URL: "/srv/mirrors/gitprobe.git"}
    got = through_mirrors(f"gitprobe @ git+{URL}.git@{'a' * 40}#egg=gitprobe", mirrors)
    assert got == f"gitprobe @ git+file://localhost/srv/mirrors/gitprobe.git@{'a' * 40}#egg=gitprobe"
    text = f"numpy==2.0\ngit+{URL}@v1#egg=gitprobe\ngit+https://github.com/other/repo@v2\n"
    assert through_mirrors(text, mirrors).splitlines() == [
        "numpy==2.0", "git+file://localhost/srv/mirrors/gitprobe.git@v1#egg=gitprobe", "git+https://github.com/other/repo@v2"]
    assert through_mirrors(f"git+{URL}@v1", {}) == f"git+{URL}@v1"


def test_the_cpu_index_is_given_only_to_a_task_without_gpus_that_asks_for_torch(monkeypatch, tmp_path):
    assert names(["Torch==2.1", "numpy"], "torchvision>=0.2 # vision\n-r other.txt\n") == {"torch", "numpy",
                                                                                           "torchvision"}
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(
        http.server.SimpleHTTPRequestHandler, directory=str(tmp_path)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:  # an index over HTTP that answers (a real server, as a mirror of PyTorch's would be)
        index = f"http://127.0.0.1:{server.server_address[1]}/whl/cpu"
        monkeypatch.setenv("RECLAIM_TORCH_CPU_INDEX", index)
        assert cpu_index_args(["torch==2.1"], "", gpus=0) == ["--extra-index-url", index]
    finally:
        server.shutdown()
        server.server_close()
    with socket.socket() as s:  # a port nothing listens on: pip would retry it for every package
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}/whl/cpu"
    monkeypatch.setenv("RECLAIM_TORCH_CPU_INDEX", closed)
    assert cpu_index_args(["torch==2.1"], "", gpus=0) == []  # left out: torch comes from what pip reaches
    monkeypatch.setenv("RECLAIM_TORCH_CPU_INDEX", index)
    assert cpu_index_args(["torch==2.1"], "", gpus=1) == []
    assert cpu_index_args(["numpy"], "", gpus=0) == []
    monkeypatch.setenv("RECLAIM_TORCH_CPU_INDEX", "")
    assert cpu_index_args(["torch==2.1"], "", gpus=0) == []  # turned off
    assert cuda_packages(["numpy==2.0", "nvidia-cudnn-cu12==9.1", "torch==2.4.0+cu121", "torch==2.4.0+cpu"]) == [
        "nvidia-cudnn-cu12==9.1", "torch==2.4.0+cu121"]


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                               "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin", "HOME": str(cwd)}).stdout


def _task(tmp_path: Path, environment: dict, gpus: int = 0):
    spec = task_yaml("env-probe", "retrain")
    spec["environment"] = environment
    spec["budget"]["gpus"] = gpus
    spec["budget"]["gpu_hours"] = float(gpus)
    return load_suite(write_suite(tmp_path / "suite", [spec], env_probe="true\n")).tasks[0]


def test_a_git_requirement_installs_from_the_mirror_at_its_commit(tmp_path, monkeypatch):
    src = tmp_path / "src"
    (src / "gitprobe").mkdir(parents=True)
    (src / "gitprobe" / "__init__.py").write_text("ANSWER = 42\n")
    (src / "pyproject.toml").write_text('[build-system]\nrequires = ["setuptools"]\nbuild-backend = '
                                        '"setuptools.build_meta"\n[project]\nname = "gitprobe"\nversion = "1.0"\n')
    _git("init", "-q", cwd=src)
    _git("add", ".", cwd=src)
    _git("commit", "-qm", "one", cwd=src)
    sha = _git("rev-parse", "HEAD", cwd=src).strip()
    (src / "gitprobe" / "__init__.py").write_text("ANSWER = 0\n")  # a later commit the pin must not take
    _git("commit", "-qam", "two", cwd=src)
    _git("clone", "-q", "--bare", str(src), str(tmp_path / "mirror.git"), cwd=tmp_path)
    task = _task(tmp_path, {"packages": [f"gitprobe @ git+{URL}@{sha}"]})
    envs = tmp_path / "envs"
    monkeypatch.setenv("RECLAIM_GIT_MIRRORS", "")
    with pytest.raises(EnvironmentFailed):  # the host cannot be reached (or has no such repository)
        prepare(task, envs)
    monkeypatch.setenv("RECLAIM_GIT_MIRRORS", f"{URL}={tmp_path / 'mirror.git'}")
    env = prepare(task, envs)
    out = subprocess.run([f"{env.path}/bin/python", "-c", "import gitprobe; print(gitprobe.ANSWER)"],
                         capture_output=True, text=True)
    assert out.stdout.strip() == "42", out.stderr  # the pinned commit, not the mirror's newest
    assert env.size_mb and env.size_mb > 0 and env.cuda_packages == []


def test_a_cpu_task_gets_torchs_cpu_build_where_pypi_offers_another(tmp_path, monkeypatch):
    fake = {"torch/__init__.py": "BUILD = 'cuda'\n"}
    make_wheel(tmp_path / "pypi", "torch", "2.0.999", fake)  # as PyPI gives it on Linux: the CUDA build (a
    # version no index has, so that only these two wheels can answer)
    index = tmp_path / "cpu-index"
    wheel = make_wheel(index / "torch", "torch", "2.0.999+cpu", {"torch/__init__.py": "BUILD = 'cpu'\n"})
    (index / "torch" / "index.html").write_text(f'<a href="{wheel.name}">{wheel.name}</a>\n')
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path / "pypi"))
    monkeypatch.setenv("RECLAIM_TORCH_CPU_INDEX", index.as_uri())
    for gpus, build in ((0, "cpu"), (1, "cuda")):
        env = prepare(_task(tmp_path / str(gpus), {"packages": ["torch==2.0.999"]}, gpus=gpus), tmp_path / "envs")
        out = subprocess.run([f"{env.path}/bin/python", "-c", "import torch; print(torch.BUILD)"],
                             capture_output=True, text=True)
        assert out.stdout.strip() == build, (gpus, out.stderr)
        assert (env.pip_args != []) == (gpus == 0)
