"""``sh -c`` for fake containers: words, quotes, ``$VAR``, ``;``, ``&&``, ``||``, ``|`` and redirections
(``>``, ``>>``, ``<``, ``2>&1``, ``2>/dev/null``), each command run by ``fakekube.pods.commands``.

Pipes run their stages one after another (the left side's output becomes the right side's input): enough for
what clients send (``tar cf - dir | tail -c+N``, ``echo x | cat``), not for stages that wait on each other.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

OPERATORS = ("&&", "||", "1>&2", ">&2", "2>&1", "2>>", "2>", "1>>", "1>", ">>", ">", "<", ";", "|", "&")


class ShellSyntaxError(Exception):
    pass


@dataclass
class Word:
    text: str


@dataclass
class Op:
    text: str


def tokenize(line: str, env: dict[str, str], last_status: int = 0,
             substitute: Callable[[str], str] | None = None) -> list[Word | Op]:
    """Split a command line as a POSIX shell does, expanding ``$VAR``, ``${VAR}``, ``$?`` and ``$(command)``
    (its output, by ``substitute``; split into words outside double quotes) outside single quotes (no
    globbing)."""
    tokens: list[Word | Op] = []
    word: list[str] = []
    in_word = False
    i, n = 0, len(line)

    def expand_at(j: int) -> tuple[str, int]:
        if j + 1 < n and line[j + 1] == "(":
            depth, k = 1, j + 2
            while k < n and depth:
                depth += {"(": 1, ")": -1}.get(line[k], 0)
                k += 1
            if depth:
                raise ShellSyntaxError("Syntax error: end of file unexpected (expecting \")\")")
            output = substitute(line[j + 2:k - 1]) if substitute is not None else ""
            return output.rstrip("\n"), k
        if j + 1 < n and line[j + 1] == "{":
            end = line.find("}", j + 2)
            if end < 0:
                raise ShellSyntaxError("Bad substitution")
            return env.get(line[j + 2:end], ""), end + 1
        if j + 1 < n and line[j + 1] == "?":
            return str(last_status), j + 2
        k = j + 1
        while k < n and (line[k].isalnum() or line[k] == "_"):
            k += 1
        if k == j + 1:
            return "$", j + 1
        return env.get(line[j + 1:k], ""), k

    def end_word() -> None:
        nonlocal word, in_word
        if in_word:
            tokens.append(Word("".join(word)))
        word, in_word = [], False

    while i < n:
        c = line[i]
        if c in " \t\n":
            end_word()
            i += 1
        elif c == "#" and not in_word:
            while i < n and line[i] != "\n":
                i += 1
        elif c == "'":
            end = line.find("'", i + 1)
            if end < 0:
                raise ShellSyntaxError("Unterminated quoted string")
            word.append(line[i + 1:end])
            in_word, i = True, end + 1
        elif c == '"':
            i += 1
            in_word = True
            while i < n and line[i] != '"':
                if line[i] == "\\" and i + 1 < n and line[i + 1] in '"\\$`':
                    word.append(line[i + 1])
                    i += 2
                elif line[i] == "$":
                    text, i = expand_at(i)
                    word.append(text)
                else:
                    word.append(line[i])
                    i += 1
            if i >= n:
                raise ShellSyntaxError("Unterminated quoted string")
            i += 1
        elif c == "\\" and i + 1 < n:
            word.append(line[i + 1])
            in_word, i = True, i + 2
        elif c == "$":
            substituted = line.startswith("$(", i)
            text, i = expand_at(i)
            if substituted:  # unquoted: field splitting
                fields = text.split()
                if fields and text[:1].isspace():
                    end_word()
                for index, field_ in enumerate(fields):
                    if index:
                        end_word()
                    word.append(field_)
                    in_word = True
                if fields and text[-1:].isspace():
                    end_word()
            else:
                word.append(text)
                in_word = True
        else:
            op = next((o for o in OPERATORS if line.startswith(o, i)), None)
            if op is not None and not (op[0] in "12" and in_word):
                end_word()
                tokens.append(Op(op))
                i += len(op)
            else:
                word.append(c)
                in_word, i = True, i + 1
    end_word()
    return tokens


@dataclass
class Simple:
    """One command with its redirections."""

    argv: list[str] = field(default_factory=list)
    stdout_to: tuple[str, bool] | None = None  # (path, append)
    stdin_from: str | None = None
    stderr_to: str | None = None  # a path, or "&1"


def parse(tokens: list[Word | Op]) -> list[tuple[str, list[Simple]]]:
    """Pipelines, each with the operator that joins it to the one before (";" first)."""
    out: list[tuple[str, list[Simple]]] = []
    joiner = ";"
    pipeline: list[Simple] = [Simple()]
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        cmd = pipeline[-1]
        if isinstance(tok, Word):
            cmd.argv.append(tok.text)
        elif tok.text in (">", ">>", "1>", "1>>", "<", "2>", "2>>"):
            if i + 1 >= len(tokens) or not isinstance(tokens[i + 1], Word):
                raise ShellSyntaxError(f'Syntax error: {"newline" if i + 1 >= len(tokens) else tokens[i + 1].text}'
                                       " unexpected")
            target = tokens[i + 1].text  # type: ignore[union-attr]
            if tok.text == "<":
                cmd.stdin_from = target
            elif tok.text.startswith("2"):
                cmd.stderr_to = target
            else:
                cmd.stdout_to = (target, tok.text.endswith(">>"))
            i += 1
        elif tok.text == "2>&1":
            cmd.stderr_to = "&1"
        elif tok.text in (">&2", "1>&2"):
            cmd.stdout_to = ("&2", False)
        elif tok.text == "|":
            if not cmd.argv:
                raise ShellSyntaxError('Syntax error: "|" unexpected')
            pipeline.append(Simple())
        elif tok.text in (";", "&&", "||", "&"):
            if not cmd.argv and (tok.text != ";" or len(pipeline) > 1):
                raise ShellSyntaxError(f'Syntax error: "{tok.text}" unexpected')
            if cmd.argv:
                out.append((joiner, pipeline))
            joiner = ";" if tok.text == "&" else tok.text
            pipeline = [Simple()]
        i += 1
    if pipeline[-1].argv:
        out.append((joiner, pipeline))
    elif len(pipeline) > 1 or joiner in ("&&", "||"):
        raise ShellSyntaxError("Syntax error: end of file unexpected")
    return out


# Runs one simple command: (argv, stdin bytes or None for the process's stdin, out, err) → exit status.
Runner = Callable[[list[str], "bytes | None", Callable[[bytes], None], Callable[[bytes], None]], int]


FOR_LOOP = re.compile(r"^\s*for\s+([A-Za-z_]\w*)\s+in\s+(.*?)\s*;\s*do\s+(.*?)\s*;?\s*done\s*(?:;\s*(.*))?$", re.S)


def for_loop(text: str) -> tuple[str, str, str, str] | None:
    """A script that is one ``for NAME in WORDS; do BODY; done`` (then more): (name, words, body, rest)."""
    m = FOR_LOOP.match(text)
    return (m.group(1), m.group(2), m.group(3), m.group(4) or "") if m else None
