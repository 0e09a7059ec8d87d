"""Egress policy: which URLs a sandbox may reach through the egress proxy.

Every decision is made on the normalised URL of the request actually forwarded (the proxy
forwards that same normalised URL). A deny always wins over an allow, and is matched
conservatively: case-folded, fully percent-decoded, backslashes and doubled slashes folded,
on every route a known forge serves a repository by. An allow must hold for the plain and
the fully decoded reading of the path alike.
"""

from __future__ import annotations

import configparser
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import NamedTuple

import yaml
from pydantic import BaseModel, Field, PrivateAttr

from reclaim.gateway.urls import (
    DEFAULT_PORTS,
    Url,
    decoded,
    normalize_host,
    normalize_path,
    parse,
)

# known forges: the routes one repository is served by ----------------------------------------

class Forge(NamedTuple):
    hosts: tuple[str, ...]                 # where a repository's own URL lives
    routes: tuple[tuple[str, str], ...]    # (host, path before the repository)
    untied: tuple[str, ...]                # hosts or host/prefixes no repository can be told from


FORGES = {
    "github": Forge(("github.com", "www.github.com"),
                    (("github.com", ""), ("www.github.com", ""), ("codeload.github.com", ""),
                     ("api.github.com", "/repos"), ("raw.githubusercontent.com", ""),
                     ("media.githubusercontent.com", "/media"), ("uploads.github.com", "/repos")),
                    ("objects.githubusercontent.com", "release-assets.githubusercontent.com",
                     "github-releases.githubusercontent.com", "api.github.com/repositories")),
    "gitlab": Forge(("gitlab.com", "www.gitlab.com"),
                    (("gitlab.com", ""), ("www.gitlab.com", ""), ("gitlab.com", "/api/v4/projects")),
                    ("gitlab.com/api/v4/projects",)),
    "bitbucket": Forge(("bitbucket.org", "www.bitbucket.org"),
                       (("bitbucket.org", ""), ("api.bitbucket.org", "/2.0/repositories")), ()),
    "huggingface": Forge(("huggingface.co", "hf.co", "www.huggingface.co"),
                         tuple((h, p) for h in ("huggingface.co", "hf.co", "www.huggingface.co")
                               for p in ("", "/api/models", "/api/resolve-cache/models")),
                         ("cdn-lfs.huggingface.co", "cdn-lfs.hf.co", "cdn-lfs-us-1.huggingface.co",
                          "cdn-lfs-us-1.hf.co", "cdn-lfs-eu-1.huggingface.co", "cdn-lfs-eu-1.hf.co",
                          "*.xethub.hf.co")),
}
_HF_KINDS = {"datasets": "/api/datasets", "spaces": "/api/spaces"}
_HF_PAGES = {"resolve", "blob", "tree", "raw", "commit", "commits", "discussions", "info", "refs"}


def repo_of(url: str) -> tuple[str, list[tuple[str, str]]] | None:
    """(forge, [(host, path prefix)...]) for a URL naming a repository on a known forge."""
    if m := re.fullmatch(r"[\w.-]+@([\w.-]+):(.+)", url):  # scp form: git@github.com:org/repo.git
        url = f"https://{m[1]}/{m[2]}"
    try:
        u = parse(url if "://" in url else "https://" + url)
    except ValueError:
        return None
    segs = [s for s in decoded(u.path).lower().split("/") if s]
    for name, forge in FORGES.items():
        if u.host not in forge.hosts:
            continue
        if name == "huggingface":
            kind = segs[0] if segs and segs[0] in _HF_KINDS else None
            rest = segs[1:] if kind else segs
            if not rest or (not kind and rest[0] in {"api", "docs", "models", "settings", "join"}):
                return None
            repo = "/".join(rest[:1] if len(rest) == 1 or rest[1] in _HF_PAGES else rest[:2])
            repo = repo.removesuffix(".git")
            hosts = forge.hosts
            if kind:
                return name, [(h, f"{p}/{repo}") for h in hosts for p in (f"/{kind}", _HF_KINDS[kind])]
            return name, [(h, f"{p}/{repo}") for h, p in forge.routes]
        if name == "gitlab":  # groups nest: everything up to '/-/' or the '.git'
            cut = segs.index("-") if "-" in segs else len(segs)
            segs = segs[:cut]
            for i, s in enumerate(segs):
                if s.endswith(".git"):
                    segs = segs[:i + 1]
                    break
        if len(segs) < 2:
            return None
        repo = "/".join(segs if name == "gitlab" else segs[:2]).removesuffix(".git")
        return name, [(h, f"{p}/{repo}") for h, p in forge.routes]
    return None


