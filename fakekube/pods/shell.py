"""The POSIX shell language for fake containers: a recursive-descent parser to a small syntax tree over the
tokens of ``fakekube.pods.shelllex`` (``fakekube.pods.interpreter`` runs the tree).

The grammar is the POSIX Shell Command Language's (IEEE Std 1003.1-2017, XCU 2.10 "Shell Grammar"): lists with
``;``, ``&`` and newlines, ``&&``/``||``, pipelines with ``!``, simple commands with assignments and
redirections (``>``, ``>>``, ``<``, ``N>``, ``>&N``, ``<<`` here-documents), and the compound commands
``if``/``elif``/``else``, ``while``, ``until``, ``for``, ``case``, ``{ ...; }``, ``( ... )`` and function
definitions. Words keep their source text (quotes included); expansion happens when a command runs, as in a
shell, so a loop sees the variable's value of each iteration.

Not parsed: ``[[``, arrays and other bash extensions (``[[`` is an ordinary word, so ``sh: [[: not found``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fakekube.pods.shelllex import ShellSyntaxError, Token, lex, literal

RESERVED = frozenset({"if", "then", "elif", "else", "fi", "do", "done", "case", "esac", "while", "until", "for",
                      "in", "{", "}", "!"})
@dataclass
class Word:
    raw: str  # as written, quotes included

    @property
    def literal(self) -> str | None:
        """The word's text when it needs no expansion (no ``$`` or backquote), quotes removed; else None."""
        return literal(self.raw)


@dataclass
class Redirect:
    fd: int
    op: str  # > >> < >& <& << (here-document: ``body`` holds it)
    target: Word
    body: str | None = None
    quoted: bool = False  # a here-document whose delimiter was quoted: no expansion


@dataclass
class Simple:
    assigns: list[tuple[str, Word]] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Pipeline:
    commands: list[Node]
    negate: bool = False


@dataclass
class AndOr:
    parts: list[tuple[str, Pipeline]]  # ("", first), ("&&", next), ("||", next)


@dataclass
class Sequence:
    items: list[tuple[AndOr, bool]]  # (command, run in the background)


@dataclass
class If:
    clauses: list[tuple[Sequence, Sequence]]
    otherwise: Sequence | None = None
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Loop:
    condition: Sequence
    body: Sequence
    until: bool = False
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class For:
    name: str
    words: list[Word] | None  # None: ``for x; do`` (the positional parameters)
    body: Sequence
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Case:
    word: Word
    items: list[tuple[list[Word], Sequence]]
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Group:
    body: Sequence
    subshell: bool = False
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Function:
    name: str
    body: Node


Node = Simple | If | Loop | For | Case | Group | Function


# -- parsing --------------------------------------------------------------------------------------------------

