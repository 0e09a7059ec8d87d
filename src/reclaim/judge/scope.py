"""Which files an agent left are its own programs: what the literal and provenance checks read.

provenance.py disqualifies a value written into the agent's programs. What pip, a venv or npm
installed into the workspace, and caches of downloads, are not its programs: a colour table that
happens to hold 0.871 in a vendored plotting library is evidence of nothing. But every byte there
is the agent's and hostile: a ``*.dist-info/RECORD`` or a ``CACHEDIR.TAG`` is as easy to write as
the fabricating script it would hide. So a file is left out only on evidence the agent cannot make.

**Installed package**: listed, with a sha256 that matches its content, in the RECORD of a
``NAME-VERSION.dist-info`` (inside its site folder, or a prefix's share/include/etc), where the
distribution (1) has an INSTALLER (not asked inside a package cache: uv's unpacked wheels have
none); (2) has no direct_url.json naming a local path, a local wheel or a checkout (PEP 610: that
is the agent's own code); and (3) was fetched in this trial through the egress proxy — an allowed
download of NAME-VERSION's wheel or sdist in the trace, which no sandbox can write — or is a wheel
bundled with the harness's own Python (ensurepip, /usr/share/python-wheels: the pip and setuptools
of ``python -m venv``). Where that package file's bytes are at hand (bundled, or the proxy's
copy), each file's hash must be one of its files' (a wheel's RECORD, every file of an sdist): a
module added to a real package under a RECORD rewritten to match is the agent's. ``*.egg-info``
has no hashes and vouches for nothing. A file under ``node_modules/PKG/`` counts when PKG's
package.json names it and a version whose tarball the proxy fetched (and is in that tarball,
where the proxy still has it): JavaScript and non-code files only.
**Package cache**: binary files under a valid CACHEDIR.TAG (uv, cargo), in pip's hashed cache
layout, or under npm's ``_cacache``; text there stays scanned.

Whatever the metadata says, these stay scanned: files in ``bin/``/``Scripts/``, ``*.pth`` and
``sitecustomize``/``usercustomize`` (run at start-up), the re-executed script, and any file that a
scanned program names by a path inside its tree (``.deps/fake/run.py``, ``fake/run.py``, the folder
``.deps/fake``, ``-m fake.run``), that the re-execution ran (the exec record), or that a ``.pth``
points into. Naming a tree's root (``PYTHONPATH=.deps``) or importing a package is ordinary use.
Still open, once the proxy no longer holds the package file: a real package rebuilt around a
fabricating module with a matching RECORD, or a file added to a node package's folder, reached
without being named. Binary files are searched only for the value's packed forms (find_encoded);
notebooks are read by their code cells (provenance.read_text).
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
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from reclaim.judge.provenance import MAX_CODE_BYTES, is_code, read_text
from reclaim.sandbox import untrusted
from reclaim.store.files import HASH_LIMIT
from reclaim.store.models import ScanScope

INSTALLED, CACHE = "installed package", "package cache"
CACHEDIR_SIGNATURE = b"Signature: 8a477f597d28d172789f06886806bc55"
MAX_META, MAX_UNPACKED, KEPT_SHOWN, EXAMPLES = 16 << 20, 1 << 30, 20, 5  # MAX_UNPACKED: an sdist's bytes hashed
NAMED = "named by a scanned program, run by the re-execution or pointed at by a .pth"
ENTRY = "a program entry point (bin/, *.pth, sitecustomize): run, not imported"
_DIST_INFO = re.compile(r"^(?:(.*)/)?([^/]+)-([^/-]+)\.dist-info/RECORD$")
_NODE_PKG = re.compile(r"^((?:.*/)?node_modules)/((?:@[^/]+/)?[^/@.][^/]*)/package\.json$")
_IN_NODE = re.compile(r"^((?:.*/)?node_modules)/((?:@[^/]+/)?[^/]+)/")
_PIP_CACHE = re.compile(r"(?:^|/)(?:(?:http-v2|http)/(?:[0-9a-f]/){5}[0-9a-f]{56}(?:\.body)?|selfcheck/[0-9a-f]{56}\.json|"
                        r"wheels/(?:[0-9a-f]{2}/){3}[0-9a-f]{50}/[^/]+\.whl)$")
_NPM_CACHE = re.compile(r"^((?:.*/)?_cacache)/(?:index-v5|content-v2)/")
_PREFIX = re.compile(r"^(?:(.*)/)?(?:lib|lib64)/python\d[\d.]*/(?:site|dist)-packages$")
_PYC = re.compile(r"^(?:(.*)/)?__pycache__/([^/.]+)\.[^/]*\.pyc$")
_JS = {".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".jsx", ".tsx"}
_TOKEN = re.compile(r"[\w.@+~%/-]+")
_RUN_MODULE = re.compile(r"(?:^|\s)-m\s*([\w.]+)")


@dataclass
class Scope:
    sources: list[str]
    """The agent's own files: what the literal and provenance checks read."""
    excluded: dict[str, list[str]] = field(default_factory=dict)
    kept: dict[str, str] = field(default_factory=dict)
    """Files in an installed tree or a cache that stay scanned, and why."""
    binary: list[str] = field(default_factory=list)
    notebooks: list[str] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)

    def record(self, rewritten: Iterable[str] = ()) -> ScanScope:
        """The summary for ReexecRecord.scope; ``rewritten`` are the candidates the re-execution
        changed or deleted (those of them that are the agent's own are all named: the judge reads them)."""
        own = set(self.sources)
        return ScanScope(scanned=len(self.sources), notebooks=len(self.notebooks), binary=len(self.binary),
                         unread=self.unread[:20], excluded={k: len(v) for k, v in self.excluded.items()},
                         examples={k: _examples(v) for k, v in self.excluded.items()},
                         kept=dict(list(self.kept.items())[:KEPT_SHOWN]), kept_count=len(self.kept),
                         rewritten=sorted(p for p in set(rewritten) if p in own))