# rules -----------------------------------------------------------------------------------------

class _Rule(NamedTuple):
    host: str                # exact, or '*.suffix' (the suffix and every name under it)
    path: str                # '' for the whole host
    scheme: str | None       # None: any
    port: int | None         # None: any; 0: the scheme's default
    label: str
    material: str | None = None
    reason: str = ""

    def host_ok(self, host: str) -> bool:
        if self.host.startswith("*."):
            return host == self.host[2:] or host.endswith(self.host[1:])
        return host == self.host

    def at(self, u: Url) -> bool:
        port = DEFAULT_PORTS[u.scheme] if self.port == 0 else self.port
        return (self.host_ok(u.host) and self.scheme in (None, u.scheme) and port in (None, u.port))


def _under(path: str, prefix: str) -> bool:
    """Literal prefix when it ends in '/'; else the path itself, below it, or its '.git'."""
    if not prefix or prefix == "/":
        return True
    if prefix.endswith("/"):
        return path.startswith(prefix)
    rest = path[len(prefix):] if path.startswith(prefix) else None
    return rest is not None and (rest in ("", "/", ".git") or rest.startswith(("/", ".git/")))


def _rule(entry: str, label: str, *, deny: bool, material: str | None = None, reason: str = "") -> _Rule:
    """'host', 'host:port', '*.suffix', 'host/path' or 'scheme://host[:port]/path'."""
    if "://" not in entry:
        host, _, path = entry.partition("/")
        h, _, port = host.rpartition(":") if ":" in host and not host.endswith("]") else (host, "", "")
        wild = h.startswith("*.")
        h = ("*." if wild else "") + normalize_host(h[2:] if wild else h)
        p = normalize_path("/" + path).rstrip("/") if path else ""
        return _Rule(h, p, None, int(port) if port and not deny else (None if deny else 0),
                     label, material, reason)
    u = parse(entry)
    path = u.path.rstrip("/").removesuffix(".git") if deny else u.path
    return _Rule(u.host, "" if path in ("", "/") else path, None if deny else u.scheme,
                 None if deny else u.port, label, material, reason)


class Forbidden(BaseModel):
    prefix_or_host: str
    material: str
    reason: str


class Decision(BaseModel):
    allowed: bool
    rule: str
    forbidden: str | None = None


