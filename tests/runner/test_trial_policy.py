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


def _allowed(policy, url: str) -> bool:
    return policy.decide("GET", url).allowed


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


def test_retrain_denies_the_weights_and_allows_the_code_and_data(tmp_path):
    spec = _spec(tmp_path, "retrain")
    policy = trial_policy(spec, [], False)
    for url in ("https://huggingface.co/org/secret-model/resolve/main/model.safetensors",
                f"https://huggingface.co/org/secret-model/resolve/{SHA}/config.json",
                "https://huggingface.co/api/models/org/secret-model", "https://huggingface.co/org/secret-model"):
        assert _forbidden(policy, url) == "weights", (url, policy.decide("GET", url))
    assert _allowed(policy, "https://github.com/org/secret.git/info/refs?service=git-upload-pack")
    assert _allowed(policy, DATA_URL)


def test_reimplement_denies_the_code_and_its_mirrors(tmp_path):
    policy = trial_policy(_spec(tmp_path, "reimplement"), [], False)
    for url in ("https://github.com/org/secret.git/info/refs?service=git-upload-pack",
                "https://gitlab.com/fork/secret/-/archive/main/secret-main.tar.gz",
                "https://bitbucket.org/other/secret-mirror/get/main.zip"):
        assert _forbidden(policy, url) == "code", (url, policy.decide("GET", url))
    assert _forbidden(policy, "https://huggingface.co/org/secret-model/resolve/main/w.bin") == "weights"
    assert _allowed(policy, DATA_URL)  # reimplement still gets the data


def test_the_reexecution_without_materials_may_not_download_the_released_data(tmp_path):
    spec = _spec(tmp_path, "retrain")
    without = trial_policy(spec, [], False, without=("data", "weights"))
    decision = without.decide("GET", DATA_URL)
    assert not decision.allowed and decision.forbidden and decision.forbidden.startswith("data"), decision
    assert _allowed(trial_policy(spec, [], False), DATA_URL)
    # the code stays released in both
    assert _allowed(without, "https://github.com/org/secret.git/info/refs?service=git-upload-pack")
