"""The POSIX shell language's tokens (IEEE Std 1003.1-2017, XCU 2.3 "Token Recognition"): words with their quotes
kept, operators, newlines, IO numbers and here-document bodies; ``fakekube.pods.shell`` parses them."""

from __future__ import annotations

from dataclasses import dataclass

_OPERATORS = ("&&", "||", ";;", "<<-", "<<", ">>", ">&", "<&", ">|", "&>", ";", "&", "|", "(", ")", "<", ">")
_META = " \t\n;&|<>()"


class ShellSyntaxError(Exception):
    pass


@dataclass
class Token:
    kind: str  # word | op | newline | io (an IO number: the fd of the redirection that follows)
    text: str
    heredoc: list[str] | None = None  # a ``<<`` operator's body, filled at the end of its line
    delimiter: str | None = None  # a ``<<`` operator's delimiter (the next word, quotes removed)


def literal(raw: str) -> str | None:
    """A word's text when it needs no expansion (no ``$`` or backquote), quotes removed; else None."""
    if "$" in raw or "`" in raw:
        return None
    out, i = [], 0
    while i < len(raw):
        c = raw[i]
        if c == "'":
            end = raw.index("'", i + 1)
            out.append(raw[i + 1:end])
            i = end + 1
        elif c == '"':
            i += 1
            while raw[i] != '"':
                if raw[i] == "\\" and raw[i + 1] in '"\\$`':
                    i += 1
                out.append(raw[i])
                i += 1
            i += 1
        elif c == "\\" and i + 1 < len(raw):
            out.append(raw[i + 1])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


# -- lexing ---------------------------------------------------------------------------------------------------

def skip_balanced(text: str, i: int, open_: str, close: str) -> int:
    """The index after the ``close`` matching the ``open_`` before ``i`` (quotes inside skipped)."""
    depth, n = 1, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'" and open_ == "(":
            end = text.find("'", i + 1)
            i = (end if end >= 0 else n) + 1
            continue
        if c == '"':
            i = _skip_double(text, i + 1)
            continue
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if not depth:
                return i + 1
        i += 1
    raise ShellSyntaxError(f'Syntax error: end of file unexpected (expecting "{close}")')


def _skip_double(text: str, i: int) -> int:
    """The index after the ``"`` closing the double-quoted string that starts at ``i``."""
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        else:
            i = _skip_substitution(text, i)
    raise ShellSyntaxError('Syntax error: Unterminated quoted string')


def _skip_substitution(text: str, i: int) -> int:
    """The index after the ``$(...)``, ``${...}`` or backquoted substitution that starts at ``i``; ``i + 1``
    where none does."""
    if text.startswith("$(", i):
        return skip_balanced(text, i + 2, "(", ")")
    if text.startswith("${", i):
        return skip_balanced(text, i + 2, "{", "}")
    if text[i] == "`":
        end = text.find("`", i + 1)
        if end < 0:
            raise ShellSyntaxError("Syntax error: EOF in backquote substitution")
        return end + 1
    return i + 1


def lex(text: str) -> list[Token]:
    tokens: list[Token] = []
    pending: list[Token] = []  # here-document operators whose bodies start on the next line
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t":
            i += 1
        elif c == "\\" and text.startswith("\\\n", i):
            i += 2
        elif c == "#":
            while i < n and text[i] != "\n":
                i += 1
        elif c == "\n":
            tokens.append(Token("newline", "\n"))
            i += 1
            i = _read_heredocs(text, i, pending)
        else:
            op = next((o for o in _OPERATORS if text.startswith(o, i)), None)
            if op is not None:
                token = Token("op", op)
                tokens.append(token)
                if op in ("<<", "<<-"):
                    pending.append(token)
                i += len(op)
                continue
            start = i
            while i < n and text[i] not in _META:
                ch = text[i]
                if ch == "\\":
                    i += 2
                elif ch == "'":
                    end = text.find("'", i + 1)
                    if end < 0:
                        raise ShellSyntaxError("Syntax error: Unterminated quoted string")
                    i = end + 1
                elif ch == '"':
                    i = _skip_double(text, i + 1)
                elif text.startswith("$((", i):
                    i = skip_balanced(text, i + 3, "(", ")") + 1
                else:
                    i = _skip_substitution(text, i)
            word = text[start:min(i, n)]
            if word.isdigit() and i < n and text[i] in "<>":
                tokens.append(Token("io", word))
            else:
                if tokens and tokens[-1].kind == "op" and tokens[-1].text in ("<<", "<<-"):
                    tokens[-1].delimiter = literal(word) or word
                tokens.append(Token("word", word))
    if pending:
        _read_heredocs(text + "\n", n, pending)
    return tokens


def _read_heredocs(text: str, i: int, pending: list[Token]) -> int:
    """Bodies of the here-documents opened on the line that just ended, from ``i``; the index after them."""
    # A here-document's delimiter is the word after its operator; the lexer has read it by now.
    while pending:
        token = pending.pop(0)
        token.heredoc = []
        delimiter = token.delimiter
        strip_tabs = token.text == "<<-"
        while i < len(text):
            end = text.find("\n", i)
            line = text[i:end if end >= 0 else len(text)]
            i = end + 1 if end >= 0 else len(text)
            if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                break
            token.heredoc.append(line.lstrip("\t") if strip_tabs else line)
    return i