def _examples(paths: list[str]) -> list[str]:
    """A few paths to show, one per folder, programs before metadata and compiled files."""
    seen, out = set(), []
    for p in sorted(paths, key=lambda p: (".dist-info/" in p or p.endswith(".pyc"), p)):
        if (d := posixpath.dirname(p)) not in seen and len(out) < EXAMPLES:
            seen.add(d)
            out.append(p)
    return out


@dataclass
class _Tree:
    site: str
    """The folder its paths are relative to ('' is the workspace root)."""
    label: str
    files: dict[str, str | None]
    """Workspace path -> the hash RECORD gives ('sha256=...'), or None."""
    why_not: str | None = None
    archive: frozenset[str] | None = None
    """The hashes of the files of the very package file it came from, when that is at hand."""
    info: str = ""


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
        if getattr(e, "kind", "") == "network_request" and e.allowed and 200 <= e.status < 300 and (
                key := dist_of(unquote(urlsplit(e.url).path.rsplit("/", 1)[-1]))):
            out.setdefault(key, []).append(e.url)
    return out


def _small(root: Path, rel: str, limit: int = 1 << 20) -> bytes | None:
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
                return frozenset(h for _, h in _rows(z.read(name)) if h) if z.getinfo(name).file_size <= MAX_META else None
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


def _dist(root: Path, rel: str, m: re.Match, got: dict, caches: set[str],
          package_file: Callable[[str], Path | None] | None) -> _Tree:
    site, name, version = m.group(1) or "", m.group(2), m.group(3)
    info, raw = posixpath.dirname(rel), _small(root, rel, MAX_META)
    pre = _PREFIX.match(site)
    data = [posixpath.join(pre.group(1) or "", d) + "/" for d in ("share", "include", "etc")] if pre else []
    files = {}
    for path, h in (rows := _rows(raw)):
        w = posixpath.normpath(posixpath.join(site, path))
        if (w.startswith(f"{site}/") if site else w.split("/", 1)[0] != "..") or any(w.startswith(d) for d in data):
            files[w] = h
    key, why = (canon(name), version.lower()), None
    if not rows:
        why = "its RECORD is unreadable"
    elif not (_small(root, f"{info}/INSTALLER") or b"").strip() and not any(_under(info, c) for c in caches):
        why = "its dist-info has no INSTALLER: no installer put it there"
    elif (direct := _small(root, f"{info}/direct_url.json")) is not None:
        why = _local(direct)
    held = bundled_wheels().get(key) or _held(got, key, package_file)
    if why is None and key not in got and held is None:
        why = f"{name} {version} was not fetched through the egress proxy in this trial"
    return _Tree(site, f"{name} {version}", files, why, archive_hashes(held) if held else None, info)


def _held(got: dict, key: tuple[str, str], package_file: Callable[[str], Path | None] | None) -> Path | None:
    """The proxy's copy of the package file it fetched for ``key``, if it still has one."""
    return next((w for url in got.get(key, []) if package_file is not None and (w := package_file(url))), None)


