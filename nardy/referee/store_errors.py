"""The match store's errors: :class:`StoreError` (an :class:`OSError`) and its narrow kinds.

Each message says what was being done and why it failed, so the referee can show it as an
alert as it is. :func:`translate` turns an :mod:`sqlite3` error into the right kind.
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

_SQLITE_BUSY = 5
_SQLITE_READONLY = 8
_SQLITE_IOERR = 10
_SQLITE_CORRUPT = 11
_SQLITE_FULL = 13
_SQLITE_CANTOPEN = 14
_SQLITE_NOTADB = 26


class StoreError(OSError):
    """The match database could not do what was asked; the message says what and why."""


class StoreFullError(StoreError):
    """The disk (or the database's size limit) is full. Nothing of the failed call was written;
    everything committed before it is safe. Free space, then record again."""


class StoreCorruptError(StoreError):
    """The file is not a match database, or SQLite found it damaged."""


class StoreSchemaError(StoreError):
    """The database is of a newer schema version than this program, or a migration failed."""


class StoreUsageError(StoreError, ValueError):
    """A request the record cannot take: a turn for a finished game, a picture that is not a JPEG..."""


class StoreNotFoundError(StoreError, LookupError):
    """No match, game or turn with that id, or no database file."""


def translate(exc: sqlite3.Error, what: str, path: Path) -> StoreError:
    """The store's error for an SQLite error that happened while ``what`` (e.g. "saving a turn")."""
    code = getattr(exc, "sqlite_errorcode", None)
    base = None if code is None else code & 0xFF
    text = str(exc)
    where = str(path)
    if base == _SQLITE_FULL or (base is None and "full" in text.lower()):
        return StoreFullError(
            errno.ENOSPC,
            f"the disk is full: {what} failed and nothing of it was saved; everything saved before "
            "is safe. Free some space and record again",
            where,
        )
    if base in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
        return StoreCorruptError(errno.EIO, f"{what}: the file is damaged or not a database ({text})", where)
    if base == _SQLITE_READONLY:
        return StoreError(errno.EROFS, f"{what}: the database is read-only ({text})", where)
    if base == _SQLITE_CANTOPEN:
        return StoreError(errno.ENOENT, f"{what}: cannot open the database file ({text})", where)
    if base == _SQLITE_BUSY:
        return StoreError(errno.EBUSY, f"{what}: another program holds the database ({text})", where)
    if base == _SQLITE_IOERR:
        return StoreError(errno.EIO, f"{what}: the disk reported an error ({text})", where)
    if isinstance(exc, sqlite3.IntegrityError):
        return StoreUsageError(errno.EINVAL, f"{what}: {text}", where)
    return StoreError(errno.EIO, f"{what}: {text}", where)
