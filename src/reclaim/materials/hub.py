"""A Hugging Face Hub model or dataset at a pinned revision, through the Hub's own client.

The endpoint is ``$HF_ENDPOINT`` read at fetch time (the client reads it only at import).
The revision must resolve to itself, every file must come from that commit (the client's
``X-Repo-Commit``) and match its ETag (sha256 for LFS files, the git blob sha1 otherwise);
the client's ``.cache/huggingface`` bookkeeping never enters the object.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from reclaim.materials.http import backoff_s
from reclaim.materials.sources import Transient, no_such_host, problem, with_retries
from reclaim.spec import HubSource

RETRY_STATUS = {408, 429, 500, 502, 503, 504}
TRANSPORT_ERRORS = {"ConnectError", "ConnectTimeout", "ReadTimeout", "WriteTimeout", "PoolTimeout", "ReadError",
                    "WriteError", "RemoteProtocolError", "ProxyError", "NetworkError", "TimeoutException",
                    "TransportError", "ConnectionError"}
"""The names of httpx's (or requests') transport errors, whichever the Hub's client runs on: named, not
imported, since the client has changed HTTP libraries before."""


class HubFetcher:
    kind = "hub"

    def __init__(self, src: HubSource, where: str):
        self.src = src
        self.where = where

    @property
    def revision(self) -> str:
        if self.src.revision is None:
            raise problem(self.where, "hub.revision", f"no revision given for {self.src.repo}, and the suite's lock "
                          "gives none", "pin the repository's commit sha, or lock the suite: reclaim materials lock "
                          "SUITE")
        return self.src.revision

    def key(self) -> str:
        return f"hub:{self.src.kind}:{self.src.repo}@{self.revision}:{','.join(sorted(self.src.files))}"

    def describe(self) -> str:
        files = f" [{', '.join(self.src.files)}]" if self.src.files else ""
        prefix = "datasets/" if self.src.kind == "dataset" else ""
        return f"hf://{prefix}{self.src.repo}@{(self.src.revision or 'unlocked')[:12]}{files}"

    def fetch(self, dest: Path, scratch: Path) -> int:
        from huggingface_hub import HfApi, snapshot_download
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()
        endpoint = os.environ.get("HF_ENDPOINT") or None
        s = self.src
        api = HfApi(endpoint=endpoint)
        info = self._call(lambda: api.repo_info(s.repo, revision=self.revision, repo_type=s.kind))
        if info.sha != self.revision:
            raise problem(self.where, "hub.revision", f"{s.repo} resolves revision {self.revision} to {info.sha}",
                          "pin the full commit sha the Hub lists for the repository")
        local = scratch / "snapshot"
        self._call(lambda: snapshot_download(
            s.repo, repo_type=s.kind, revision=self.revision, allow_patterns=list(s.files) or None,
            local_dir=local, cache_dir=scratch / "hub-cache", endpoint=endpoint, max_workers=4))
        size = self._verify(local)
        shutil.rmtree(local / ".cache", ignore_errors=True)
        dest.rmdir()
        os.rename(local, dest)
        return size

    def head(self) -> str:
        """The commit the repository's default branch points at now (what a lock records)."""
        from huggingface_hub import HfApi

        api = HfApi(endpoint=os.environ.get("HF_ENDPOINT") or None)
        return self._call(lambda: api.repo_info(self.src.repo, revision="main", repo_type=self.src.kind)).sha

    def _call(self, call):
        from huggingface_hub.errors import (
            FileMetadataError,
            HfHubHTTPError,
            LocalEntryNotFoundError,
            RepositoryNotFoundError,
            RevisionNotFoundError,
        )

        def once():
            try:
                return call()
            except RevisionNotFoundError:
                raise problem(self.where, "hub.revision", f"{self.src.repo} has no revision {self.revision}",
                              "pin a commit sha the repository has (see its commit history on the Hub)") from None
            except RepositoryNotFoundError:
                raise problem(self.where, "hub.repo", f"no {self.src.kind} repository '{self.src.repo}' "
                              f"at {os.environ.get('HF_ENDPOINT') or 'huggingface.co'} (or it is gated or private)",
                              "check the id and kind (model or dataset); set HF_TOKEN for a gated one") from None
            except FileMetadataError as e:
                raise problem(self.where, "hub", f"{os.environ.get('HF_ENDPOINT') or 'the Hub'} does not "
                              f"answer like a Hub: {str(e).splitlines()[0]}", "check HF_ENDPOINT") from None
            except HfHubHTTPError as e:
                if e.response is not None and e.response.status_code in RETRY_STATUS:
                    raise Transient(str(e).splitlines()[0]) from e
                raise problem(self.where, "hub", f"the Hub refused: {str(e).splitlines()[0]}",
                              "check the repository, revision and HF_TOKEN") from None
            except (LocalEntryNotFoundError, OSError) as e:  # connection failures end up here
                if isinstance(e, (FileNotFoundError, PermissionError)) and not isinstance(e, LocalEntryNotFoundError):
                    raise
                raise Transient(str(e).splitlines()[-1] if str(e) else type(e).__name__) from e
            except Exception as e:  # the client's HTTP library's own transport errors (no host, refused, reset)
                if type(e).__name__ not in TRANSPORT_ERRORS:
                    raise
                if no_such_host(e):
                    host = os.environ.get("HF_ENDPOINT") or "huggingface.co"
                    raise problem(self.where, "hub", f"{host} cannot be reached from here ({e})",
                                  "check the network, or HF_ENDPOINT for a mirror") from None
                raise Transient(str(e) or type(e).__name__) from e

        try:
            return with_retries(once, base_s=backoff_s())
        except Transient as e:
            raise problem(self.where, "hub", f"{self.describe()} could not be fetched: {e}",
                          "check HF_ENDPOINT and the network, then fetch again") from None

    def _verify(self, local: Path) -> int:
        """Every file from the pinned commit, matching its ETag; return the total size."""
        meta_root = local / ".cache" / "huggingface" / "download"
        total = 0
        for meta in sorted(meta_root.rglob("*.metadata")):
            rel = meta.relative_to(meta_root).as_posix()[: -len(".metadata")]
            commit, etag = (meta.read_text().splitlines() + ["", ""])[:2]
            if commit != self.revision:
                raise problem(self.where, "hub.revision", f"{rel} came from commit {commit}, "
                              f"not the pinned {self.revision}",
                              "point HF_ENDPOINT at a Hub that serves that revision")
            path = local / rel
            sha1 = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
            sha256 = hashlib.sha256()
            with open(path, "rb") as fh:
                while block := fh.read(1 << 20):
                    sha1.update(block)
                    sha256.update(block)
            if etag not in (sha1.hexdigest(), sha256.hexdigest()):
                raise problem(self.where, "hub", f"{rel} does not match its ETag {etag} "
                              f"(sha256 {sha256.hexdigest()})", "fetch again; if it persists, the server is corrupt")
            total += path.stat().st_size
        return total
