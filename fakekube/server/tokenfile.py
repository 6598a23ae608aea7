"""kube-apiserver's static token file (``--token-auth-file``): one identity per bearer token.

A CSV file, one record a line: ``token,user name,user uid[,"group1,group2,..."]``, read as kube-apiserver reads
it (k8s.io/apiserver v0.37.2 ``pkg/authentication/token/tokenfile/tokenfile.go``, ``NewCSV``): Go's
``encoding/csv`` with any number of fields per record; a record of fewer than three fields stops the server
("token file '...' must have at least 3 columns (token, user name, user uid), found N"); a record with an empty
token is skipped with a warning, as is noted a token seen before (the later record wins); the fourth field, if
any, is split on commas into the groups, as given (no trimming, an empty field is one empty group). Go's reader
is strict about quotes (a ``"`` inside an unquoted field is an error), and so is this one. Errors and warnings
name the file's line, which kube-apiserver's do not.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from fakekube.identity import UserInfo

__all__ = ["TokenFile", "TokenFileError", "read_token_file"]


class TokenFileError(ValueError):
    """The file cannot be used (kube-apiserver exits on the same file)."""


@dataclass
class TokenFile:
    tokens: dict[str, UserInfo] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def read_token_file(path: str | Path) -> TokenFile:
    path = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TokenFileError(f"token file '{path}': {exc}") from exc
    bare = _bare_quote(text)
    if bare is not None:
        line, column = bare
        raise TokenFileError(f"token file '{path}': parse error on line {line}, column {column}: "
                             'bare " in non-quoted-field')
    out = TokenFile()
    reader = csv.reader(text.splitlines(keepends=True), strict=True)
    number = 0
    while True:
        try:
            record = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise TokenFileError(f"token file '{path}', line {reader.line_num}: {exc}") from exc
        if not record:  # Go's reader skips empty lines
            continue
        line = reader.line_num
        if len(record) < 3:
            raise TokenFileError(f"token file '{path}' must have at least 3 columns (token, user name, user uid), "
                                 f"found {len(record)} (line {line})")
        number += 1
        token = record[0]
        if token == "":
            out.warnings.append(f"empty token has been found in token file '{path}', record number '{number}' "
                                f"(line {line})")
            continue
        if token in out.tokens:
            out.warnings.append(f"duplicate token has been found in token file '{path}', record number '{number}' "
                                f"(line {line})")
        groups = tuple(record[3].split(",")) if len(record) >= 4 else ()
        out.tokens[token] = UserInfo(record[1], uid=record[2], groups=groups)
    return out


def _bare_quote(text: str) -> tuple[int, int] | None:
    """Where Go's ``encoding/csv`` (without ``LazyQuotes``) finds a quote inside a field that does not start with
    one — Python's reader takes it as a character — as (line, column), both from 1."""
    line, column, quoted, field_start, after_quote = 1, 0, False, True, False
    for char in text:
        column += 1
        if quoted:
            if char == '"':
                quoted, after_quote = False, True  # the field's end, or the first of a doubled quote
            elif char == "\n":
                line, column = line + 1, 0
            continue
        if char == '"':
            if field_start or after_quote:  # a field's opening quote, or the second of a doubled one
                quoted, field_start, after_quote = True, False, False
                continue
            return line, column
        after_quote = False
        if char in ",\n":
            field_start = True
            if char == "\n":
                line, column = line + 1, 0
        elif char != "\r":
            field_start = False
    return None
