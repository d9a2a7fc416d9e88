"""Files that survive kills and concurrency: atomic writes, locks between processes, live-process checks.

* :func:`atomic_write_text` / :func:`atomic_open` -- a file is written to a hidden temporary file in its
  own folder and renamed over the target (``os.replace``) only when complete: a process killed mid-write
  leaves the previous file (or none), never a truncated one. The temporary file is created with mode
  ``0o666`` minus the user's umask (as ``open()`` would), or with the mode of the file it replaces.
  (Atomic against a killed process; a power cut can still lose data the kernel had not flushed.)
* :class:`FileLock` -- an exclusive lock held by this process on a lock file (``fcntl.flock``; the
  operating system releases it when the process dies, so a killed holder never leaves a stale lock).
  The holder's PID is written in the file, so a refused process can say who holds it.
* :func:`process_alive` -- whether a process ID is running on this machine.
* :func:`check_output` -- refuse an output path that cannot be written (a folder where a file is asked, a file
  where a folder is asked or on the way to it) before anything is written: one :class:`~rag_metrics.InputError`.
* :func:`check_writes` -- the one rule every command goes through before it writes: no file it would write is one of
  its inputs, lies inside an input folder, or is another of its outputs (compared resolved, through symbolic and hard
  links), each output can be written (probed, nothing left behind), and a file a person fills in (a labelling sheet,
  a review file) is never replaced without ``force``. One :class:`~rag_metrics.InputError` naming both options.
* :func:`publish_files` -- several files published together: written into one hidden staging folder, then moved
  into place by renames, the file readers look for (the last given) last; a folder that does not exist yet
  appears with all its files in one rename.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["atomic_write_text", "atomic_open", "FileLock", "LockHeld", "process_alive",
           "check_output", "check_writes", "Output", "publish_files", "write_summaries", "write_json", "HOST",
           "machine_name"]


def machine_name() -> str:
    """This machine's name (PIDs are only meaningful on the machine that wrote them), looked up on first use:
    ``socket`` is not imported by the commands that never lock or name a host (``rag-metrics evaluate`` on a small
    run pays for every import)."""
    if "HOST" not in globals():
        import socket

        globals()["HOST"] = socket.gethostname()
    return globals()["HOST"]


def __getattr__(name: str):
    """``HOST``: :func:`machine_name`, the constant of earlier versions, looked up when asked for."""
    if name == "HOST":
        return machine_name()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _temp_path(path: Path) -> Path:
    import threading

    return path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.{os.urandom(4).hex()}.tmp")


def _create(tmp: Path, like: Path):
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        mode = stat.S_IMODE(os.stat(like).st_mode)
    except OSError:
        mode = None
    if mode is not None:
        with contextlib.suppress(OSError):
            os.chmod(tmp, mode)
    return fd


@contextlib.contextmanager
def atomic_open(path, mode: str = "w", *, encoding: str | None = "utf-8", newline: str | None = None) -> Iterator:
    """Open ``path`` for writing (``"w"`` or ``"wb"``) so that it appears only complete: on leaving the block
    without an exception the temporary file replaces ``path``; on an exception it is removed and ``path`` is
    left as it was."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open: mode must be 'w' or 'wb', got {mode!r}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temp_path(path)
    fd = _create(tmp, path)
    try:
        if mode == "wb":
            f = os.fdopen(fd, "wb")
        else:
            f = os.fdopen(fd, "w", encoding=encoding, newline=newline)
        with f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def atomic_write_text(path, text: str, *, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically (module docstring); returns the path."""
    with atomic_open(path, "w", encoding=encoding, newline="") as f:
        f.write(text)
    return Path(path)


def write_json(path, data) -> Path:
    """Write ``data`` as indented JSON (non-ASCII kept) atomically and read it back: an
    :class:`~rag_metrics.InputError` when the file does not hold exactly what was meant."""
    import json

    from rag_metrics.core.errors import InputError

    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    atomic_write_text(path, text)
    if json.loads(Path(path).read_text(encoding="utf-8")) != json.loads(text):
        raise InputError(f"{path}: the file written does not read back unchanged.")
    return Path(path)


def check_output(path, *, folder: bool = False, option: str = "-o") -> Path:
    """``path`` as an output of a command (``folder``: a folder the command writes files into, else a file);
    an :class:`~rag_metrics.InputError` naming the path and ``option`` when it cannot be: a folder given for a
    file, a file given for a folder, a file on the way to it, or a place this process may not create files in
    (probed with a temporary file that is gone at once, so a read-only folder is refused as root too). Nothing is
    created."""
    import tempfile

    from rag_metrics.core.errors import InputError

    path = Path(path)
    if folder and path.exists() and not path.is_dir():
        raise InputError(f"{option}: is a file; expected a folder to write into.", path=path)
    if not folder and path.is_dir():
        raise InputError(f"{option}: is a folder; expected a file to write.", path=path)
    for parent in ([path] if folder else []) + list(path.parents):
        if parent.exists():
            if not parent.is_dir():
                raise InputError(f"{option}: {parent} is a file, so nothing can be written under it.", path=path)
            try:
                with tempfile.TemporaryFile(dir=parent):
                    pass
            except OSError as e:
                raise InputError(f"{option}: cannot write in {parent} ({e.strerror or e}).", path=path) from None
            break
    return path


@dataclass(frozen=True)
class Output:
    """What one option of a command writes. ``path``: a file, or (``folder``) a folder the command writes into;
    ``files``: for a folder, the names it writes there (where known), for a file, the files it writes beside it:
    suffixes (``.meta.json`` -> ``PATH.meta.json``) or functions of the path; ``precious``: of those (``""`` for the
    file itself), the ones a person fills in, never replaced without ``force``."""

    option: str
    path: Path
    folder: bool = False
    files: tuple = ()
    precious: tuple = ()

    def written(self) -> list[tuple[Path, bool]]:
        """``(path, precious)`` of every file this option writes that is known before it runs."""
        if self.folder:
            return [(self.path / name, name in self.precious) for name in self.files]
        return [(self.path, "" in self.precious)] + [
            (Path(side(self.path)) if callable(side) else Path(f"{self.path}{side}"), side in self.precious)
            for side in self.files]


def _real(path: Path) -> str:
    return os.path.realpath(path)


def _same(a: Path, b: Path) -> bool:
    if _real(a) == _real(b):
        return True
    try:
        return os.path.samefile(a, b)  # hard links
    except OSError:
        return False


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or lies in it, resolved; or is a hard link of a file in it."""
    real, top = _real(path), _real(folder)
    if real.startswith(top.rstrip(os.sep) + os.sep) or _same(path, folder):
        return True
    try:
        st = os.stat(path)
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode) or st.st_nlink < 2:
        return False
    for base, _, names in os.walk(folder):
        for name in names:
            with contextlib.suppress(OSError):
                if os.path.samestat(st, os.stat(os.path.join(base, name))):
                    return True
    return False


