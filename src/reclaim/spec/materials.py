"""What the authors released, as a task names it: code, data and weights, each a folder of the suite
or a pinned remote source (git at a commit, a Hub repository at a revision, an HTTP file by its sha256),
and the level those releases allow."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from reclaim.spec.base import Level, Strict


class GitSource(Strict):
    url: str = Field(description="Repository URL (https, ssh, file://) or local path.")
    commit: str = Field(pattern=r"^[0-9a-f]{40}$", description="Full sha of the commit to check out.")
    subdir: str | None = Field(default=None, description="Only this folder of the repository.")


class HttpSource(Strict):
    url: str = Field(pattern=r"^https?://", description="HTTP(S) URL of a file or archive.")
    sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$",
                               description="Expected sha256 of the file; left out, the suite's lock (suite.lock, "
                               "written by reclaim materials lock) must give it.")
    unpack: bool | None = Field(
        default=None, description="Unpack an archive (.zip, .tar, .tar.gz, .tgz, .tar.xz, .tar.bz2); "
        "default: by the URL's suffix.")
    name: str | None = Field(default=None, description="File name to give it; default: the URL's last part.")


class HubSource(Strict):
    repo: str = Field(pattern=r"^[A-Za-z0-9][\w.\-]*(/[\w.\-]+)?$",
                      description="Hugging Face Hub repository id, e.g. 'org/name'.")
    revision: str | None = Field(default=None, pattern=r"^[0-9a-f]{40}$",
                                 description="Full commit sha to pin; left out, the suite's lock (suite.lock, "
                                 "written by reclaim materials lock) must give it.")
    kind: Literal["model", "dataset"] = "model"
    files: list[str] = Field(default_factory=list, description="Only files matching these patterns.")


class MaterialRef(Strict):
    """One released artifact: a folder in the suite, or a pinned remote source."""

    path: str | None = Field(default=None, description="Folder or file relative to the task folder.")
    git: GitSource | None = None
    http: HttpSource | None = None
    hub: HubSource | None = None
    mirrors: list[str] = Field(
        default_factory=list,
        description="URL prefixes or hosts of forks, archives and mirrors of this material: denied "
        "with it when the posed level withholds it.")
    exclude: list[str] = Field(
        default_factory=list,
        description="Paths left out of the material, relative to its root: a folder ('data/') with all it "
        "holds, a file, or a glob ('**/*.ckpt'). So one repository can be posed as code without its data "
        "and as data (git.subdir or path: repo/data) apart.")

    @field_validator("exclude")
    @classmethod
    def _relative(cls, patterns: list[str]) -> list[str]:
        for pat in patterns:
            if not pat.strip("/") or pat.startswith("/") or ".." in pat.split("/"):
                raise ValueError(f"exclude '{pat}' must be a path or glob inside the material, without '..'")
        return patterns

    @model_validator(mode="after")
    def _exactly_one_source(self) -> MaterialRef:
        given = [k for k in ("path", "git", "http", "hub") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(
                f"give exactly one of path, git, http, hub (got {', '.join(given) or 'none'})"
            )
        return self

    @property
    def is_local(self) -> bool:
        return self.path is not None


GENERATED = "generated"


class Materials(Strict):
    """What the authors released. Absent means not released; ``data: generated`` means the
    released code makes its own data (nothing to fetch, bind or withhold)."""

    code: MaterialRef | None = None
    data: MaterialRef | Literal["generated"] | None = None
    weights: MaterialRef | None = None

    @model_validator(mode="after")
    def _generated_by_code(self) -> Materials:
        if self.data == GENERATED and self.code is None:
            raise ValueError("data: generated needs the code that generates it (materials.code)")
        return self

    @property
    def data_generated(self) -> bool:
        return self.data == GENERATED

    def refs(self) -> dict[str, MaterialRef]:
        """The released materials that are artifacts to fetch: generated data is not one."""
        return {n: r for n in ("code", "data", "weights") if isinstance(r := getattr(self, n), MaterialRef)}

    def released_level(self) -> Level:
        """The easiest level these materials allow."""
        if self.code and self.data and self.weights:
            return Level.run
        if self.code and self.data:
            return Level.retrain
        return Level.reimplement

    def allowed(self, level: Level) -> dict[str, MaterialRef]:
        """The materials an agent gets when the task is posed at ``level``."""
        kinds = {Level.run: ("code", "data", "weights"), Level.retrain: ("code", "data")}
        names = kinds.get(level, ("data",))
        return {n: r for n, r in self.refs().items() if n in names}