class EgressPolicy(BaseModel):
    """What a trial's sandbox may reach. Hosts: 'example.org', 'example.org:8443', '*.example.org'
    (ports 80/443 unless one is named). Prefixes: 'https://host/path/' (literal when it ends in
    '/'; otherwise the path, below it, or its '.git'). A forge repository named in a prefix or a
    deny covers every route that forge serves it by."""

    name: str = "custom"
    allow_hosts: list[str] = Field(default_factory=list)
    allow_prefixes: list[str] = Field(default_factory=list)
    deny: list[Forbidden] = Field(default_factory=list)
    model_gateway: bool = False
    """The model gateway is reached through its own socket, never through this proxy."""
    _allow: list[_Rule] = PrivateAttr(default_factory=list)
    _deny: list[_Rule] = PrivateAttr(default_factory=list)

    def model_post_init(self, _ctx) -> None:
        self._allow = [_rule(h, f"host {h}", deny=False) for h in self.allow_hosts]
        tied: set[str] = set()  # forges with an allowed repository or host
        for p in self.allow_prefixes:
            self._allow.append(_rule(p, p, deny=False))
            if found := repo_of(p):
                tied.add(found[0])
                self._allow += [_Rule(h, path, None, 0, f"{h}{path} (a route of {p})") for h, path in found[1]]
        for forge_name, forge in FORGES.items():
            if any(r.host_ok(h) for r in self._allow for h, _ in forge.routes if not r.path):
                tied.add(forge_name)
        withheld: set[str] = set()
        for f in self.deny:
            self._deny.append(_rule(f.prefix_or_host, f.prefix_or_host, deny=True,
                                    material=f.material, reason=f.reason))
            if found := repo_of(f.prefix_or_host):
                withheld.add(found[0])
                self._deny += [_Rule(h, path.lower(), None, None, f"{h}{path} (a route of {f.prefix_or_host})",
                                     f.material, f.reason) for h, path in found[1]]
                if found[0] not in tied:
                    self._deny += [_rule(x, f"{x} (no repository can be told from it; "
                                         f"{found[0]} repositories are withheld)", deny=True,
                                         material=f.material, reason=f.reason)
                                   for x in FORGES[found[0]].untied]
        for forge_name in tied - withheld:  # e.g. release assets of a released repository
            self._allow += [_rule(x, f"{x} (serves {forge_name}'s released repositories)", deny=False)
                            for x in FORGES[forge_name].untied if "/" not in x]

    def decide(self, method: str, url: str) -> Decision:
        try:
            u = parse(url)
        except ValueError as e:
            return Decision(allowed=False, rule=f"invalid URL {url[:200]!r}: {e}")
        wide = decoded(u.path)
        for r in self._deny:
            if r.host_ok(u.host) and (not r.path or any(_under(p.lower(), r.path) for p in (u.path, wide))):
                return Decision(allowed=False, rule=f"{r.label} is withheld ({r.material}): {r.reason}",
                                forbidden=r.material)
        for r in self._allow:
            if r.at(u) and _under(u.path, r.path) and _under(wide, r.path):
                return Decision(allowed=True, rule=f"allow {r.label}")
        if any(r.at(u) for r in self._allow):
            return Decision(allowed=False, rule=f"{u._replace(query='')} is under no allowed prefix")
        return Decision(allowed=False, rule=f"host {u.host} is not allowed")

    def connect(self, host: str, port: int) -> Decision:
        """Whether a CONNECT to host:port may be intercepted: some rule could allow a URL there."""
        try:
            u = Url("https", normalize_host(host), port, "/", "")
        except ValueError as e:
            return Decision(allowed=False, rule=f"invalid CONNECT host {host[:200]!r}: {e}")
        for r in self._deny:
            if not r.path and r.host_ok(u.host):
                return Decision(allowed=False, rule=f"{r.label} is withheld ({r.material}): {r.reason}",
                                forbidden=r.material)
        if any(r.at(u) for r in self._allow):
            return Decision(allowed=True, rule=f"intercept {u.host}:{port}")
        return Decision(allowed=False,
                        rule=f"host {u.host} is not allowed" + (f" on port {port}" if port != 443 else ""))


# builders ----------------------------------------------------------------------------------------

def policy_for(level_policy: str, allow: list[str], released_urls: list[str],
               withheld: dict[str, list[str]], package_hosts: list[str], gateway: bool) -> EgressPolicy:
    """none and gateway: nothing; packages: the package indexes; allowlist: those, the listed
    hosts and prefixes, and the released materials' URLs. The withheld materials are denied in
    every policy (so that attempts are recorded by material)."""
    if level_policy not in ("none", "gateway", "packages", "allowlist"):
        raise ValueError(f"unknown network policy {level_policy!r}: none, gateway, packages or allowlist")
    entries = (package_hosts if level_policy in ("packages", "allowlist") else []) + (
        [*allow, *released_urls] if level_policy == "allowlist" else [])
    hosts = [e for e in entries if "://" not in e and "/" not in e]
    prefixes = [e if "://" in e else f"https://{e}" for e in entries if e not in hosts]
    deny = [Forbidden(prefix_or_host=u, material=m, reason=f"the task withholds its {m}")
            for m, urls in withheld.items() for u in urls]
    return EgressPolicy(name=level_policy, allow_hosts=hosts, allow_prefixes=prefixes, deny=deny,
                        model_gateway=gateway)


PYPI = ["https://pypi.org/simple/", "https://files.pythonhosted.org/packages/"]
CONDA = ["https://conda.anaconda.org/", "https://repo.anaconda.com/"]
NPM = ["https://registry.npmjs.org/"]


def _index_prefix(url: str) -> str | None:
    """A network index as an allow prefix (its origin: files may lie beside the index); None
    for file:// and bad URLs."""
    try:
        u = parse(url.strip())
    except ValueError:
        return None
    if u.host in ("pypi.org", "pypi.python.org"):
        return None  # the default pair, added once
    return str(u._replace(path="/", query=""))


