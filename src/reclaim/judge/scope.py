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
notebooks are read by their code cells (provenance.read_text). The evidence on packages and
caches is read by judge/installed.py; this module decides with it.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from reclaim.judge.installed import (
    DIST_INFO,
    NODE_PKG,
    Tree,
    cache_roots,
    fetched,
    file_hash,
    read_dist,
    read_node,
    small,
    under,
)
from reclaim.judge.provenance import MAX_CODE_BYTES, is_code, read_text
from reclaim.sandbox import untrusted
from reclaim.store import ScanScope
from reclaim.trace import CommandFinished, ProgramExec

INSTALLED, CACHE = "installed package", "package cache"
RELEASED = "released package"
"""Files of a wheel the task released, installed as they are in it: the authors' code, like the
materials, whatever names them."""
KEPT_SHOWN, EXAMPLES = 20, 5
NAMED = "named by a scanned program, run by the re-execution or pointed at by a .pth"
CUT = "the re-execution's exec record was cut: any installed file may have run"
ENTRY = "a program entry point (bin/, *.pth, sitecustomize): run, not imported"
_IN_NODE = re.compile(r"^((?:.*/)?node_modules)/((?:@[^/]+/)?[^/]+)/")
_PIP_CACHE = re.compile(r"(?:^|/)(?:(?:http-v2|http)/(?:[0-9a-f]/){5}[0-9a-f]{56}(?:\.body)?|"
                        r"selfcheck/[0-9a-f]{56}\.json|"
                        r"wheels/(?:[0-9a-f]{2}/){3}[0-9a-f]{50}/[^/]+\.whl)$")
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

    def record(self, rewritten: Iterable[str] = (), changed_materials: Iterable[str] = ()) -> ScanScope:
        """The summary for ReexecRecord.scope; ``rewritten`` are the candidates the re-execution
        changed or deleted, ``changed_materials`` the released files the agent changed or added in
        place (those of them that are the agent's own are all named: the judge reads them)."""
        own = set(self.sources)
        return ScanScope(scanned=len(self.sources), notebooks=len(self.notebooks), binary=len(self.binary),
                         unread=self.unread[:20], excluded={k: len(v) for k, v in self.excluded.items()},
                         examples={k: _examples(v) for k, v in self.excluded.items()},
                         kept=dict(list(self.kept.items())[:KEPT_SHOWN]), kept_count=len(self.kept),
                         rewritten=sorted(p for p in set(rewritten) if p in own),
                         changed_materials=sorted(p for p in set(changed_materials) if p in own))


def _examples(paths: list[str]) -> list[str]:
    """A few paths to show, one per folder, programs before metadata and compiled files."""
    seen: set[str] = set()
    out: list[str] = []
    for p in sorted(paths, key=lambda p: (".dist-info/" in p or p.endswith(".pyc"), p)):
        if (d := posixpath.dirname(p)) not in seen and len(out) < EXAMPLES:
            seen.add(d)
            out.append(p)
    return out


def _kind(root: Path, rel: str) -> tuple[bool, bool, int]:
    """(binary, a program by name or #!, size)."""
    try:
        head, size = untrusted.read_head(root, rel, 8192)
    except (OSError, untrusted.Untrusted):
        return False, False, 0
    if is_code(Path(rel), head[:2]):
        return False, True, size  # a program, in whatever encoding: provenance.read_text reads it
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as e:  # a character cut at 8 KiB is not binary
        return size <= len(head) or e.start < len(head) - 3, False, size
    return b"\0" in head, False, size


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


