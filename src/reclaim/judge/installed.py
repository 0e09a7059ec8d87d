"""What vouches for a package installed into an agent's workspace, or for a package cache there:
the evidence judge/scope.py leaves a file out on (see its docstring for the policy).

A ``NAME-VERSION.dist-info/RECORD`` and a ``package.json`` are the agent's bytes and vouch for
nothing alone; what counts is what no sandbox can write: the egress proxy's record of the package
files it delivered (``fetched``), the proxy's own copies of them and the wheels bundled with the
harness's Python (``archive_hashes``, ``bundled_wheels``). Every read of the workspace goes through
sandbox/untrusted.py, without following links and with size caps.
"""

from __future__ import annotations

import base64
import csv
import functools
import hashlib
import io
import json
import posixpath
import re
import tarfile
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from reclaim.sandbox import untrusted
from reclaim.store import HASH_LIMIT
from reclaim.trace import NetworkRequest

CACHEDIR_SIGNATURE = b"Signature: 8a477f597d28d172789f06886806bc55"
MAX_META, MAX_UNPACKED = 16 << 20, 1 << 30  # MAX_UNPACKED: an sdist's bytes hashed

DIST_INFO = re.compile(r"^(?:(.*)/)?([^/]+)-([^/-]+)\.dist-info/RECORD$")
NODE_PKG = re.compile(r"^((?:.*/)?node_modules)/((?:@[^/]+/)?[^/@.][^/]*)/package\.json$")
_NPM_CACHE = re.compile(r"^((?:.*/)?_cacache)/(?:index-v5|content-v2)/")
_PREFIX = re.compile(r"^(?:(.*)/)?(?:lib|lib64)/python\d[\d.]*/(?:site|dist)-packages$")


@dataclass
class Tree:
    site: str
    """The folder its paths are relative to ('' is the workspace root)."""
    label: str
    files: dict[str, str | None]
    """Workspace path -> the hash RECORD gives ('sha256=...'), or None."""
    why_not: str | None = None
    archive: frozenset[str] | None = None
    """The hashes of the files of the very package file it came from, when that is at hand."""
    info: str = ""
    released: bool = False
    """Installed from a wheel the task released (one of its materials), not from an index."""


def canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def dist_of(filename: str) -> tuple[str, str] | None:
    """(canonical name, version) of a wheel's, an sdist's or an npm tarball's file name."""
    if filename.endswith(".whl"):
        parts = filename[:-4].split("-")
        return (canon(parts[0]), parts[1].lower()) if len(parts) in (5, 6) else None
    for ext in (".tar.gz", ".zip", ".tar.bz2", ".tgz"):
        if filename.endswith(ext):
            name, _, version = filename[: -len(ext)].rpartition("-")
            return (canon(name), version.lower()) if name and version else None
    return None


def fetched(trace: Iterable) -> dict[tuple[str, str], list[str]]:
    """(name, version) -> URLs of package files the egress proxy let through and delivered."""
    out: dict[tuple[str, str], list[str]] = {}
    for e in trace:
        if isinstance(e, NetworkRequest) and e.allowed and 200 <= e.status < 300 and (
                key := dist_of(unquote(urlsplit(e.url).path.rsplit("/", 1)[-1]))):
            out.setdefault(key, []).append(e.url)
    return out


def small(root: Path, rel: str, limit: int = 1 << 20) -> bytes | None:
    try:
        return untrusted.read_bytes(root, rel, limit)
    except (OSError, untrusted.Untrusted):
        return None


def _rows(raw: bytes | None) -> list[tuple[str, str | None]]:
    try:
        return [(r[0], r[1] if len(r) > 1 and r[1] else None)
                for r in csv.reader(io.StringIO(raw.decode("utf-8"))) if r and r[0]] if raw else []
    except (UnicodeDecodeError, csv.Error):
        return []