def _node(root: Path, m: re.Match, got: dict, package_file: Callable[[str], Path | None] | None) -> _Tree:
    nm, pkg = m.group(1), m.group(2)
    try:
        meta = json.loads(_small(root, f"{nm}/{pkg}/package.json") or b"")
    except ValueError:
        meta = None
    version = meta.get("version") if isinstance(meta, dict) and meta.get("name") == pkg else None
    if not isinstance(version, str):
        return _Tree(nm, pkg, {}, "its package.json does not name this package")
    key = (canon(pkg.rsplit("/", 1)[-1]), version.lower())
    why = None if key in got else f"{pkg} {version} was not fetched through the egress proxy in this trial"
    held = _held(got, key, package_file)
    return _Tree(nm, f"{pkg} {version}", {}, why, archive_hashes(held) if held else None)


def _under(path: str, folder: str) -> bool:
    return not folder or path.startswith(folder + "/")


def _hash(root: Path, rel: str) -> str | None:
    try:
        hexd = untrusted.sha256(root, rel, limit=HASH_LIMIT)
    except (OSError, untrusted.Untrusted):
        return None
    return _b64(bytes.fromhex(hexd))


def _cache_roots(root: Path, cand: set[str]) -> set[str]:
    out = set()
    for p in cand:
        if posixpath.basename(p) == "CACHEDIR.TAG" and "/" in p:  # not the workspace itself
            if (_small(root, p, 4096) or b"").startswith(CACHEDIR_SIGNATURE):
                out.add(posixpath.dirname(p))
        elif m := _NPM_CACHE.match(p):
            out.add(m.group(1))
    return out


def _binary(root: Path, rel: str) -> tuple[bool, int]:
    try:
        head, size = untrusted.read_head(root, rel, 8192)
    except (OSError, untrusted.Untrusted):
        return False, 0
    if is_code(Path(rel), head[:2]):
        return False, size  # a program, in whatever encoding: provenance.read_text reads it
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as e:  # a character cut at 8 KiB is not binary
        return size <= len(head) or e.start < len(head) - 3, size
    return b"\0" in head, size


def tokens(text: str) -> set[str]:
    """Every path-like word of ``text`` and its tails ('a/b/c', 'b/c', 'c'), and '-m mod' for runpy."""
    out = {f"-m {m.group(1)}" for m in _RUN_MODULE.finditer(text)}
    for t in _TOKEN.findall(text):
        while t.startswith("./"):
            t = t[2:]
        parts = t.rstrip("/").split("/")
        out.update("/".join(parts[i:]) for i in range(len(parts)) if parts[i])
    return out


def _keys(p: str, site: str) -> set[str]:
    """The names by which a program could reach ``p`` in a tree rooted at ``site`` (not the root's)."""
    keys, comps = {p}, p.split("/")
    keys.update("/".join(comps[:i]) for i in range(max(len(site.split("/")) + 1 if site else 1, 2), len(comps)))
    s = p[len(site) + 1:] if site else p
    sc, mod = s.split("/"), posixpath.splitext(s)[0]
    if len(sc) >= 2:
        keys |= {s, mod} | {"/".join(sc[:i]) for i in range(2, len(sc))}
    if not mod.endswith("__init__"):
        keys.add("-m " + mod.removesuffix("/__main__").replace("/", "."))
    return keys


def _installed(p: str, h: str | None, owners: list[_Tree]) -> tuple[_Tree | None, str | None]:
    """The tree that vouches for ``p`` (content hash ``h``), or why none does."""
    why = None
    for t in owners:
        meta = _under(p, t.info) and not is_code(Path(p))
        if t.why_not:
            why = why or t.why_not
        elif t.files[p] is None and not (meta and p.endswith("/RECORD")):
            why = why or "its RECORD gives no hash for it"
        elif t.files[p] is not None and t.files[p] != h:
            why = "its content does not match the hash its RECORD gives"
        elif t.archive is not None and not meta and h not in t.archive:
            why = why or f"it is not in the {t.label} that was fetched"
        else:
            rel = p[len(t.site) + 1:] if t.site else p
            if rel.split("/", 1)[0] in ("bin", "Scripts") or p.endswith(".pth") or posixpath.basename(p) in (
                    "sitecustomize.py", "usercustomize.py"):
                return None, ENTRY
            return t, None
    return None, why