def check_writes(reads, outputs, *, force: bool = False, force_option: str = "--force") -> None:
    """Refuse, before anything is written, a command whose outputs would change what it reads or each other.

    ``reads``: ``(option, path)`` of every file or folder the command reads; ``outputs``: :class:`Output` of every
    option that writes (a None path is skipped). Raises one :class:`~rag_metrics.InputError` naming both options
    when a file an output writes is an input file (the same path, a symbolic link to it or a hard link of it), lies
    in an input folder, or is written by another output too; when an output folder is an input folder or lies
    in one; when an output cannot be written (:func:`check_output`); and, unless ``force``, when a file a person
    fills in (``Output.precious``) exists already."""
    from rag_metrics.core.errors import InputError

    reads = [(option, Path(p)) for option, p in reads if p is not None and Path(p).exists()]
    outputs = [o for o in outputs if o.path is not None]
    for out in outputs:
        targets = [p for p, _ in out.written()] + ([out.path] if out.folder else [])
        for option, read in reads:
            for target in targets:
                if read.is_dir() and _inside(target, read):
                    raise InputError(f"{out.option}: {target} would be written into the folder given as {option} "
                                     f"({read}), which this command reads; choose an output outside it. Nothing was "
                                     "written.", path=out.path)
                if not read.is_dir() and _same(target, read):
                    what = "is" if target == out.path else f"would write {target}, which is"
                    raise InputError(f"{out.option}: {what} the file given as {option} ({read}); an output never "
                                     "replaces an input: choose another path. Nothing was written.", path=out.path)
    seen: list[tuple[str, Path]] = []
    for out in outputs:
        for target, _ in out.written() + ([(out.path, False)] if out.folder else []):
            for option, other in seen:
                if option != out.option and _same(target, other):
                    raise InputError(f"{out.option} and {option} would both write {target}; give each its own "
                                     "path. Nothing was written.", path=out.path)
            seen.append((out.option, target))
    for out in outputs:
        check_output(out.path, folder=out.folder, option=out.option)
    if not force:
        for out in outputs:
            for target, precious in out.written():
                if precious and target.exists():
                    raise InputError(f"{out.option}: {target} exists and may hold a person's labels or decisions; "
                                     f"give another path, or {force_option} to replace it. Nothing was written.",
                                     path=out.path)


