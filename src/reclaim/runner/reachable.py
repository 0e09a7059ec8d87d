"""Before any trial: is every item a run needs here, or can it be had from here?

A run stops at the first material it cannot fetch; a cluster's compute node cannot fetch any. So the
run and its dry run ask first, for every task, whether each item (a repository at its commit, a
file, a Hub snapshot, the paper's PDF, the packages its environment installs) is in the materials
cache, and, where it is not, whether it can be had: never where the cache is offline, else by one
cheap request per host (``git ls-remote`` for a repository, ``HEAD`` for a file or an index), or by a
mirror that is there. What cannot be had is named, task by task, with the two ways to bring it here.
"""

from __future__ import annotations

import functools
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from reclaim.materials import MaterialCache
from reclaim.materials.bundle import sources
from reclaim.materials.environment import EnvironmentFailed, built
from reclaim.materials.git import GitFetcher
from reclaim.materials.http import HttpFetcher
from reclaim.materials.hub import HubFetcher
from reclaim.materials.sources import Source
from reclaim.materials.wheels import missing
from reclaim.spec import Task

TIMEOUT_S = 8.0
NOT_CHECKED = ("that each commit, file and checksum is what the task pins (the host was asked once, nothing "
               "was downloaded: the run fetches and verifies), that the packages resolve together, and "
               "anything the agents do")


@dataclass
class Gap:
    task: str
    item: str
    what: str
    why: str


@dataclass
class Presence:
    """What a run of these tasks would find: items cached, items it would fetch, and gaps."""

    cached: int = 0
    to_fetch: int = 0
    hosts: dict[str, str | None] = field(default_factory=dict)
    gaps: list[Gap] = field(default_factory=list)
    unverified: list[str] = field(default_factory=list)
    """Tasks whose reference was not run here, with what their verify.needs says (free text)."""

    def lines(self) -> list[str]:
        asked = ", ".join(f"{h} {'answered' if why is None else 'did not'}" for h, why in self.hosts.items())
        out = [f"materials: {self.cached} cached, {self.to_fetch} to fetch when the run starts"
               + (f" (asked: {asked})" if asked else ""),
               f"not checked: {NOT_CHECKED}"]
        if self.unverified:  # the budget's GPUs, memory and disk were checked; the rest of it is prose
            out.append("not checked, a reference never verified here: what verifying it needs beyond its budget "
                       "(verify.needs): " + "; ".join(self.unverified))
        return out


def survey(tasks: list[Task], cache: MaterialCache, ask: bool = True) -> Presence:
    """Every item the tasks need, looked up in the cache and, with ``ask``, its host asked once."""
    p = Presence()
    for task in tasks:
        if task.spec.verified is None and task.spec.verify.needs.strip():
            p.unverified.append(f"{task.id}: {task.spec.verify.needs.strip()}")
        named, bad = sources(task, cache)
        p.gaps += [Gap(task.id, name, "", why) for name, why in bad]
        for name, src in named:
            if cache.lookup(src) is not None:
                p.cached += 1
                continue
            why = "the materials cache is offline (--offline)" if cache.offline else (
                _host_answer(src, p.hosts) if ask else None)
            if why is None:
                p.to_fetch += 1
            else:
                p.gaps.append(Gap(task.id, name, src.describe(), why))
        try:
            if built(task):
                continue
            if cache.offline:
                if gaps := missing(task, cache.wheels):
                    p.gaps.append(Gap(task.id, "packages", ", ".join(gaps), f"not in the wheelhouse {cache.wheels}"))
            elif ask and (why := _index_answer(p.hosts)) is not None:
                p.gaps.append(Gap(task.id, "packages", "its environment's packages", why))
        except EnvironmentFailed:
            pass  # no interpreter for it here: the trial says so, as a harness error of its own
    return p


def refusal(gaps: list[Gap], suite: str, cache: MaterialCache, notes: list[str] | None = None) -> str:
    """The gaps, one line each, and the ways to bring the items here, with the commands; then the
    run's other notes (the tasks it leaves out), which a refusal must not hide."""
    ids = sorted({g.task for g in gaps})
    picks = " ".join(f"--task {t}" for t in ids)
    lines = [f"{len(gaps)} item(s) this run needs cannot be had here:"]
    lines += [f"  {g.task} {g.item}: " + (f"{g.what}: " if g.what else "") + g.why for g in gaps]
    lines += [
        "bring them here in a bundle: where the network reaches them, "
        f"`reclaim materials pack {shlex.quote(suite)} {picks} -o bundle.tar.gz`; here, "
        f"`reclaim materials unpack bundle.tar.gz --cache {shlex.quote(str(cache.root))}` "
        "(or point --materials-cache at a shared folder it was unpacked into)",
        f"or, with this cache on a file system the network side shares, `reclaim materials fetch "
        f"{shlex.quote(suite)} --cache {shlex.quote(str(cache.root))}` there",
        "or, for a repository, a mirror you have: RECLAIM_GIT_MIRRORS='URL=/path/to/clone' "
        "(docs/neurips2025/README.md, offline)"]
    return "\n".join(lines + [f"note: {n}" for n in notes or []])


