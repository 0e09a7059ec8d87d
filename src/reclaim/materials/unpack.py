"""Unpacking an author's archive, which is untrusted: nothing lands outside the target folder.

tar archives go through tarfile's ``data`` filter (no absolute or ``..`` names, no links that
leave the folder, no devices or fifos, no set-id bits); zip members are checked by name and
written as plain files and folders only.
"""

from __future__ import annotations

import os
import shutil
import stat
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

from reclaim.materials.sources import problem

TAR_SUFFIXES = (".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2", ".tbz", ".tar")
ZIP_SUFFIXES = (".zip",)


def archive_kind(name: str) -> str | None:
    """'tar', 'zip' or None, from a file name's suffix."""
    low = name.lower()
    if low.endswith(TAR_SUFFIXES):
        return "tar"
    if low.endswith(ZIP_SUFFIXES):
        return "zip"
    return None


def sniff(path: Path) -> str | None:
    """'tar' or 'zip' from the file's content."""
    if zipfile.is_zipfile(path):
        return "zip"
    try:
        return "tar" if tarfile.is_tarfile(path) else None
    except OSError:
        return None


def unpack(archive: Path, dest: Path, where: str, field: str) -> None:
    """Unpack ``archive`` into the empty folder ``dest``, or raise naming ``where``.``field``."""
    kind = archive_kind(archive.name) or sniff(archive)
    if kind is None:
        raise problem(where, field, f"'{archive.name}' is not a tar or zip archive",
                      "set unpack: false to keep the file as it is, or give the archive's real name")
    try:
        if kind == "tar":
            _untar(archive, dest)
        else:
            _unzip(archive, dest, where, field)
    except tarfile.FilterError as e:
        raise problem(where, field, f"the archive has an unsafe member, refused: {e}",
                      "repack the archive without absolute paths, '..', links leaving it, or devices") from None
    except (FileExistsError, NotADirectoryError) as e:
        raise problem(where, field, f"the archive names one path twice: {e.filename}",
                      "repack the archive with each path once") from None
    except (tarfile.TarError, zipfile.BadZipFile, EOFError) as e:
        raise problem(where, field, f"the archive could not be read: {e}",
                      "check that the URL serves the archive itself (not an HTML page) and pin its sha256") from None


def _untar(archive: Path, dest: Path) -> None:
    with tarfile.open(archive) as tf:
        tf.extractall(dest, filter="data")


def _unzip(archive: Path, dest: Path, where: str, field: str) -> None:
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            name = info.filename
            parts = PurePosixPath(name.replace("\\", "/")).parts
            if (not parts or name.startswith(("/", "\\")) or ".." in parts
                    or (len(parts[0]) == 2 and parts[0][1] == ":")):
                raise problem(where, field, f"the archive has an unsafe member name '{name}', refused",
                              "repack the archive with relative names inside it")
            mode = info.external_attr >> 16
            if stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # links, devices
                raise problem(where, field, f"the archive member '{name}' is a link or special file, refused",
                              "repack the archive with plain files only")
            out = dest.joinpath(*parts)
            if info.is_dir():
                out.mkdir(parents=True, exist_ok=True)
                continue
            out.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, open(out, "xb") as fh:
                shutil.copyfileobj(src, fh, 1 << 20)
            os.chmod(out, 0o755 if mode & 0o111 else 0o644)
