"""Go's regular expressions (package ``regexp``, RE2 syntax): whether a pattern compiles, with Go's error, and
a translation for Python's ``re`` to match with.

A CustomResourceDefinition's ``pattern`` must compile as a Go regular expression (apiextensions-apiserver
``pkg/apis/apiextensions/validation``: ``must be a valid regular expression, but isn't: error parsing regexp:
missing closing ): `(` ``); kube-openapi matches values with Go's ``regexp``. :func:`syntax_error` follows
Go 1.26's ``regexp/syntax`` parser (``parse.go``) for the errors it reports: unbalanced parentheses and
brackets, Perl syntax RE2 lacks (lookaround, backreferences, possessive repetition), bad escapes, repeat
counts above 1,000 (alone or multiplied by nesting, ``repeatIsValid``), unknown ``\\p{...}`` classes (Go's lookup
misses scripts whose name has an underscore) and POSIX classes, nesting beyond 1,000. It agreed with Go 1.26's
``regexp.Compile`` on 20,000 patterns generated from the constructs above.

:func:`python_pattern` rewrites what Python spells differently (``\\z``, ``\\Q...\\E``, ``(?<name>``,
``\\x{...}``, POSIX classes, ``$`` as the end of the text); a pattern Python cannot express (Unicode classes,
``(?U)``) comes back as None and is not checked (docs/not-emulated.md).
"""

from __future__ import annotations

import re
from functools import lru_cache

# unicode.Categories, unicode.CategoryAliases (then Any, Assigned, ASCII) and unicode.Scripts, Go 1.26 (the
# release kube-apiserver v1.37.2 is built with).
_CATEGORY_NAMES = "C Cc Cf Cn Co Cs L LC Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So Z Zl Zp Zs"
_ALIAS_NAMES = (
    "Cased_Letter Close_Punctuation Combining_Mark Connector_Punctuation Control Currency_Symbol Dash_Punctuation "
    "Decimal_Number Enclosing_Mark Final_Punctuation Format Initial_Punctuation Letter Letter_Number "
    "Line_Separator Lowercase_Letter Mark Math_Symbol Modifier_Letter Modifier_Symbol Nonspacing_Mark Number "
    "Open_Punctuation Other Other_Letter Other_Number Other_Punctuation Other_Symbol Paragraph_Separator "
    "Private_Use Punctuation Separator Space_Separator Spacing_Mark Surrogate Symbol Titlecase_Letter Unassigned "
    "Uppercase_Letter cntrl digit punct Any Assigned ASCII")
_SCRIPT_NAMES = (
    "Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak Bengali Bhaiksuki "
    "Bopomofo Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian Caucasian_Albanian Chakma Cham Cherokee "
    "Chorasmian Common Coptic Cuneiform Cypriot Cypro_Minoan Cyrillic Deseret Devanagari Dives_Akuru Dogra "
    "Duployan Egyptian_Hieroglyphs Elbasan Elymaic Ethiopic Georgian Glagolitic Gothic Grantha Greek Gujarati "
    "Gunjala_Gondi Gurmukhi Han Hangul Hanifi_Rohingya Hanunoo Hatran Hebrew Hiragana Imperial_Aramaic Inherited "
    "Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Kannada Katakana Kawi Kayah_Li Kharoshthi "
    "Khitan_Small_Script Khmer Khojki Khudawadi Lao Latin Lepcha Limbu Linear_A Linear_B Lisu Lycian Lydian "
    "Mahajani Makasar Malayalam Mandaic Manichaean Marchen Masaram_Gondi Medefaidrin Meetei_Mayek Mende_Kikakui "
    "Meroitic_Cursive Meroitic_Hieroglyphs Miao Modi Mongolian Mro Multani Myanmar Nabataean Nag_Mundari "
    "Nandinagari New_Tai_Lue Newa Nko Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki Old_Hungarian Old_Italic "
    "Old_North_Arabian Old_Permic Old_Persian Old_Sogdian Old_South_Arabian Old_Turkic Old_Uyghur Oriya Osage "
    "Osmanya Pahawh_Hmong Palmyrene Pau_Cin_Hau Phags_Pa Phoenician Psalter_Pahlavi Rejang Runic Samaritan "
    "Saurashtra Sharada Shavian Siddham SignWriting Sinhala Sogdian Sora_Sompeng Soyombo Sundanese Syloti_Nagri "
    "Syriac Tagalog Tagbanwa Tai_Le Tai_Tham Tai_Viet Takri Tamil Tangsa Tangut Telugu Thaana Thai Tibetan "
    "Tifinagh Tirhuta Toto Ugaritic Vai Vithkuqi Wancho Warang_Citi Yezidi Yi Zanabazar_Square")