def _host_answer(src: Source, asked: dict[str, str | None]) -> str | None:
    """None when the item's host (or its mirror) answers; else why not. One request per host."""
    inner = getattr(src, "inner", src)
    if isinstance(inner, GitFetcher):
        url = inner.url
        if url != inner.src.url:  # a mirror (RECLAIM_GIT_MIRRORS), or a clone beside the task
            return None if _mirror_there(url) else f"its mirror {url} (RECLAIM_GIT_MIRRORS) is not there"
        return _once(asked, urlsplit(url).netloc or url, lambda: _ls_remote(url))
    if isinstance(inner, HttpFetcher):
        return _once(asked, urlsplit(inner.url).netloc, lambda: _head(inner.url))
    if isinstance(inner, HubFetcher):
        base = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
        return _once(asked, urlsplit(base).netloc, lambda: _head(base))
    return None


def _index_answer(asked: dict[str, str | None]) -> str | None:
    """None when pip has somewhere to take packages from: a local index or wheel folder it is configured
    with (find-links, a file:// index), or a remote index that answers; else why not."""
    places = []
    for var, key in (("PIP_INDEX_URL", "global.index-url"), ("PIP_EXTRA_INDEX_URL", "global.extra-index-url"),
                     ("PIP_FIND_LINKS", "global.find-links")):
        places += (os.environ.get(var) or _pip_config(key) or "").split()
    if not (os.environ.get("PIP_INDEX_URL") or _pip_config("global.index-url")):
        places.append("https://pypi.org/simple/")  # pip's default
    remote = [u for u in places if u.startswith(("http://", "https://"))]
    if any(Path(u.removeprefix("file://")).exists() for u in places if u not in remote):
        return None  # a local index or wheel folder: pip may find everything there
    why = None
    for url in remote:
        why = _once(asked, urlsplit(url).netloc, lambda url=url: _head(url))
        if why is None:
            return None
    return why or "pip has no index configured"


def _once(asked: dict[str, str | None], host: str, probe) -> str | None:
    """The host's answer, asked once for all its items: None, or why it cannot be reached."""
    if host not in asked:
        asked[host] = probe()
    why = asked[host]
    return None if why is None else f"{host} cannot be reached (asked once for all its items: {why})"


def _mirror_there(mirror: str) -> bool:
    path = Path(mirror.removeprefix("file://"))
    return path.exists() if "://" not in mirror or mirror.startswith("file://") else True


def _ls_remote(url: str) -> str | None:
    try:
        r = subprocess.run(["git", "ls-remote", "--exit-code", url, "HEAD"], capture_output=True, text=True,
                           timeout=TIMEOUT_S, env=os.environ | {"GIT_TERMINAL_PROMPT": "0"})
    except subprocess.TimeoutExpired:
        return f"git ls-remote {url} did not answer in {TIMEOUT_S:.0f} s"
    if r.returncode != 0:
        tail = (r.stderr.strip().splitlines() or ["no answer"])[-1]
        return f"git ls-remote {url} failed: {tail}"
    return None


def _head(url: str) -> str | None:
    try:
        r = httpx.head(url, timeout=TIMEOUT_S, follow_redirects=True)
    except httpx.HTTPError as e:
        return f"HEAD {url} failed: {type(e).__name__}: {e}"
    if r.status_code >= 500:
        return f"HEAD {url} answered {r.status_code}"
    return None  # 2xx, 3xx, and 4xx (a host that refuses HEAD or wants a login) all mean it is there


@functools.cache
def _pip_config(name: str) -> str | None:
    try:
        r = subprocess.run([sys.executable, "-m", "pip", "config", "get", name], capture_output=True, text=True,
                           timeout=30)
    except subprocess.TimeoutExpired:
        return None
    return r.stdout.strip() or None if r.returncode == 0 else None
