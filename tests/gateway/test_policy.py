"""The egress policy's rules: every spelling and route of a withheld repository is denied, its
neighbours follow the allow rules, deny wins, the four named policies, and the package hosts
each client of this machine is configured with."""

from __future__ import annotations

import os

import pytest

from reclaim.gateway.policy import EgressPolicy, Forbidden, package_hosts, policy_for

GH = EgressPolicy(name="allowlist", allow_hosts=["github.com", "*.githubusercontent.com", "codeload.github.com",
                                                 "api.github.com", "huggingface.co", "hf.co"],
                  deny=[Forbidden(prefix_or_host="https://github.com/Org/Secret.git", material="code", reason="r"),
                        Forbidden(prefix_or_host="https://huggingface.co/org/model", material="weights", reason="r")])


@pytest.mark.parametrize("url", [
    "https://github.com/org/secret", "https://github.com/org/secret.git/info/refs?service=git-upload-pack",
    "https://GITHUB.COM/ORG/SECRET", "HTTPS://github.com:443/org/secret/", "https://github.com./org/secret",
    "https://github.com/org/%73ecret", "https://github.com/org/%2573ecret", "https://github.com/x/../org/secret",
    "https://github.com/x/..%2Forg/secret", "https://github.com//org/secret", "https://github.com/org\\secret",
    "https://github.com/org/secret;x/info/refs", "https://user:pw@github.com/org/secret",
    "https://ｇｉｔｈｕｂ.com/org/secret", "https://g%69thub.com/org/secret", "https://www.github.com/org/secret",
    "https://github.com/org/secret/archive/refs/heads/main.zip", "https://codeload.github.com/org/secret/tar.gz/main",
    "https://api.github.com/repos/org/secret/tarball", "https://raw.githubusercontent.com/org/secret/main/a.py",
    "https://hf.co/org/model/resolve/main/model.safetensors", "https://huggingface.co/api/models/org/model",
    "https://huggingface.co/org/model.git/info/refs", "https://HuggingFace.co/Org/Model/blob/main/x",
])
def test_withheld_repository_denied_on_every_spelling_and_route(url):
    d = GH.decide("GET", url)
    assert not d.allowed and d.forbidden in ("code", "weights"), (url, d)


@pytest.mark.parametrize("url", ["https://github.com/org/secret-other", "https://github.com/org/secretx/info/refs",
                                 "https://github.com/released/lib", "https://huggingface.co/org/model-2"])
def test_neighbours_of_a_withheld_repository_follow_the_allow_rules(url):
    assert GH.decide("GET", url).allowed


def test_host_spellings_ip_literals_and_ports():
    p = EgressPolicy(allow_hosts=["127.0.0.2:8080", "example.org"], allow_prefixes=["https://pypi.org/simple/"])
    for u in ["http://127.0.0.2:8080/", "http://2130706434:8080/", "http://0x7f.0.0.2:8080/", "http://0177.0.0.2:8080/",
              "http://[::ffff:127.0.0.2]:8080/", "https://EXAMPLE.org:443/x", "http://example.org./"]:
        assert p.decide("GET", u).allowed, u
    for u in ["http://127.0.0.2:8081/", "https://example.org:8443/", "https://pypi.org/simple/../admin",
              "https://pypi.org/simple/%2e%2e/admin", "https://pypi.org/simple/..%2fadmin", "http://pypi.org/simple/x/",
              "ftp://example.org/", "http://999.1.1.1/", "https://exa mple.org/", "https://example.org\r\n/"]:
        assert not p.decide("GET", u).allowed, u
    d = EgressPolicy(name="packages").decide("GET", "https://example.org/a")
    assert d.rule == "host example.org is not allowed"


