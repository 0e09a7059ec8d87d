"""A trial's way out, and what it brought back: its egress policy, the proxy socket each sandbox
gets, the record of every request, and the check that no withheld material reached it anyway.

The policy follows the task (``network:``) and its level: the released materials' URLs may be
allowed, the withheld ones (and their mirrors) are always denied and named, so an attempt is on
the record by material. The re-executions without data and weights deny the released data's URLs
too: a number that comes out without the data must not come from downloading it again. Whatever
route a withheld file took (a fork nobody listed, a package index, a pasted archive), its bytes
are what the content check looks for in everything the agent left.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import subprocess
import sys
import threading
from pathlib import Path

from reclaim.gateway import EgressPolicy, EgressProxy, EgressRecord, policy_for
from reclaim.materials import MaterialCache, MaterialsError
from reclaim.sandbox import EGRESS_PORT, GATEWAY_PORT, Backend, netns, untrusted
from reclaim.spec import MaterialRef, Task, TaskSpec
from reclaim.trace import NetworkRequest, Note, TraceWriter, WithheldFound

EGRESS_LOG = "records/egress.jsonl"
MIN_MATCH_BYTES = 256  # smaller files (an empty __init__.py, a licence) are shared by too many projects


def index_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """This machine's package indexes, for the sandbox's pip, uv and npm: the network ones only
    (a file:// index is a host folder no sandbox sees), reached through the egress proxy."""
    env = dict(os.environ if env is None else env)
    primary, extra = env.get("PIP_INDEX_URL", ""), env.get("PIP_EXTRA_INDEX_URL", "").split()
    try:
        listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True,
                                timeout=20, env={**env, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}).stdout
    except (OSError, subprocess.SubprocessError):
        listed = ""
    for line in listed.splitlines():
        key, _, val = line.partition("=")
        val = val.strip().strip("'\"")
        if key.endswith(".index-url") and not primary:
            primary = val
        elif key.endswith(".extra-index-url"):
            extra += val.split()
    net = [u for u in extra if u.startswith(("http://", "https://"))]
    out = {}
    if primary.startswith(("http://", "https://")):
        out["PIP_INDEX_URL"] = primary
    if net:
        out["PIP_EXTRA_INDEX_URL"] = " ".join(dict.fromkeys(net))
    for key in ("UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_EXTRA_INDEX_URL", "UV_INDEX", "NPM_CONFIG_REGISTRY"):
        if env.get(key, "").startswith(("http://", "https://")):
            out[key] = env[key]
    return out


_SCP = re.compile(r"(?:[\w.+-]+@)?([\w.-]+):(?!//)(.+)")
_REMOTE = re.compile(r"(?:ssh|git|git\+ssh|ssh\+git)://(?:[^@/]+@)?([^/:]+)(?::\d*)?/(.+)")


def web_url(url: str) -> str | None:
    """``url`` as the https address its host serves it at (ssh://, git:// and scp-form
    ``git@host:org/repo.git`` alike), so the egress rules of its host cover it; None for a local one."""
    if url.startswith(("http://", "https://")):
        return url
    if m := _REMOTE.fullmatch(url):
        return f"https://{m[1]}/{m[2].lstrip('/')}"
    if "://" not in url and not url.startswith(("/", ".", "~")) and (m := _SCP.fullmatch(url)):
        return f"https://{m[1]}/{m[2].lstrip('/')}"
    return None


def material_urls(ref: MaterialRef) -> list[str]:
    """The network addresses a material is known by: its source and the mirrors the task lists."""
    urls = []
    if ref.git is not None and (url := web_url(ref.git.url)) is not None:
        urls.append(url)
    if ref.http is not None:
        urls.append(ref.http.url)
    if ref.hub is not None:
        urls.append(f"https://huggingface.co/{'datasets/' if ref.hub.kind == 'dataset' else ''}{ref.hub.repo}")
    return urls + [web_url(m) or m for m in ref.mirrors]


def trial_policy(spec: TaskSpec, package_hosts: list[str], gateway: bool,
                 without: tuple[str, ...] = ()) -> EgressPolicy:
    """The egress policy of a trial; ``without``: the materials a re-execution runs without (the
    data and weights, or the code), which it may not fetch either."""
    allowed = spec.materials.allowed(spec.level)
    withheld = {n: material_urls(getattr(spec.materials, n)) for n in spec.withheld()}
    released = []
    for name, ref in allowed.items():
        if name in without:
            withheld[f"{name} (withheld for the check without it)"] = material_urls(ref)
        else:
            released += material_urls(ref)
    return policy_for(spec.network.policy.value, list(spec.network.allow), released,
                      {k: v for k, v in withheld.items() if v}, package_hosts, gateway)


