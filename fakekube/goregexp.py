"""Go's regular expressions (package ``regexp``, RE2 syntax): whether a pattern compiles, with Go's error, and
a translation for Python's ``re`` to match with.

A CustomResourceDefinition's ``pattern`` must compile as a Go regular expression (apiextensions-apiserver
``pkg/apis/apiextensions/validation``: ``must be a valid regular expression, but isn't: error parsing regexp:
missing closing ): `(` ``); kube-openapi matches values with Go's ``regexp``. :func:`syntax_error` follows
Go 1.26's ``regexp/syntax`` parser (``parse.go``) for the errors it reports: unbalanced parentheses and
brackets, Perl syntax RE2 lacks (lookaround, backreferences, possessive repetition), bad escapes, repeat
counts above 1,000, unknown ``\\p{...}`` classes and POSIX classes, nesting beyond 1,000.

:func:`python_pattern` rewrites what Python spells differently (``\\z``, ``\\Q...\\E``, ``(?<name>``,
``\\x{...}``, POSIX classes, ``$`` as the end of the text); a pattern Python cannot express (Unicode classes,
``(?U)``) comes back as None and is not checked (docs/not-emulated.md).
"""

from __future__ import annotations

import re
from functools import lru_cache

# Every name ``\\p{...}`` accepts, as Go's ``canonicalName`` spells it (unicode.Categories, Scripts and
# CategoryAliases of Go 1.26, plus Any, Assigned, ASCII and LC).
_UNICODE_CLASS_NAMES = (
    "Adlam Ahom Anatolianhieroglyphs Any Arabic Armenian Ascii Assigned Avestan Balinese Bamum Bassavah Batak "
    "Bengali Bhaiksuki Bopomofo Brahmi Braille Buginese Buhid C Canadianaboriginal Carian Casedletter "
    "Caucasianalbanian Cc Cf Chakma Cham Cherokee Chorasmian Closepunctuation Cn Cntrl Co Combiningmark Common "
    "Connectorpunctuation Control Coptic Cs Cuneiform Currencysymbol Cypriot Cyprominoan Cyrillic Dashpunctuation "
    "Decimalnumber Deseret Devanagari Digit Divesakuru Dogra Duployan Egyptianhieroglyphs Elbasan Elymaic "
    "Enclosingmark Ethiopic Finalpunctuation Format Georgian Glagolitic Gothic Grantha Greek Gujarati Gunjalagondi "
    "Gurmukhi Han Hangul Hanifirohingya Hanunoo Hatran Hebrew Hiragana Imperialaramaic Inherited Initialpunctuation "
    "Inscriptionalpahlavi Inscriptionalparthian Javanese Kaithi Kannada Katakana Kawi Kayahli Kharoshthi "
    "Khitansmallscript Khmer Khojki Khudawadi L Lao Latin Lc Lepcha Letter Letternumber Limbu Lineara Linearb "
    "Lineseparator Lisu Ll Lm Lo Lowercaseletter Lt Lu Lycian Lydian M Mahajani Makasar Malayalam Mandaic "
    "Manichaean Marchen Mark Masaramgondi Mathsymbol Mc Me Medefaidrin Meeteimayek Mendekikakui Meroiticcursive "
    "Meroitichieroglyphs Miao Mn Modi Modifierletter Modifiersymbol Mongolian Mro Multani Myanmar N Nabataean "
    "Nagmundari Nandinagari Nd Newa Newtailue Nko Nl No Nonspacingmark Number Nushu Nyiakengpuachuehmong Ogham "
    "Olchiki Oldhungarian Olditalic Oldnortharabian Oldpermic Oldpersian Oldsogdian Oldsoutharabian Oldturkic "
    "Olduyghur Openpunctuation Oriya Osage Osmanya Other Otherletter Othernumber Otherpunctuation Othersymbol P "
    "Pahawhhmong Palmyrene Paragraphseparator Paucinhau Pc Pd Pe Pf Phagspa Phoenician Pi Po Privateuse Ps "
    "Psalterpahlavi Punct Punctuation Rejang Runic S Samaritan Saurashtra Sc Separator Sharada Shavian Siddham "
    "Signwriting Sinhala Sk Sm So Sogdian Sorasompeng Soyombo Spaceseparator Spacingmark Sundanese Surrogate "
    "Sylotinagri Symbol Syriac Tagalog Tagbanwa Taile Taitham Taiviet Takri Tamil Tangsa Tangut Telugu Thaana Thai "
    "Tibetan Tifinagh Tirhuta Titlecaseletter Toto Ugaritic Unassigned Uppercaseletter Vai Vithkuqi Wancho "
    "Warangciti Yezidi Yi Z Zanabazarsquare Zl Zp Zs "
)
_UNICODE_CLASSES = frozenset(_UNICODE_CLASS_NAMES.split())
_POSIX = {"alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7f", "blank": "\\t ", "cntrl": "\\x00-\\x1f\\x7f",
          "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~", "punct": "!-/:-@[-`{-~",
          "space": "\\t\\n\\v\\f\\r ", "upper": "A-Z", "word": "0-9A-Za-z_", "xdigit": "0-9A-Fa-f"}
