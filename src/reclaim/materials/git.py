"""A git repository at a pinned commit: fetched shallow by sha, checked, copied without .git."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from reclaim.materials.sources import problem
from reclaim.spec import GitSource

GIT_TIMEOUT_S = 1800.0
MIRRORS_VAR = "RECLAIM_GIT_MIRRORS"
"""Where a repository is fetched from instead of its URL: 'URL=MIRROR' pairs, separated by spaces or
newlines (MIRROR a path or a file:// URL of a clone or a bare mirror). For a machine that cannot reach
the host: the commit pins the content, so a mirror can only serve the same tree or fail."""


def canonical_url(url: str) -> str:
    """A repository URL as mirrors are keyed: no trailing slash, no .git."""
    return url.strip().rstrip("/").removesuffix(".git")


def git_mirrors() -> dict[str, str]:
    out = {}
    for pair in os.environ.get(MIRRORS_VAR, "").split():
        url, sep, mirror = pair.partition("=")
        if sep and url and mirror:
            out[canonical_url(url)] = mirror
    return out


def clean_env(home: Path) -> dict[str, str]:
    """git with no host configuration, no credential prompt, no pager: nothing can hang."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_ASKPASS": "/bin/false",
        "SSH_ASKPASS": "/bin/false",
        "GIT_SSH_COMMAND": "ssh -o BatchMode=yes -o StrictHostKeyChecking=accept-new",
        "GIT_PAGER": "cat",
        "LC_ALL": "C",
    }


class GitFetcher:
    kind = "git"

    def __init__(self, src: GitSource, task_dir: Path, where: str):
        self.src = src
        self.where = where
        self.url = src.url
        if "://" not in src.url and not src.url.startswith("git@") and not Path(src.url).is_absolute():
            self.url = str((Path(task_dir) / src.url).absolute())  # a local path, relative to the task
        self.url = git_mirrors().get(canonical_url(src.url), self.url)
        if src.subdir is not None and (Path(src.subdir).is_absolute() or ".." in Path(src.subdir).parts):
            raise problem(where, "git.subdir", f"'{src.subdir}' leaves the repository",
                          "give a folder relative to the repository root, without '..'")

    def key(self) -> str:
        return f"git:{self.src.commit}:{self.src.subdir or ''}"

    def describe(self) -> str:
        sub = f" ({self.src.subdir})" if self.src.subdir else ""
        return f"{self.src.url}@{self.src.commit[:12]}{sub}"

    def fetch(self, dest: Path, scratch: Path) -> int:
        home = scratch / "home"
        repo = scratch / "repo"
        home.mkdir()
        env = clean_env(home)

        def git(*args: str, check: bool = True) -> subprocess.CompletedProcess:
            try:
                out = subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, check=False,
                                     text=True, timeout=GIT_TIMEOUT_S, stdin=subprocess.DEVNULL)
            except subprocess.TimeoutExpired:
                raise problem(self.where, "git.url", f"git {args[0]} from {self.src.url} ran over "
                              f"{GIT_TIMEOUT_S:.0f} s", "check the URL and the network") from None
            if check and out.returncode != 0:
                raise problem(self.where, "git.url", f"git {args[0]} from {self.src.url} failed: "
                              f"{_tail(out.stderr)}", fix_for(out.stderr))
            return out

        repo.mkdir()
        git("init", "-q")
        git("remote", "add", "origin", self.url)
        commit = self.src.commit
        shallow = git("fetch", "-q", "--depth", "1", "--no-tags", "origin", commit, check=False)
        if shallow.returncode != 0:  # the server refuses a fetch by sha, or cannot be shallow
            git("fetch", "-q", "--no-tags", "origin", "+refs/heads/*:refs/remotes/origin/*",
                "+refs/tags/*:refs/tags/*")
        if git("cat-file", "-e", f"{commit}^{{commit}}", check=False).returncode != 0:
            raise problem(self.where, "git.commit", f"commit {commit} is not in {self.src.url}",
                          "give the full sha of a commit that the repository has (git rev-parse HEAD)")
        git("-c", "advice.detachedHead=false", "checkout", "-q", "--detach", commit)
        head = git("rev-parse", "HEAD").stdout.strip()
        if head != commit:
            raise problem(self.where, "git.commit", f"checked out {head}, not the pinned {commit}",
                          "pin the commit the repository really has")
        size = int(git("count-objects", "-v").stdout.split("size-pack: ")[-1].split()[0]) * 1024
        top = repo / self.src.subdir if self.src.subdir else repo
        if not top.is_dir() or top.is_symlink():
            raise problem(self.where, "git.subdir", f"'{self.src.subdir}' is not a folder at commit {commit[:12]}",
                          "give a folder that exists at that commit")
        shutil.rmtree(repo / ".git")
        dest.rmdir()
        os.rename(top, dest)  # same file system: scratch lies beside dest
        return size


_CAUSES = (
    (("corrupt", "bad object", "index-pack failed", "unpack-objects failed", "did not send all necessary objects",
      "early eof", "inflate", "packfile", "invalid object", "missing blob", "missing tree", "fsck"),
     "the repository arrived corrupt or incomplete: check the remote (git fsck there) or mirror it afresh, "
     "then fetch again"),
    (("could not resolve host", "connection refused", "connection timed out", "network is unreachable",
      "failed to connect", "timed out", "ssl", "tls"),
     "the host could not be reached: check the network, a proxy, or the URL's host name"),
    (("authentication failed", "could not read username", "terminal prompts disabled", "permission denied",
      "repository not found", "not found", "does not appear to be a git repository", "access denied",
      "403", "401"),
     "check that the URL is right and readable without a password"),
)


def fix_for(stderr: str) -> str:
    """The fix for a failed git command, by what git said: a corrupt remote is not a wrong URL."""
    said = stderr.lower()
    for words, fix in _CAUSES:
        if any(w in said for w in words):
            return fix
    return "check the URL and the remote repository (the git message above says what failed)"


def _tail(text: str, lines: int = 3) -> str:
    return " | ".join(text.strip().splitlines()[-lines:]) or "no message"