def write_summaries(*, markdown=(None, None), junit=(None, None)) -> None:
    """A CI step's two summaries, both or neither: ``markdown`` ``(path, text)`` appended to ``path`` (a CI summary
    file may hold other steps' text), ``junit`` ``(path, text)`` written whole. The JUnit file is staged first, so a
    failure leaves neither changed; the append comes next, then the staged file is renamed into place."""
    (md_path, md_text), (xml_path, xml_text) = markdown, junit
    staged = None
    if xml_path is not None:
        xml_path = Path(xml_path)
        xml_path.parent.mkdir(parents=True, exist_ok=True)
        staged = _temp_path(xml_path)
        fd = _create(staged, xml_path)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
                f.write(xml_text)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(staged)
            raise
    try:
        if md_path is not None:
            Path(md_path).parent.mkdir(parents=True, exist_ok=True)
            with open(md_path, "a", encoding="utf-8") as f:
                f.write(md_text)
        if staged is not None:
            os.replace(staged, xml_path)
            staged = None
    finally:
        if staged is not None:
            with contextlib.suppress(OSError):
                os.unlink(staged)


def publish_files(files: dict, *, folder=None) -> list[Path]:
    """Write ``files`` (``{path: text or bytes}``; text as UTF-8, a path ending ``.csv`` with a byte-order mark)
    so that they appear together: all are written into one hidden staging folder first; then, when ``folder``
    is given and does not exist yet, the staging folder becomes it (one rename); otherwise each file is moved into
    place (``os.replace``), the last given last -- give the file readers look for last, so that it never appears
    without the others. A failure before the moves leaves every target as it was."""
    import shutil

    targets = [Path(p) for p in files]
    base = Path(folder) if folder is not None else targets[-1].parent
    parent = base.parent if folder is not None else base
    parent.mkdir(parents=True, exist_ok=True)
    staging = parent / f".{base.name}.{os.getpid()}.{os.urandom(4).hex()}.partial"
    os.mkdir(staging)
    try:
        staged = []
        for target, data in zip(targets, files.values()):
            rel = target.relative_to(base) if folder is not None else Path(target.name)
            tmp = staging / rel
            tmp.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(data, bytes):
                tmp.write_bytes(data)
            else:
                encoding = "utf-8-sig" if target.suffix.lower() == ".csv" else "utf-8"
                with open(tmp, "w", encoding=encoding, newline="") as f:
                    f.write(data)
            staged.append(tmp)
        if folder is not None and not base.exists():
            try:
                os.rename(staging, base)
                return targets
            except OSError:
                if not base.exists():
                    raise
        for tmp, target in zip(staged, targets):
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(tmp, target)
        return targets
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this machine (a process we may not signal counts as running)."""
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError as e:  # pragma: no cover - platforms without signal 0
        return e.errno != errno.ESRCH
    return True


class LockHeld(RuntimeError):
    """Another process holds the lock: ``pid`` (None when it could not be read) and ``host``."""

    def __init__(self, path, pid: int | None, host: str | None):
        self.path, self.pid, self.host = str(path), pid, host
        elsewhere = f" on {host}" if host and host != machine_name() else ""
        who = "another process" if pid is None else f"process {pid}" + elsewhere
        super().__init__(f"{path} is locked by {who}")


class FileLock:
    """An exclusive lock on ``path`` between processes (and between threads of one process, each with its own
    ``FileLock``), released on :meth:`release`, on leaving a ``with`` block, or by the operating system when the
    process dies. ``blocking=False`` raises :class:`LockHeld` at once when another holds it; ``timeout``
    (seconds) bounds a blocking wait. The lock file holds ``PID HOST`` of the holder and is removed on release.
    """

    def __init__(self, path, *, blocking: bool = True, timeout: float | None = None):
        self.path = Path(path)
        self.blocking, self.timeout = blocking, timeout
        self._fd: int | None = None

    def _try(self, fd: int) -> bool:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            import msvcrt

            try:
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
                return True
            except OSError:
                return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False

    def holder(self) -> tuple[int | None, str | None]:
        """``(pid, host)`` written by the holder (Nones when unreadable)."""
        try:
            pid, _, host = self.path.read_text(encoding="utf-8").strip().partition(" ")
            return int(pid), host or None
        except (OSError, ValueError):
            return None, None

    def acquire(self) -> FileLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        delay = 0.005
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
            if self._try(fd):
                try:  # the file may have been removed by the previous holder after we opened it: retry then
                    same = os.path.samestat(os.fstat(fd), os.stat(self.path))
                except FileNotFoundError:
                    same = False
                if same:
                    os.ftruncate(fd, 0)
                    os.write(fd, f"{os.getpid()} {machine_name()}\n".encode())
                    self._fd = fd
                    return self
                os.close(fd)
                continue
            os.close(fd)
            if not self.blocking or (deadline is not None and time.monotonic() >= deadline):
                raise LockHeld(self.path, *self.holder())
            time.sleep(delay)
            delay = min(delay * 2, 0.1)

    def release(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.path)  # before unlocking: a waiter that opened it retries on the new file
        os.close(self._fd)  # closing releases the lock
        self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> FileLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