def _b64(digest: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


@functools.lru_cache(maxsize=256)
def archive_hashes(path: Path) -> frozenset[str] | None:
    """The hashes of the files in a package file the harness holds (bundled, or the proxy's copy):
    a wheel's RECORD, or every file of an sdist or an npm tarball."""
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as z:
                name = next(n for n in z.namelist() if re.fullmatch(r"[^/]+\.dist-info/RECORD", n))
                if z.getinfo(name).file_size > MAX_META:
                    return None
                return frozenset(h for _, h in _rows(z.read(name)) if h)
        out, total = set(), 0
        with tarfile.open(path) as tf:
            for m in tf:
                if m.isfile() and (total := total + m.size) <= MAX_UNPACKED and (fh := tf.extractfile(m)):
                    h = hashlib.sha256()
                    for chunk in iter(lambda: fh.read(1 << 20), b""):
                        h.update(chunk)
                    out.add(_b64(h.digest()))
        return frozenset(out)
    except (OSError, StopIteration, KeyError, ValueError, EOFError, zipfile.BadZipFile, tarfile.TarError):
        return None


@functools.cache
def bundled_wheels() -> dict[tuple[str, str], Path]:
    """The wheels the harness's own Python brings for ``python -m venv``."""
    import ensurepip

    dirs = (Path(ensurepip.__file__).parent / "_bundled", Path("/usr/share/python-wheels"))
    return {key: w for d in dirs if d.is_dir() for w in sorted(d.glob("*.whl")) if (key := dist_of(w.name))}


def _local(raw: bytes) -> str | None:
    """Why a direct_url.json (PEP 610) makes a distribution the agent's own, if it does."""
    try:
        d = json.loads(raw)
    except ValueError:
        d = None
    if not isinstance(d, dict) or not isinstance(d.get("url"), str):
        return "its direct_url.json is unreadable"
    if d["url"].startswith("file:") or "dir_info" in d or "vcs_info" in d:
        return f"installed from {d['url'][:120]} (direct_url.json), not from a package index: the agent's own code"
    return None


def read_dist(root: Path, rel: str, m: re.Match, got: dict, caches: set[str],
          package_file: Callable[[str], Path | None] | None,
          released_file: Callable[[str], Path | None] | None = None) -> Tree:
    site, name, version = m.group(1) or "", m.group(2), m.group(3)
    info, raw = posixpath.dirname(rel), small(root, rel, MAX_META)
    pre = _PREFIX.match(site)
    data = [posixpath.join(pre.group(1) or "", d) + "/" for d in ("share", "include", "etc")] if pre else []
    files = {}
    for path, h in (rows := _rows(raw)):
        w = posixpath.normpath(posixpath.join(site, path))
        if (w.startswith(f"{site}/") if site else w.split("/", 1)[0] != "..") or any(w.startswith(d) for d in data):
            files[w] = h
    key, why, held, released = (canon(name), version.lower()), None, None, None
    if not rows:
        why = "its RECORD is unreadable"
    elif not (small(root, f"{info}/INSTALLER") or b"").strip() and not any(under(info, c) for c in caches):
        why = "its dist-info has no INSTALLER: no installer put it there"
    elif (direct := small(root, f"{info}/direct_url.json")) is not None:
        why = _local(direct)
        if why is not None and (released := _released(direct, key, released_file)) is not None:
            why, held = None, released  # a wheel the task released, installed as the authors do
    held = held or bundled_wheels().get(key) or _held(got, key, package_file)
    if why is None and key not in got and held is None:
        why = f"{name} {version} was not fetched through the egress proxy in this trial"
    return Tree(site, f"{name} {version}", files, why, archive_hashes(held) if held else None, info,
                released=held is not None and held == released)


def _released(direct: bytes, key: tuple[str, str], released_file: Callable[[str], Path | None] | None) -> Path | None:
    """The harness's own copy of the released wheel a local direct_url.json names, when it is one
    of the task's materials (by its recorded sha256) and a wheel of this very distribution. Its
    RECORD is then checked against the installed files like a fetched package's."""
    try:
        url = json.loads(direct).get("url")
    except (ValueError, AttributeError):
        return None
    if released_file is None or not isinstance(url, str) or not url.startswith("file:"):
        return None
    path = released_file(unquote(urlsplit(url).path))
    return path if path is not None and path.name.endswith(".whl") and dist_of(path.name) == key else None


def _held(got: dict, key: tuple[str, str], package_file: Callable[[str], Path | None] | None) -> Path | None:
    """The proxy's copy of the package file it fetched for ``key``, if it still has one."""
    return next((w for url in got.get(key, []) if package_file is not None and (w := package_file(url))), None)


def read_node(root: Path, m: re.Match, got: dict, package_file: Callable[[str], Path | None] | None) -> Tree:
    nm, pkg = m.group(1), m.group(2)
    try:
        meta = json.loads(small(root, f"{nm}/{pkg}/package.json") or b"")
    except ValueError:
        meta = None
    version = meta.get("version") if isinstance(meta, dict) and meta.get("name") == pkg else None
    if not isinstance(version, str):
        return Tree(nm, pkg, {}, "its package.json does not name this package")
    key = (canon(pkg.rsplit("/", 1)[-1]), version.lower())
    why = None if key in got else f"{pkg} {version} was not fetched through the egress proxy in this trial"
    held = _held(got, key, package_file)
    return Tree(nm, f"{pkg} {version}", {}, why, archive_hashes(held) if held else None)


def under(path: str, folder: str) -> bool:
    return not folder or path.startswith(folder + "/")


def file_hash(root: Path, rel: str) -> str | None:
    try:
        hexd = untrusted.sha256(root, rel, limit=HASH_LIMIT)
    except (OSError, untrusted.Untrusted):
        return None
    return _b64(bytes.fromhex(hexd))


def cache_roots(root: Path, cand: set[str]) -> set[str]:
    out = set()
    for p in cand:
        if posixpath.basename(p) == "CACHEDIR.TAG" and "/" in p:  # not the workspace itself
            if (small(root, p, 4096) or b"").startswith(CACHEDIR_SIGNATURE):
                out.add(posixpath.dirname(p))
        elif m := _NPM_CACHE.match(p):
            out.add(m.group(1))
    return out