class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.i = 0

    def peek(self) -> Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def at_word(self, *words: str) -> bool:
        t = self.peek()
        return t is not None and t.kind == "word" and t.text in words

    def at_op(self, *ops: str) -> bool:
        t = self.peek()
        return t is not None and t.kind == "op" and t.text in ops

    def unexpected(self) -> ShellSyntaxError:
        t = self.peek()
        what = "end of file" if t is None else "newline" if t.kind == "newline" else f'"{t.text}"'
        return ShellSyntaxError(f"Syntax error: {what} unexpected")

    def expect_word(self, word: str) -> None:
        if not self.at_word(word):
            t = self.peek()
            if t is None:
                raise ShellSyntaxError(f'Syntax error: end of file unexpected (expecting "{word}")')
            raise self.unexpected()
        self.i += 1

    def linebreak(self) -> None:
        while (t := self.peek()) is not None and t.kind == "newline":
            self.i += 1

    def sequence(self, *stops: str) -> Sequence:
        """Commands up to one of the reserved words ``stops`` (or ``)``/``;;``/end of input)."""
        items: list[tuple[AndOr, bool]] = []
        while True:
            self.linebreak()
            t = self.peek()
            if t is None or self.at_word(*stops) or self.at_op(")", ";;"):
                break
            node = self.and_or()
            background = False
            if self.at_op(";", "&"):
                background = self.peek().text == "&"  # type: ignore[union-attr]
                self.i += 1
            elif (t := self.peek()) is not None and t.kind != "newline" and not self.at_op(")", ";;") \
                    and not self.at_word(*stops):
                raise self.unexpected()
            items.append((node, background))
        return Sequence(items)

    def and_or(self) -> AndOr:
        parts = [("", self.pipeline())]
        while self.at_op("&&", "||"):
            op = self.peek().text  # type: ignore[union-attr]
            self.i += 1
            self.linebreak()
            parts.append((op, self.pipeline()))
        return AndOr(parts)

    def pipeline(self) -> Pipeline:
        negate = False
        if self.at_word("!"):
            negate = True
            self.i += 1
        commands = [self.command()]
        while self.at_op("|"):
            self.i += 1
            self.linebreak()
            commands.append(self.command())
        return Pipeline(commands, negate)

    def command(self) -> Node:
        t = self.peek()
        if t is None:
            raise self.unexpected()
        node: Node
        if t.kind == "word" and t.text in ("if", "while", "until", "for", "case", "{"):
            self.i += 1
            node = {"if": self.if_, "while": self.loop, "until": self.loop, "for": self.for_, "case": self.case,
                    "{": self.group}[t.text](t.text)
        elif self.at_op("("):
            self.i += 1
            body = self.sequence()
            if not self.at_op(")"):
                raise self.unexpected()
            self.i += 1
            node = Group(body, subshell=True)
        elif (t.kind == "word" and self.i + 2 < len(self.tokens) and self.tokens[self.i + 1].text == "("
              and self.tokens[self.i + 2].text == ")" and t.text not in RESERVED):
            self.i += 3
            self.linebreak()
            return Function(t.text, self.command())
        else:
            return self.simple()
        while (redirect := self.redirect()) is not None:
            node.redirects.append(redirect)  # type: ignore[union-attr]
        return node

    def redirect(self) -> Redirect | None:
        fd: int | None = None
        t = self.peek()
        if t is not None and t.kind == "io":
            fd = int(t.text)
            self.i += 1
        if not self.at_op(">", ">>", "<", ">&", "<&", ">|", "&>", "<<", "<<-"):
            if fd is not None:
                raise self.unexpected()
            return None
        op_token = self.peek()
        assert op_token is not None
        self.i += 1
        target = self.peek()
        if target is None or target.kind != "word":
            raise self.unexpected()
        self.i += 1
        op = {">|": ">"}.get(op_token.text, op_token.text)
        if op in ("<<", "<<-"):
            body = "".join(line + "\n" for line in op_token.heredoc or ())
            quoted = any(q in target.text for q in "'\"\\")
            return Redirect(0 if fd is None else fd, "<<", Word(target.text), body=body, quoted=quoted)
        default = 0 if op in ("<", "<&") else 1
        return Redirect(default if fd is None else fd, op, Word(target.text))

    def simple(self) -> Simple:
        cmd = Simple()
        while True:
            redirect = self.redirect()
            if redirect is not None:
                cmd.redirects.append(redirect)
                continue
            t = self.peek()
            if t is None or t.kind != "word":
                break
            if not cmd.words and "=" in t.text and _is_name(t.text.split("=", 1)[0]):
                name, value = t.text.split("=", 1)
                cmd.assigns.append((name, Word(value)))
            elif not cmd.words and not cmd.assigns and t.text in RESERVED:
                raise self.unexpected()
            else:
                cmd.words.append(Word(t.text))
            self.i += 1
        if not (cmd.words or cmd.assigns or cmd.redirects):
            raise self.unexpected()
        return cmd

    def if_(self, _: str) -> If:
        clauses = []
        condition = self.sequence("then")
        self.expect_word("then")
        clauses.append((condition, self.sequence("elif", "else", "fi")))
        otherwise = None
        while True:
            if self.at_word("elif"):
                self.i += 1
                condition = self.sequence("then")
                self.expect_word("then")
                clauses.append((condition, self.sequence("elif", "else", "fi")))
            elif self.at_word("else"):
                self.i += 1
                otherwise = self.sequence("fi")
            else:
                break
        self.expect_word("fi")
        return If(clauses, otherwise)

    def loop(self, keyword: str) -> Loop:
        condition = self.sequence("do")
        self.expect_word("do")
        body = self.sequence("done")
        self.expect_word("done")
        return Loop(condition, body, until=keyword == "until")

    def for_(self, _: str) -> For:
        t = self.peek()
        if t is None or t.kind != "word" or not _is_name(t.text):
            raise self.unexpected()
        name = t.text
        self.i += 1
        words: list[Word] | None = None
        self.linebreak()
        if self.at_word("in"):
            self.i += 1
            words = []
            while (t := self.peek()) is not None and t.kind == "word":
                words.append(Word(t.text))
                self.i += 1
        if self.at_op(";"):
            self.i += 1
        self.linebreak()
        self.expect_word("do")
        body = self.sequence("done")
        self.expect_word("done")
        return For(name, words, body)

    def case(self, _: str) -> Case:
        t = self.peek()
        if t is None or t.kind != "word":
            raise self.unexpected()
        word = Word(t.text)
        self.i += 1
        self.linebreak()
        self.expect_word("in")
        items: list[tuple[list[Word], Sequence]] = []
        self.linebreak()
        while not self.at_word("esac"):
            if self.at_op("("):
                self.i += 1
            patterns = []
            while True:
                t = self.peek()
                if t is None or t.kind != "word":
                    raise self.unexpected()
                patterns.append(Word(t.text))
                self.i += 1
                if self.at_op("|"):
                    self.i += 1
                    continue
                break
            if not self.at_op(")"):
                raise self.unexpected()
            self.i += 1
            body = self.sequence("esac")
            items.append((patterns, body))
            if self.at_op(";;"):
                self.i += 1
            self.linebreak()
        self.expect_word("esac")
        return Case(word, items)

    def group(self, _: str) -> Group:
        body = self.sequence("}")
        self.expect_word("}")
        return Group(body)


def _is_name(text: str) -> bool:
    return bool(text) and (text[0].isalpha() or text[0] == "_") and all(c.isalnum() or c == "_" for c in text)


def parse(text: str) -> Sequence:
    """The syntax tree of a script; ``ShellSyntaxError`` with dash's wording for bad input."""
    parser = _Parser(lex(text))
    tree = parser.sequence()
    if parser.peek() is not None:
        raise parser.unexpected()
    return tree
