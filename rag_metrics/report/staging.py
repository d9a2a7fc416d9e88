"""Where a report is assembled before it appears: hidden staging folders, published by one rename.

A report run is built in a hidden folder ``.<stamp>-<host>-<pid>-<token>.partial`` beside the runs
(:func:`make_staging`) and renamed to its timestamp when complete (:func:`publish`), so that concurrent builds and
the index never see half a run; the run history the notebooks add to is a staged copy (:func:`copy_history`,
``...``:data:`STAGED_HISTORY`) merged back once the report is published. :func:`clean_stale_staging` removes what
killed builds left behind.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
from pathlib import Path

from rag_metrics.core.errors import InputError
from rag_metrics.core.files import HOST, process_alive
from rag_metrics.experiment.history import merge_history

__all__ = ["make_staging", "publish", "copy_history", "clean_stale_staging", "host_tag", "STAGED_HISTORY", "PUBLISHED",
           "LEGACY_STAGING_AGE_S"]

_STAGING = re.compile(r"\.(?P<stamp>[0-9]{8}T[0-9]{6}Z)-(?P<host>.+)-(?P<pid>[0-9]+)-(?P<token>[0-9a-f]{8})\.partial")
_LEGACY_STAGING = re.compile(r"\.[0-9]{8}T[0-9]{6}Z-[A-Za-z0-9_]+\.partial")
LEGACY_STAGING_AGE_S = 24 * 3600
"""A staging folder without its builder's process ID (written by an older version) is removed after a day."""


def host_tag() -> str:
    return re.sub(r"[^A-Za-z0-9._]", "_", HOST) or "host"


def make_staging(folder: Path, stamp: str) -> Path:
    """A new hidden staging folder named after this process (``.<stamp>-<host>-<pid>-<token>.partial``), created
    with ``os.mkdir`` so that its mode follows the user's umask like any folder the user makes (``mkdtemp`` makes
    0700, which teammates and web servers cannot read once it is published)."""
    while True:
        staging = folder / f".{stamp}-{host_tag()}-{os.getpid()}-{secrets.token_hex(4)}.partial"
        try:
            os.mkdir(staging)
            return staging
        except FileExistsError:  # pragma: no cover - a 32-bit token collision
            continue


def clean_stale_staging(folder) -> list[Path]:
    """Remove the staging folders of report builds whose process is gone (killed, crashed): those named after a
    process of this machine that no longer runs, and unnamed ones older than :data:`LEGACY_STAGING_AGE_S`; a
    staged history whose report was published (:data:`PUBLISHED`) is merged into the history first.
    Returns what was removed. Builds running on other machines (a shared disk) are left alone."""
    import time

    removed = []
    folder = Path(folder)
    if not folder.is_dir():
        return removed
    for path in [*folder.glob(".*.partial"), *folder.glob(f".*{STAGED_HISTORY}")]:
        if not path.is_dir():
            continue
        m = _STAGING.fullmatch(path.name.removesuffix(STAGED_HISTORY) + ".partial") \
            if path.name.endswith(STAGED_HISTORY) else _STAGING.fullmatch(path.name)
        if m:
            stale = m.group("host") == host_tag() and not process_alive(int(m.group("pid")))
        else:
            try:
                stale = bool(_LEGACY_STAGING.fullmatch(path.name)) and \
                    time.time() - path.stat().st_mtime > LEGACY_STAGING_AGE_S
            except OSError:
                stale = False
        if stale:
            published = path / PUBLISHED
            if path.name.endswith(STAGED_HISTORY) and published.is_file():  # killed between publishing and merging
                try:
                    done = json.loads(published.read_text(encoding="utf-8"))
                    merge_history(path, done["history_dir"], skip=done["skip"])
                except (OSError, ValueError, KeyError, TypeError, InputError):
                    pass  # unreadable marker: the runs stay out of the history, as for any failed report
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def publish(staging: Path, folder: Path, stamp: str) -> Path:
    """Move the finished staging folder to ``folder/stamp`` (``stamp-2``, ... if taken): one atomic rename."""
    suffix = 1
    while True:
        target = folder / (stamp if suffix == 1 else f"{stamp}-{suffix}")
        try:
            os.rename(staging, target)
            return target
        except OSError:
            if not target.exists():
                raise
            suffix += 1


def copy_history(history_dir: Path, staged_history: Path) -> list[str]:
    """Make the staging copy of the run history (a new folder ``staged_history``) from ``history_dir``'s
    ``*.json`` files (none when it does not exist yet); returns the names copied (the runs not to merge back)."""
    copied = []
    staged_history.mkdir()
    for p in sorted(history_dir.glob("*.json")) if history_dir.is_dir() else []:
        shutil.copyfile(p, staged_history / p.name)
        copied.append(p.name)
    return copied


STAGED_HISTORY = ".history"
"""Suffix of the staging copy of the history beside a report being built (``.<stamp>-<host>-<pid>-<token>.history``
in the experiment's folder, never inside the published run; removed once its runs are merged)."""
PUBLISHED = "published.json"
"""Written into the staging copy of the history once its report is published without a failure: a build killed
before merging leaves it, and the next build (:func:`clean_stale_staging`) merges the runs then."""