def _installed(p: str, h: str | None, owners: list[Tree]) -> tuple[Tree | None, str | None]:
    """The tree that vouches for ``p`` (content hash ``h``), or why none does."""
    why = None
    for t in owners:
        meta = under(p, t.info) and not is_code(Path(p))
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
                  package_file: Callable[[str], Path | None] | None = None,
                  released_file: Callable[[str], Path | None] | None = None) -> Scope:
    """Split ``candidates`` (files under ``root`` the harness did not provide) into the agent's
    own sources and excluded files, with a reason for each group. ``trace`` is the trial's trace
    (network requests, the re-execution's exec record); ``package_file`` maps a fetched URL to the
    proxy's copy of what it fetched, when it has one; ``released_file`` maps a path inside the
    sandbox to the harness's copy of the released material there, when it is one; ``entry`` (the
    script re-executed) is never left out."""
    cand, trace = set(candidates), list(trace)
    got, caches = fetched(trace), cache_roots(root, cand)
    trees = [read_dist(root, p, m, got, caches, package_file, released_file)
             for p in sorted(cand) if (m := DIST_INFO.match(p))]
    nodes = {f"{m.group(1)}/{m.group(2)}": read_node(root, m, got, package_file) for p in sorted(cand)
             if (m := NODE_PKG.match(p))}
    by_file: dict[str, list[Tree]] = {}
    for t in trees:
        for f in t.files:
            by_file.setdefault(f, []).append(t)
    sites = {t.site for t in trees if t.site}
    out, excluded = Scope(sources=[]), {}  # excluded: path -> (reason, the tree's root)
    for p in sorted(q for q in cand if not _PYC.match(q)):  # compiled files go with their source, below
        why = None
        if owners := by_file.get(p):
            tree, why = _installed(p, file_hash(root, p), owners)
            if tree is not None:
                excluded[p] = (RELEASED if tree.released and tree.archive is not None else INSTALLED, tree.site)
        elif m := _IN_NODE.match(p):
            node = nodes.get(f"{m.group(1)}/{m.group(2)}")
            why = "in node_modules without a package.json naming its package" if node is None else node.why_not or (
                "not JavaScript: npm keeps no per-file hashes to vouch for it"
                if is_code(Path(p)) and posixpath.splitext(p)[1].lower() not in _JS else None) or (
                f"it is not in the {node.label} that was fetched"
                if node.archive is not None and file_hash(root, p) not in node.archive else None)
            if why is None:
                assert node is not None  # a missing package.json gives a reason
                excluded[p] = (INSTALLED, node.site)
        elif any(under(p, s) for s in sites):
            why = "not listed in the RECORD of any package installed there"
        if why is None and p not in excluded and (_PIP_CACHE.search(p) or any(under(p, c) for c in caches)):
            if _kind(root, p)[0]:
                excluded[p] = (CACHE, next((c for c in caches if under(p, c)), posixpath.dirname(p)))
            else:
                why = "text in a package cache: caches hold downloads, not text the harness can vouch for"
        if why is not None:
            out.kept[p] = why
    _named(root, cand, trace, entry, excluded, out.kept)
    for p in sorted(q for q in cand if _PYC.match(q)):
        m = _PYC.match(p)
        assert m is not None  # chosen by the same match
        if (src := posixpath.join(m.group(1) or "", f"{m.group(2)}.py")) in excluded:
            excluded[p] = excluded[src]
        elif any(under(p, c) for c in caches):
            excluded[p] = (CACHE, "")
    for p in sorted(cand):
        if p in excluded:
            out.excluded.setdefault(excluded[p][0], []).append(p)
            continue
        out.sources.append(p)
        binary, code, size = _kind(root, p)
        if binary:
            out.binary.append(p)
        elif p.lower().endswith(".ipynb"):
            out.notebooks.append(p)
        if size > MAX_CODE_BYTES and code:  # a #! script too, whatever its name
            out.unread.append(p)
    return out


def _named(root: Path, cand: set[str], trace: list, entry: str, excluded: dict, kept: dict) -> None:
    """Put back what a scanned program names, the re-execution ran, or a .pth points into; the
    programs put back are read in turn."""
    words = tokens(entry)
    for e in trace:
        if isinstance(e, ProgramExec) and e.phase == "reexec":
            words |= tokens(" ".join([e.path, *e.argv]))
    for p in (q for q in cand if q.endswith(".pth") and q not in excluded):
        for line in (small(root, p) or b"").decode("utf-8", "replace").splitlines():
            if (line := line.strip()) and not line.startswith(("#", "import ", "import\t")):
                words |= tokens(posixpath.normpath(posixpath.join(posixpath.dirname(p), line))) | tokens(line)
    if any(isinstance(e, CommandFinished) and e.phase == "reexec" and e.programs_cut for e in trace):
        for p in [p for p, (why, _) in excluded.items() if why != RELEASED]:
            del excluded[p]  # what the cut record does not show may have run: nothing rests on its absence
            kept[p] = CUT
        return
    keys = {p: _keys(p, site) for p, (why, site) in excluded.items() if why != RELEASED}
    todo = [p for p in cand if p not in excluded and not _PYC.match(p)]
    while todo:
        for p in todo:
            if (txt := read_text(root, p)) is not None and txt.code:
                for _, text in txt.parts:
                    words |= tokens(text)
        todo = [p for p in keys if p in excluded and keys[p] & words]
        for p in todo:
            del excluded[p]
            kept[p] = NAMED
