"""``tar`` in a fake container, for ``kubectl cp`` (both directions) over the in-memory files, with Python's
``tarfile``. kubectl copies into a pod with ``tar -xmf - -C DIR`` (after ``test -d DEST``) and out of it with
``tar cf - PATH`` (kubectl pkg/cmd/cp/cp.go, v0.37.2); GNU tar's member names drop a leading ``/``, with its
notice on stderr."""

from __future__ import annotations

import io
import posixpath
import tarfile
import time
from typing import TYPE_CHECKING

from fakekube.pods.filesystem import FileSystemError

if TYPE_CHECKING:
    from fakekube.pods.commands import Out, Session


def _parse(args: list[str]) -> tuple[str, str | None, str | None, list[str], bool]:
    """(mode c|x|t, archive file, -C directory, paths, gzip)."""
    mode, archive, directory, paths, gzip = "", None, None, [], False
    pending: list[str] = []
    items = list(args)
    if items and not items[0].startswith("-"):
        items[0] = "-" + items[0]  # old-style bundled letters: ``tar cf - dir``
    i = 0
    while i < len(items):
        a = items[i]
        if a in ("-C", "--directory") and i + 1 < len(items):
            directory = items[i + 1]
            i += 2
            continue
        if a.startswith("--"):
            i += 1
            continue
        if a.startswith("-") and a != "-":
            for letter in a[1:]:
                if letter in "cxt":
                    mode = letter
                elif letter == "z":
                    gzip = True
                elif letter in "fC":
                    pending.append(letter)
            i += 1
            while pending and i < len(items):
                value = items[i]
                if pending.pop(0) == "f":
                    archive = value
                else:
                    directory = value
                i += 1
            continue
        paths.append(a)
        i += 1
    return mode, archive, directory, paths, gzip


def tar_command(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
    mode, archive, directory, paths, gzip = _parse(args)
    base = s.path(directory) if directory else s.cwd
    if directory and not s.files.is_dir(base):
        err(f"tar: {directory}: Cannot open: No such file or directory\n".encode())
        return 2
    if mode == "c":
        buffer = io.BytesIO()
        status = 0
        with tarfile.open(fileobj=buffer, mode="w:gz" if gzip else "w", format=tarfile.GNU_FORMAT) as tar:
            warned = False
            for p in paths:
                full = s.files.resolve(p, base)
                if not s.files.exists(full):
                    err(f"tar: {p}: Cannot stat: No such file or directory\n".encode())
                    status = 2
                    continue
                if p.startswith("/") and not warned:
                    err(b"tar: Removing leading `/' from member names\n")
                    warned = True
                prefix = p.lstrip("/").rstrip("/") or "."
                for path, data in s.files.walk(full):
                    rel = posixpath.relpath(path, full)
                    info = tarfile.TarInfo(prefix if rel == "." else posixpath.join(prefix, rel))
                    info.mtime = int(time.time())
                    info.uname = info.gname = "root"
                    if data is None:
                        info.type, info.mode = tarfile.DIRTYPE, 0o755
                        tar.addfile(info)
                    else:
                        info.size, info.mode = len(data), 0o644
                        tar.addfile(info, io.BytesIO(data))
        if status:
            err(b"tar: Exiting with failure status due to previous errors\n")
        payload = buffer.getvalue()
        if archive in (None, "-"):
            out(payload)
        else:
            s.files.write(s.files.resolve(archive, s.cwd), payload)
        return status
    if mode in ("x", "t"):
        data = s.read_stdin(stdin) if archive in (None, "-") else s.read_file(archive)
        try:
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tar:
                for member in tar:
                    if mode == "t":
                        out(f"{member.name}\n".encode())
                        continue
                    target = s.files.resolve(member.name.lstrip("/"), base)
                    if member.isdir():
                        s.files.mkdir(target, parents=True)
                    elif member.isfile():
                        extracted = tar.extractfile(member)
                        s.files.write(target, extracted.read() if extracted else b"", parents=True)
        except tarfile.TarError as exc:
            err(f"tar: {exc}\ntar: Error is not recoverable: exiting now\n".encode())
            return 2
        except FileSystemError as exc:
            err(f"tar: {exc}\n".encode())
            return 2
        return 0
    err(b"tar: You must specify one of the '-Acdtrux', '--delete' or '--test-label' options\n")
    return 2
