"""Links to released materials, found in a paper's abstract, text and footnotes: code (GitHub,
GitLab, Bitbucket, project pages), data (Hugging Face datasets, Zenodo, Kaggle, figshare, Google
Drive) and weights (Hugging Face models, release assets). Anonymised review links are rejected,
and a promise without a link ("code will be released") is noted as such, never taken for a release."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

URL = re.compile(r"(?:https?://|(?<![\w./-])(?=(?:www\.)?(?:github|gitlab|huggingface|zenodo|kaggle|figshare|bitbucket)\.))"
                 r"[^\s<>()\[\]{}\"'`,;]+", re.I)
TRAILING = ".,;:!?)]}'\""
PLACEHOLDER = re.compile(r"\b(?:code|models?|weights|data(?:sets?)?|implementation|checkpoints?)\b[^.\n]{0,60}?"
                         r"\b(?:will be (?:made )?(?:publicly )?(?:released|available|open[- ]sourced|published)|"
                         r"to be released|coming soon|upon (?:acceptance|publication|request)|available on request)",
                         re.I)
ANONYMOUS_HOSTS = ("anonymous.4open.science", "anonymous.4open", "anon-github.automl.cc", "anonymous-url")
ANONYMOUS_PATH = re.compile(r"/(?:anonymous|anonymized|anon)[\w-]*(?:/|$)", re.I)


class Link(BaseModel):
    url: str
    kind: str = Field(description="code, data, weights, page or other.")
    host: str
    ref: str = Field("", description="What an API names it by: owner/repo, an HF id, a Zenodo record.")
    rejected: str = Field("", description="Why it cannot be a release (anonymised), else empty.")


def _clean(url: str) -> str:
    url = url.rstrip(TRAILING)
    if not url.lower().startswith(("http://", "https://")):
        url = "https://" + url
    return url


def classify(url: str) -> Link:
    """What a URL points at, by its host and path."""
    parts = urlsplit(url)
    host = parts.netloc.lower().removeprefix("www.")
    path = [p for p in parts.path.split("/") if p]
    link = Link(url=url, kind="other", host=host)
    if host in ANONYMOUS_HOSTS or any(host.endswith("." + h) for h in ANONYMOUS_HOSTS) or \
            (host in ("github.com", "gitlab.com") and ANONYMOUS_PATH.search(parts.path)):
        link.rejected = "an anonymised review link"
        link.kind = "code"  # what such hosts serve: the code under review, kept from the public
    if host in ("github.com", "gitlab.com", "bitbucket.org") and len(path) >= 2:
        repo = path[1].removesuffix(".git")
        link.ref = f"{path[0]}/{repo}"
        link.kind = "weights" if len(path) >= 4 and path[2] == "releases" and "download" in path else "code"
    elif host == "huggingface.co" and path:
        if path[0] == "datasets" and len(path) >= 3:
            link.kind, link.ref = "data", f"{path[1]}/{path[2]}"
        elif path[0] == "spaces":
            link.kind = "page"
        elif len(path) >= 2 and path[0] not in ("papers", "docs", "blog"):
            link.kind, link.ref = "weights", f"{path[0]}/{path[1]}"
    elif host in ("zenodo.org", "kaggle.com", "figshare.com", "drive.google.com", "dataverse.harvard.edu") or \
            host.endswith(".figshare.com"):
        link.kind = "data"
        if host == "zenodo.org" and len(path) >= 2 and path[0] in ("record", "records"):
            link.ref = path[1]
    elif host.endswith(".github.io"):
        link.kind = "page"
    return link


def find_links(text: str) -> list[Link]:
    """Every distinct link in the text, classified, in the order first seen."""
    seen: dict[str, Link] = {}
    for m in URL.finditer(text):
        url = _clean(m.group(0))
        key = url.lower().rstrip("/").removesuffix(".git")
        if key not in seen and urlsplit(url).netloc:
            seen[key] = classify(url)
    return list(seen.values())


def placeholders(text: str) -> list[str]:
    """Promises of a later release ("code will be released upon acceptance"), as written."""
    return [" ".join(m.group(0).split()) for m in PLACEHOLDER.finditer(text)]
