"""A trial's egress policy made from a task spec as the loader reads it: what each level denies."""

from __future__ import annotations

import pytest
from conftest import task_yaml, write_task

from reclaim.runner.network import material_urls, trial_policy, web_url
from reclaim.spec.load import load_task

SHA = "0123456789abcdef0123456789abcdef01234567"
DATA_URL = "https://data.example.org/releases/values.tar.gz"


def _spec(tmp_path, level: str, code_url: str = "https://github.com/org/secret.git", policy: str = "allowlist"):
    materials = {
        "code": {"git": {"url": code_url, "commit": SHA},
                 "mirrors": ["https://gitlab.com/fork/secret", "git@bitbucket.org:other/secret-mirror.git"]},
        "data": {"http": {"url": DATA_URL, "sha256": "a" * 64}},
        "weights": {"hub": {"repo": "org/secret-model", "revision": SHA}},
    }
    raw = task_yaml(f"policy-{level}", level, materials=materials, **{"network.policy": policy})
    return load_task(write_task(tmp_path / "suite", raw))


def _forbidden(policy, url: str) -> str | None:
    return policy.decide("GET", url).forbidden


@pytest.mark.parametrize("url", ["git@github.com:org/secret.git", "ssh://git@github.com/org/secret.git",
                                 "ssh://git@github.com:22/org/secret.git", "git://github.com/org/secret.git"])
def test_withheld_code_pinned_by_an_ssh_url_is_denied(tmp_path, url):
    assert web_url(url) == "https://github.com/org/secret.git"
    spec = _spec(tmp_path, "reimplement", code_url=url)
    assert material_urls(spec.materials.code)[0] == "https://github.com/org/secret.git"
    policy = trial_policy(spec, [], False)
    for route in ("https://github.com/org/secret.git/info/refs?service=git-upload-pack",
                  "https://github.com/org/secret/archive/refs/heads/main.zip",
                  "https://codeload.github.com/org/secret/tar.gz/main",
                  "https://bitbucket.org/other/secret-mirror.git/info/refs"):
        assert _forbidden(policy, route) == "code", (route, policy.decide("GET", route))


def test_local_git_urls_name_no_host():
    assert web_url("/srv/git/secret.git") is None and web_url("file:///srv/git/secret.git") is None
    assert web_url("./repos/secret") is None