def agent_sources(root: Path, candidates: Iterable[str], trace: Iterable = (), *, entry: str = "reproduce.sh",
                  package_file: Callable[[str], Path | None] | None = None) -> Scope:
    """Split ``candidates`` (files under ``root`` the harness did not provide) into the agent's
    own sources and excluded files, with a reason for each group. ``trace`` is the trial's trace
    (network requests, the re-execution's exec record); ``package_file`` maps a fetched URL to the
    proxy's copy of what it fetched, when it has one; ``entry`` (the script re-executed) is never left out."""
    cand, trace = set(candidates), list(trace)
    got, caches = fetched(trace), _cache_roots(root, cand)
    trees = [_dist(root, p, m, got, caches, package_file) for p in sorted(cand) if (m := _DIST_INFO.match(p))]
    nodes = {f"{m.group(1)}/{m.group(2)}": _node(root, m, got, package_file) for p in sorted(cand)
             if (m := _NODE_PKG.match(p))}
    by_file: dict[str, list[_Tree]] = {}
    for t in trees:
        for f in t.files:
            by_file.setdefault(f, []).append(t)
    sites = {t.site for t in trees if t.site}
    out, excluded = Scope(sources=[]), {}  # excluded: path -> (reason, the tree's root)
    for p in sorted(q for q in cand if not _PYC.match(q)):  # compiled files go with their source, below
        why = None
        if owners := by_file.get(p):
            t, why = _installed(p, _hash(root, p), owners)
            if t is not None:
                excluded[p] = (INSTALLED, t.site)
        elif m := _IN_NODE.match(p):
            t = nodes.get(f"{m.group(1)}/{m.group(2)}")
            why = "in node_modules without a package.json naming its package" if t is None else t.why_not or (
                "not JavaScript: npm keeps no per-file hashes to vouch for it"
                if is_code(Path(p)) and posixpath.splitext(p)[1].lower() not in _JS else None) or (
                f"it is not in the {t.label} that was fetched"
                if t.archive is not None and _hash(root, p) not in t.archive else None)
            if why is None:
                excluded[p] = (INSTALLED, t.site)
        elif any(_under(p, s) for s in sites):
            why = "not listed in the RECORD of any package installed there"
        if why is None and p not in excluded and (_PIP_CACHE.search(p) or any(_under(p, c) for c in caches)):
            if _binary(root, p)[0]:
                excluded[p] = (CACHE, next((c for c in caches if _under(p, c)), posixpath.dirname(p)))
            else:
                why = "text in a package cache: caches hold downloads, not text the harness can vouch for"
        if why is not None:
            out.kept[p] = why
    _named(root, cand, trace, entry, excluded, out.kept)
    for p in sorted(q for q in cand if _PYC.match(q)):
        m = _PYC.match(p)
        if (src := posixpath.join(m.group(1) or "", f"{m.group(2)}.py")) in excluded:
            excluded[p] = excluded[src]
        elif any(_under(p, c) for c in caches):
            excluded[p] = (CACHE, "")
    for p in sorted(cand):
        if p in excluded:
            out.excluded.setdefault(excluded[p][0], []).append(p)
            continue
        out.sources.append(p)
        binary, size = _binary(root, p)
        if binary:
            out.binary.append(p)
        elif p.lower().endswith(".ipynb"):
            out.notebooks.append(p)
        if size > MAX_CODE_BYTES and is_code(Path(p)):
            out.unread.append(p)
    return out


def _named(root: Path, cand: set[str], trace: list, entry: str, excluded: dict, kept: dict) -> None:
    """Put back what a scanned program names, the re-execution ran, or a .pth points into; the
    programs put back are read in turn."""
    words = tokens(entry)
    for e in trace:
        if getattr(e, "kind", "") == "program_exec" and e.phase == "reexec":
            words |= tokens(" ".join([e.path, *e.argv]))
    for p in (q for q in cand if q.endswith(".pth") and q not in excluded):
        for line in (_small(root, p) or b"").decode("utf-8", "replace").splitlines():
            if (line := line.strip()) and not line.startswith(("#", "import ", "import\t")):
                words |= tokens(posixpath.normpath(posixpath.join(posixpath.dirname(p), line))) | tokens(line)
    keys = {p: _keys(p, site) for p, (_, site) in excluded.items()}
    todo = [p for p in cand if p not in excluded and not _PYC.match(p)]
    while todo:
        for p in todo:
            if (txt := read_text(root, p)) is not None and txt.code:
                for _, text in txt.parts:
                    words |= tokens(text)
        todo = [p for p in excluded if keys[p] & words]
        for p in todo:
            del excluded[p]
            kept[p] = NAMED