def _split(value: str | None) -> list[str]:
    return [v.partition("=")[2] if re.match(r"^[\w-]+=\w+://", v) else v for v in (value or "").split()]


def package_hosts(env: dict[str, str] | None = None, home: Path | None = None) -> list[str]:
    """URL prefixes of the indexes this machine's pip, uv, conda and npm are configured to use."""
    env = dict(os.environ if env is None else env)
    home = home or Path(env.get("HOME", str(Path.home())))
    pip: list[str] = []
    pip_primary = bool(env.get("PIP_INDEX_URL"))
    try:  # pip's own view: config files of every level and PIP_* variables
        out = subprocess.run([sys.executable, "-m", "pip", "config", "list"], check=False,
                             capture_output=True,
                             text=True, timeout=20, env={**env, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}).stdout
        for line in out.splitlines():
            key, _, val = line.partition("=")
            if key.split(".")[-1] in ("index-url", "extra-index-url"):
                pip += _split(val.strip().strip("'\""))
                pip_primary |= key.split(".")[-1] == "index-url"
    except (OSError, subprocess.SubprocessError):
        pip_files: list[str | Path] = [env.get("PIP_CONFIG_FILE", ""), "/etc/pip.conf", home / ".pip/pip.conf",
                                       home / ".config/pip/pip.conf"]
        for f in pip_files:
            cp = configparser.ConfigParser()
            if f and Path(f).is_file() and cp.read(f):
                for sec in cp.sections():
                    pip += _split(cp[sec].get("index-url")) + _split(cp[sec].get("extra-index-url"))
                    pip_primary |= bool(cp[sec].get("index-url"))
    pip += _split(env.get("PIP_INDEX_URL")) + _split(env.get("PIP_EXTRA_INDEX_URL"))
    uv_primary = bool(env.get("UV_INDEX_URL") or env.get("UV_DEFAULT_INDEX"))
    uv = _split(env.get("UV_INDEX_URL")) + _split(env.get("UV_DEFAULT_INDEX")) + _split(
        env.get("UV_EXTRA_INDEX_URL")) + _split(env.get("UV_INDEX"))
    xdg = Path(env.get("XDG_CONFIG_HOME", home / ".config"))
    uv_files: list[str | Path] = [env.get("UV_CONFIG_FILE", ""), xdg / "uv/uv.toml", "/etc/uv/uv.toml"]
    for f in uv_files:
        try:
            cfg = tomllib.loads(Path(f).read_text()) if f and Path(f).is_file() else {}
        except (OSError, tomllib.TOMLDecodeError):
            continue
        uv_primary |= bool(cfg.get("index-url")) or any(
            isinstance(i, dict) and i.get("default") for i in cfg.get("index", []))
        uv += [cfg.get("index-url", ""), *cfg.get("extra-index-url", []),
               *(i.get("url", "") for i in cfg.get("index", []) if isinstance(i, dict))]
    conda: list[str] = []
    conda_files: list[str | Path] = [env.get("CONDARC", ""), home / ".condarc", home / ".conda/.condarc",
                                     "/etc/conda/.condarc"]
    for f in conda_files:
        try:
            rc = yaml.safe_load(Path(f).read_text()) if f and Path(f).is_file() else None
        except (OSError, yaml.YAMLError):
            continue
        if isinstance(rc, dict):
            alias = str(rc.get("channel_alias") or "https://conda.anaconda.org/")
            for ch in [*(rc.get("channels") or []), *(rc.get("default_channels") or [])]:
                conda.append(str(ch) if "://" in str(ch) else "" if ch == "defaults" else alias)
    npm = [env.get("NPM_CONFIG_REGISTRY", ""), env.get("npm_config_registry", "")]
    for f in [home / ".npmrc", Path(env.get("NPM_CONFIG_USERCONFIG", "/nonexistent"))]:
        if f.is_file():
            npm += [v.strip() for k, _, v in (ln.partition("=") for ln in f.read_text().splitlines())
                    if k.strip().endswith("registry")]
    # a default stays while some client still uses it: pip or uv without a primary index of its own
    hosts = ([] if pip_primary and uv_primary else PYPI) + ([] if conda else CONDA) + (
        [] if any(npm) else NPM)
    hosts += [p for u in pip + uv + conda + npm if u and (p := _index_prefix(u))]
    return list(dict.fromkeys(hosts))