_POSIX = {"alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7f", "blank": "\\t ", "cntrl": "\\x00-\\x1f\\x7f",
          "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~", "punct": "!-/:-@[-`{-~",
          "space": "\\t\\n\\v\\f\\r ", "upper": "A-Z", "word": "0-9A-Za-z_", "xdigit": "0-9A-Fa-f"}
_PERL_CLASSES = frozenset("dDsSwW")
_HEX = frozenset("0123456789abcdefABCDEF")
_CONTROL = {"a": 7, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
MAX_REPEAT = 1000
MAX_NESTING = 1000
_X = 1  # an operand with no counted repetition inside


class _Error(Exception):
    def __init__(self, code: str, expr: str) -> None:
        self.text = f"error parsing regexp: {code}: `{expr}`"


def _canonical(name: str) -> str:
    """``canonicalName``: a leading capital, lower case after, no ``_``, ``-`` or space."""
    out = []
    first = True
    for ch in name:
        if ch in "_- ":
            continue
        out.append(ch.upper() if first else ch.lower())
        first = False
    return "".join(out)


# unicodeTable looks the canonical form of a name up in maps keyed by the original names: a category or script
# whose name is not already canonical (Old_Italic, LC) is only found through the special cases and the aliases,
# which are canonicalized first.
_UNICODE_CLASSES = frozenset(
    [n for n in (_CATEGORY_NAMES + " " + _SCRIPT_NAMES).split() if _canonical(n) == n]
    + [_canonical(n) for n in _ALIAS_NAMES.split()] + ["Lc"])


@lru_cache(maxsize=512)
def syntax_error(pattern: str) -> str | None:
    """``regexp.Compile(pattern)``'s error text, or None when Go compiles it."""
    try:
        _Parser(pattern).parse()
    except _Error as exc:
        return exc.text
    return None


class _Parser:
    """The checks of Go's ``parse``: a stack of what is open (``(``), operands and ``|``, enough to know
    where a repetition has an argument and whether parentheses balance."""

    def __init__(self, pattern: str) -> None:
        self.whole = pattern
        # "(" an open group, "|" an alternation mark, or an operand as the largest product of counted
        # repetitions ({n,m}) along a path inside it (repeatIsValid allows 1000)
        self.stack: list[str | int] = []
        self.depth = 0

    def parse(self) -> None:
        t = self.whole
        last_repeat = ""
        while t:
            repeat = ""
            c = t[0]
            if c == "(":
                if len(t) >= 2 and t[1] == "?":
                    t = self._perl_flags(t)
                else:
                    self._open()
                    t = t[1:]
            elif c == "|":
                self.stack.append("|")
                t = t[1:]
            elif c == ")":
                self._close()
                t = t[1:]
            elif c == "[":
                t = self._class(t)
                self.stack.append(_X)
            elif c in "*+?":
                before = t
                t = self._repeat(before, t[1:], last_repeat, None)
                repeat = before
            elif c == "{":
                parsed = _parse_repeat(t)
                if parsed is None:
                    self.stack.append(_X)
                    t = t[1:]
                else:
                    low, high, after = parsed
                    before = t
                    if low < 0 or low > MAX_REPEAT or high > MAX_REPEAT or (high >= 0 and low > high):
                        raise _Error("invalid repeat count", before[:len(before) - len(after)])
                    t = self._repeat(before, after, last_repeat, (low, high))
                    repeat = before
            elif c == "\\":
                rest = self._escape(t)
                if not (t.startswith("\\Q") and (t.startswith("\\Q\\E") or len(t) == 2)):
                    self.stack.append(_X)  # (an empty \\Q...\\E quotes nothing)
                t = rest
            else:
                self.stack.append(_X)
                t = t[1:]
            last_repeat = repeat
        if "(" in self.stack:
            raise _Error("missing closing )", self.whole)

    def _open(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise _Error("expression nests too deeply", self.whole)
        self.stack.append("(")

    def _close(self) -> None:
        # Everything since the matching "(" collapses into one operand, as heavy as its heaviest part.
        weight = _X
        while self.stack and self.stack[-1] != "(":
            top = self.stack.pop()
            if isinstance(top, int):
                weight = max(weight, top)
        if not self.stack:
            raise _Error("unexpected )", self.whole)
        self.depth -= 1
        self.stack[-1] = weight

    def _repeat(self, before: str, after: str, last_repeat: str, counts: tuple[int, int] | None) -> str:
        if after[:1] == "?":
            after = after[1:]
        if last_repeat:
            raise _Error("invalid nested repetition operator", last_repeat[:len(last_repeat) - len(after)])
        top = self.stack[-1] if self.stack else "("
        if isinstance(top, str):
            raise _Error("missing argument to repetition operator", before[:len(before) - len(after)])
        if counts is not None:
            # repeatIsValid: counted repetitions nested inside each other may not multiply beyond 1000.
            low, high = counts
            factor = high if high >= 0 else low
            weight = 1 if factor == 0 else factor * top  # a {0} repetition is not looked into
            if (low >= 2 or high >= 2) and weight > MAX_REPEAT:
                raise _Error("invalid repeat count", before[:len(before) - len(after)])
            self.stack[-1] = weight
        return after

    def _perl_flags(self, s: str) -> str:
        t = s
        named_p = len(t) > 4 and t[2] == "P" and t[3] == "<"
        named = len(t) > 3 and t[2] == "<"
        if named_p or named:
            start = 4 if named_p else 3
            end = t.find(">")
            if end < 0:
                raise _Error("invalid named capture", s)
            name = t[start:end]
            if not name or not all(ch == "_" or (ch.isascii() and ch.isalnum()) for ch in name):
                raise _Error("invalid named capture", t[:end + 1])
            self._open()
            return t[end + 1:]
        t = t[2:]
        sign = 1
        saw_flag = False
        while t:
            c, t = t[0], t[1:]
            if c in "imsU":
                saw_flag = True
            elif c == "-":
                if sign < 0:
                    break
                sign = -1
                saw_flag = False
            elif c in ":)":
                if sign < 0 and not saw_flag:
                    break
                if c == ":":
                    self._open()
                return t
            else:
                break
        raise _Error("invalid or unsupported Perl syntax", s[:len(s) - len(t)])

    def _class(self, s: str) -> str:
        t = s[1:]
        if t[:1] == "^":
            t = t[1:]
        first = True
        while not t or t[0] != "]" or first:
            first = False
            if len(t) > 2 and t[0] == "[" and t[1] == ":":
                end = t.find(":]", 2)
                if end >= 0:
                    name = t[:end + 2]
                    if name[2:-2].lstrip("^") not in _POSIX:
                        raise _Error("invalid character class range", name)
                    t = t[end + 2:]
                    continue
            if len(t) >= 2 and t[0] == "\\" and t[1] in "pP":
                t = self._unicode_class(t)
                continue
            if len(t) >= 2 and t[0] == "\\" and t[1] in _PERL_CLASSES:
                t = t[2:]
                continue
            rng = t
            low, t = self._class_char(t, s)
            if len(t) >= 2 and t[0] == "-" and t[1] != "]":
                high, t = self._class_char(t[1:], s)
                if high < low:
                    raise _Error("invalid character class range", rng[:len(rng) - len(t)])
        return t[1:]

    def _class_char(self, t: str, whole_class: str) -> tuple[int, str]:
        if not t:
            raise _Error("missing closing ]", whole_class)
        if t[0] == "\\":
            return self._escape_rune(t)
        return ord(t[0]), t[1:]

    def _unicode_class(self, s: str) -> str:
        t = s[2:]
        if not t:
            raise _Error("invalid character class range", s)
        if t[0] != "{":
            seq, name, rest = s[:3], t[0], t[1:]
        else:
            end = s.find("}")
            if end < 0:
                raise _Error("invalid character class range", s)
            seq, name, rest = s[:end + 1], s[3:end], s[end + 1:]
        if _canonical(name.lstrip("^")) not in _UNICODE_CLASSES:
            raise _Error("invalid character class range", seq)
        return rest

    def _escape(self, t: str) -> str:
        if len(t) >= 2:
            c = t[1]
            if c in "AbBz":
                return t[2:]
            if c == "C":
                raise _Error("invalid escape sequence", t[:2])
            if c == "Q":
                end = t.find("\\E", 2)
                return "" if end < 0 else t[end + 2:]
            if c in "pP":
                return self._unicode_class(t)
            if c in _PERL_CLASSES:
                return t[2:]
        return self._escape_rune(t)[1]

    def _escape_rune(self, s: str) -> tuple[int, str]:
        """``parseEscape``: the rune an escape stands for and the rest of the text."""
        t = s[1:]
        if not t:
            raise _Error("trailing backslash at end of expression", "")
        c, t = t[0], t[1:]
        if ord(c) < 0x80 and not c.isalnum():
            return ord(c), t
        if c in "1234567" and t and "0" <= t[0] <= "7" or c == "0":
            value = int(c)
            for _ in range(2):
                if not t or not "0" <= t[0] <= "7":
                    break
                value = value * 8 + int(t[0])
                t = t[1:]
            return value, t
        if c == "x" and t:
            # Go consumes what it reads before it knows the escape is bad, and quotes all of it.
            if t[0] == "{":
                t = t[1:]
                digits = ""
                while t:
                    ch, t = t[0], t[1:]
                    if ch == "}":
                        if digits:
                            return int(digits, 16), t
                        break
                    if ch not in _HEX or int(digits + ch, 16) > 0x10FFFF:
                        break
                    digits += ch
            else:
                pair, t = t[:2], t[2:]
                if len(pair) == 2 and all(ch in _HEX for ch in pair):
                    return int(pair, 16), t
        elif c in _CONTROL:
            return _CONTROL[c], t
        raise _Error("invalid escape sequence", s[:len(s) - len(t)])


def _parse_repeat(s: str) -> tuple[int, int, str] | None:
    """``parseRepeat``: ``{n}``, ``{n,}``, ``{n,m}`` as (min, max, rest), max -1 for none; a number too large
    makes min -1. None when ``s`` is no repeat (then ``{`` is a literal)."""
    s = s[1:]
    low, s = _parse_int(s)
    if low is None or not s:
        return None
    if s[0] != ",":
        high = low
    else:
        s = s[1:]
        if not s:
            return None
        if s[0] == "}":
            high = -1
        else:
            high, s = _parse_int(s)
            if high is None:
                return None
            if high < 0:
                low = -1
    if not s or s[0] != "}":
        return None
    return low, high, s[1:]


def _parse_int(s: str) -> tuple[int | None, str]:
    digits = ""
    while s and s[0].isascii() and s[0].isdigit():
        digits, s = digits + s[0], s[1:]
    if not digits or (len(digits) >= 2 and digits[0] == "0"):
        return None, s
    if len(digits) >= 8:
        return -1, s  # too large: Go stops at 1e8 and reports -1
    return int(digits), s


_TRANSLATIONS = (
    (re.compile(r"\\Q(.*?)(?:\\E|$)", re.S), lambda m: re.escape(m.group(1))),
    (re.compile(r"\(\?<(?![=!])"), lambda m: "(?P<"),
    (re.compile(r"\\x\{([0-9a-fA-F]+)\}"), lambda m: f"\\U{int(m.group(1), 16):08x}"),
    (re.compile(r"\[:(\w+):\]"), lambda m: _POSIX.get(m.group(1), m.group(0))),
    (re.compile(r"\\z"), lambda m: "\\Z"),
)


def _end_of_text(text: str) -> str:
    """Go's ``$`` (without the m flag) is the end of the text, Python's ``\\Z``; a ``$`` that is escaped or
    inside a character class (``[$%]``) is a literal dollar and stays."""
    out, i, in_class = [], 0, False
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            out.append(text[i:i + 2])
            i += 2
            continue
        if in_class:
            if ch == "]" and not (out and out[-1] in ("[", "[^")):
                in_class = False
        elif ch == "[":
            in_class = True
            if text[i + 1:i + 2] == "^":
                out.append("[^")
                i += 2
                continue
        elif ch == "$":
            ch = "\\Z"
        out.append(ch)
        i += 1
    return "".join(out)


@lru_cache(maxsize=512)
def python_pattern(pattern: str) -> re.Pattern[str] | None:
    """A Python ``re`` pattern that matches as Go's does (ASCII classes, ``$`` at the end of the text), or None
    when the pattern uses what Python cannot express or Go would not compile."""
    if syntax_error(pattern) is not None or re.search(r"\\[pP]|\(\?[a-zA-Z-]*U|\[:\^", pattern):
        return None
    text = pattern
    for rule, replace in _TRANSLATIONS:
        text = rule.sub(replace, text)
    if "(?m" not in text:
        text = _end_of_text(text)
    try:
        return re.compile(text, re.ASCII)
    except re.error:
        return None