_PERL_CLASSES = frozenset("dDsSwW")
_HEX = frozenset("0123456789abcdefABCDEF")
_CONTROL = {"a": 7, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
MAX_REPEAT = 1000
MAX_NESTING = 1000


class _Error(Exception):
    def __init__(self, code: str, expr: str) -> None:
        self.text = f"error parsing regexp: {code}: `{expr}`"


def _canonical(name: str) -> str:
    out = []
    first = True
    for c in name:
        if c in "_- ":
            continue
        if first:
            c = c.upper() if "a" <= c <= "z" else c
            first = False
        elif "A" <= c <= "Z":
            c = c.lower()
        out.append(c)
    return "".join(out)


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
        # "(" an open group, "|" an alternation mark, "x" an operand
        self.stack: list[str] = []
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
                self.stack.append("x")
            elif c in "*+?":
                before = t
                t = self._repeat(before, t[1:], last_repeat)
                repeat = before
            elif c == "{":
                parsed = _parse_repeat(t)
                if parsed is None:
                    self.stack.append("x")
                    t = t[1:]
                else:
                    low, high, after = parsed
                    before = t
                    if low < 0 or low > MAX_REPEAT or high > MAX_REPEAT or (high >= 0 and low > high):
                        raise _Error("invalid repeat count", before[:len(before) - len(after)])
                    t = self._repeat(before, after, last_repeat)
                    repeat = before
            elif c == "\\":
                rest = self._escape(t)
                if not (t.startswith("\\Q") and (t.startswith("\\Q\\E") or len(t) == 2)):
                    self.stack.append("x")  # (an empty \\Q...\\E quotes nothing)
                t = rest
            else:
                self.stack.append("x")
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
        while self.stack and self.stack[-1] != "(":
            self.stack.pop()
        if not self.stack:
            raise _Error("unexpected )", self.whole)
        self.stack.pop()
        self.depth -= 1
        self.stack.append("x")

    def _repeat(self, before: str, after: str, last_repeat: str) -> str:
        if after[:1] == "?":
            after = after[1:]
        if last_repeat:
            raise _Error("invalid nested repetition operator", last_repeat[:len(last_repeat) - len(after)])
        if not self.stack or self.stack[-1] != "x":
            raise _Error("missing argument to repetition operator", before[:len(before) - len(after)])
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
    """``parseRepeat``: ``{n}``, ``{n,}``, ``{n,m}`` (``max`` -1 for no bound), or None when it is a literal."""
    match = re.match(r"\{(\d+)(?:(,)(\d*))?\}", s)
    if match is None:
        return None
    low_text, comma, high_text = match.groups()
    low = int(low_text) if len(low_text) < 9 else -1
    if comma is None:
        high = low
    elif high_text == "":
        high = -1
    else:
        high = int(high_text) if len(high_text) < 9 else MAX_REPEAT + 1
    return low, high, s[match.end():]


_TRANSLATIONS = (
    (re.compile(r"\\Q(.*?)(?:\\E|$)", re.S), lambda m: re.escape(m.group(1))),
    (re.compile(r"\(\?<(?![=!])"), lambda m: "(?P<"),
    (re.compile(r"\\x\{([0-9a-fA-F]+)\}"), lambda m: f"\\U{int(m.group(1), 16):08x}"),
    (re.compile(r"\[:(\w+):\]"), lambda m: _POSIX.get(m.group(1), m.group(0))),
    (re.compile(r"\\z"), lambda m: "\\Z"),
)


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
        text = re.sub(r"(?<!\\)\$", r"\\Z", text)
    try:
        return re.compile(text, re.ASCII)
    except re.error:
        return None