def test_deny_wins_over_allow_and_untied_hosts():
    assert not GH.decide("GET", "https://github.com/org/secret").allowed  # github.com is allowed as a host
    # github is otherwise allowed here: objects.githubusercontent.com is not tied to the withheld repo
    assert GH.decide("GET", "https://objects.githubusercontent.com/x").forbidden is None
    only = EgressPolicy(deny=[Forbidden(prefix_or_host="github.com/org/secret", material="code", reason="r")])
    d = only.decide("GET", "https://objects.githubusercontent.com/github-production-release-asset/1")
    assert d.forbidden == "code" and not only.connect("objects.githubusercontent.com", 443).allowed
    assert only.decide("GET", "https://api.github.com/repositories/123/tarball").forbidden == "code"
    both = EgressPolicy(allow_prefixes=["https://example.org/"],
                        deny=[Forbidden(prefix_or_host="https://example.org/weights/", material="weights", reason="r")])
    assert both.decide("GET", "https://example.org/data/x").allowed
    assert both.decide("GET", "https://example.org/Weights/x").forbidden == "weights"
    gl = EgressPolicy(deny=[Forbidden(prefix_or_host="https://gitlab.com/g/sub/proj", material="code", reason="r")])
    for u in ["https://gitlab.com/g/sub/proj.git/info/refs", "https://gitlab.com/g/sub/proj/-/archive/main/x.zip",
              "https://gitlab.com/api/v4/projects/g%2Fsub%2Fproj/repository/archive"]:
        assert gl.decide("GET", u).forbidden == "code", u


def test_policy_for_the_four_policies():
    withheld = {"code": ["https://github.com/org/secret"]}
    pk = ["https://pypi.org/simple/", "https://files.pythonhosted.org/packages/"]
    for name in ("none", "gateway"):
        p = policy_for(name, [], [], withheld, pk, gateway=name == "gateway")
        assert not p.decide("GET", "https://pypi.org/simple/numpy/").allowed
        assert p.decide("GET", "https://github.com/org/secret").forbidden == "code"  # attempts named
    p = policy_for("packages", [], [], withheld, pk, gateway=True)
    assert p.decide("GET", "https://files.pythonhosted.org/packages/aa/numpy.whl").allowed
    assert not p.decide("GET", "https://github.com/released/lib").allowed
    p = policy_for("allowlist", ["*.example.org", "https://data.org/sets/"], ["https://github.com/released/lib"],
                   withheld, pk, gateway=True)
    for u in ["https://a.example.org/x", "https://data.org/sets/1", "https://codeload.github.com/released/lib/zip/main",
              "https://github.com/released/lib.git/info/refs", "https://pypi.org/simple/x/"]:
        assert p.decide("GET", u).allowed, u
    assert not p.decide("GET", "https://data.org/other").allowed
    assert p.decide("GET", "https://api.github.com/repos/org/secret/zipball").forbidden == "code"
    with pytest.raises(ValueError, match="unknown network policy"):
        policy_for("open", [], [], {}, [], gateway=False)


def test_package_hosts_read_from_every_client(tmp_path):
    (tmp_path / ".config/uv").mkdir(parents=True)
    (tmp_path / ".config/uv/uv.toml").write_text('[[index]]\nurl = "https://uv.mirror.org/simple"\n')
    (tmp_path / ".condarc").write_text("channels:\n  - conda-forge\n  - https://conda.mirror.org/main\n")
    (tmp_path / ".npmrc").write_text("registry=https://npm.mirror.org/\n@acme:registry=https://npm.acme.org/\n")
    env = {"HOME": str(tmp_path), "PATH": os.environ["PATH"], "PIP_CONFIG_FILE": "/dev/null",
           "PIP_INDEX_URL": "https://user:secret@pip.mirror.org/simple/",
           "PIP_EXTRA_INDEX_URL": "file:///srv/wheels https://extra.org/simple"}
    got = package_hosts(env=env)
    for want in ["https://pip.mirror.org/", "https://extra.org/", "https://uv.mirror.org/", "https://conda.anaconda.org/",
                 "https://conda.mirror.org/", "https://npm.mirror.org/", "https://npm.acme.org/",
                 "https://pypi.org/simple/"]:  # uv has no default index of its own configured: pypi stays
        assert want in got, (want, got)
    assert not any("secret" in g or g.startswith("file:") for g in got)
    assert "https://registry.npmjs.org/" not in got
    bare = package_hosts(env={"HOME": str(tmp_path / "none"), "PATH": os.environ["PATH"],
                              "PIP_CONFIG_FILE": "/dev/null"})
    assert bare[:2] == ["https://pypi.org/simple/", "https://files.pythonhosted.org/packages/"]
    assert "https://registry.npmjs.org/" in bare and "https://repo.anaconda.com/" in bare


# tls ---------------------------------------------------------------------------------------------