def phase_netns(kind: type[Backend], gateway: bool, egress: bool) -> netns.Netns | None:
    """A network namespace for one phase's sandboxes, with the gateway's and the egress proxy's
    ports listening inside (sandbox/netns.py); None where there is nothing to reach, or where the
    sandbox must relay to them itself (a backend that cannot start in one, or not a root harness)."""
    ports = [GATEWAY_PORT] * gateway + [EGRESS_PORT] * egress
    if kind.network != "netns" or not ports or netns.unavailable() is not None:
        return None
    try:
        return netns.Netns.create(ports)
    except netns.NetnsError:  # e.g. the machine's namespace limit reached: the relay does the same job
        return None


class TrialNetwork:
    """One trial's sockets on the run's egress proxy; every request lands in its trace and in
    records/egress.jsonl, where no sandbox can write."""

    def __init__(self, proxy: EgressProxy, trial_id: str, tdir: Path, trace: TraceWriter):
        self.proxy, self.trial_id, self.trace = proxy, trial_id, trace
        self.log = tdir / EGRESS_LOG
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self.open_names: list[str] = []

    def open(self, name: str, policy: EgressPolicy, phase: str, listener: socket.socket | None = None,
             alike: bool = False) -> Path:
        """The folder to bind into the sandbox ``name``; ``listener``: a socket listening in that
        sandbox's own network, where the proxy then accepts its connections (sandbox/netns.py).
        ``alike``: the folder has the trial's one name for such sandboxes (its re-runs, one at a time)."""
        key = f"{self.trial_id}/{name}"
        place = "r" + hashlib.sha256(self.trial_id.encode()).hexdigest()[:12] if alike else None

        def record(r: EgressRecord) -> None:
            with self._lock, open(self.log, "a", encoding="utf-8") as fh:
                fh.write(json.dumps({"sandbox": name, **r.model_dump(mode="json")}) + "\n")
            self._emit(phase, r)

        folder = self.proxy.open_trial(key, policy, record, listener, place=place)
        self.open_names.append(name)
        return folder

    def _emit(self, phase: str, r: EgressRecord) -> None:
        self.trace.emit(NetworkRequest, phase=phase, method=r.method, url=r.url[:2000], host=r.host,
                        status=r.status, allowed=r.allowed, rule=r.rule[:500], forbidden=r.forbidden,
                        bytes_up=r.bytes_up, bytes_down=r.bytes_down, error=(r.error or None) and r.error[:500])

    def close(self, name: str) -> None:
        if name in self.open_names:
            self.open_names.remove(name)
            self.proxy.close_trial(f"{self.trial_id}/{name}")

    def close_all(self) -> None:
        for name in list(self.open_names):
            self.close(name)


def withheld_found(task: Task, cache: MaterialCache, roots: list[Path], trace: TraceWriter) -> int:
    """Put on the record every file under ``roots`` (the workspace, the agent's environment, home
    and /tmp) whose bytes are those of a file of a withheld material; returns how many."""
    spec = task.spec
    offline = MaterialCache(cache.root, offline=True)
    found = 0
    for name in spec.withheld():
        ref = getattr(spec.materials, name)
        try:  # withheld code is fetched before the run; data and weights only when already cached
            got = (cache if name == "code" else offline).get(ref, task.dir,
                                                             f"{task.dir / 'task.yaml'}: materials.{name}")
        except MaterialsError:
            trace.emit(Note, phase="agent", level="info",
                       message=f"withheld {name}: not in the materials cache, so its content was not looked for")
            continue
        by_digest: dict[str, str] = {}  # sha256 -> a released file's path
        sizes = set()
        for rel, digest in got.files.items():
            size = (got.path / rel).stat().st_size
            if size >= MIN_MATCH_BYTES:
                by_digest.setdefault(digest, rel)
                sizes.add(size)
        matches = []
        for root in roots:
            if not root.is_dir():
                continue
            for e in untrusted.walk(root):
                if e.kind != "file" or not e.plain or e.size not in sizes:
                    continue
                try:
                    digest = untrusted.sha256(root, e.raw, limit=1 << 34)
                except (OSError, untrusted.Untrusted):
                    continue
                if digest in by_digest:
                    matches.append(f"{root.name}/{e.rel} = {name}/{by_digest[digest]}")
        if matches:
            found += len(matches)
            trace.emit(WithheldFound, phase="agent", material=name, files=matches[:200])
    return found
