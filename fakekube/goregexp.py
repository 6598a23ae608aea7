"""Whether Go's ``regexp.Compile`` accepts a pattern, and its error text when it does not.

The API server checks a CRD schema's ``pattern`` with Go's RE2 syntax (apiextensions-apiserver
``pkg/apiserver/schema/validation.go``), whose rules differ from Python's ``re``: lookarounds and
backreferences are refused, ``\\z``, ``\\pL``, ``\\Q...\\E`` and ``(?U)`` are accepted. This walks a pattern the
way Go's parser does (``regexp/syntax/parse.go``, Go 1.25) only as far as its errors go, and words them as
``*syntax.Error`` does: ``error parsing regexp: <code>: `<expr>```. Limits on the size and nesting of the
compiled program are not checked.
"""

from __future__ import annotations

import re

_PERL_CLASSES = frozenset("dDsSwW")
_POSIX_CLASSES = frozenset(
    f"[:{neg}{name}:]" for neg in ("", "^")
    for name in ("alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
                 "space", "upper", "word", "xdigit"))
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

_CAPTURE_NAME = re.compile(r"[A-Za-z0-9_]+")
_HEX = "0123456789abcdefABCDEF"
_OCTAL = "01234567"
_SIMPLE_ESCAPES = {"a": 7, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}


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
_UNICODE_NAMES = frozenset(
    [n for n in (_CATEGORY_NAMES + " " + _SCRIPT_NAMES).split() if _canonical(n) == n]
    + [_canonical(n) for n in _ALIAS_NAMES.split()] + ["Lc"])


class _Error(Exception):
    def __init__(self, code: str, expr: str) -> None:
        super().__init__(f"error parsing regexp: {code}: `{expr}`")


def syntax_error(pattern: str) -> str | None:
    """None when Go compiles ``pattern``; else the text of its ``*syntax.Error``."""
    try:
        _Parser(pattern).parse()
    except _Error as exc:
        return str(exc)
    return None


_X = 1  # a regexp with no counted repetition inside


class _Parser:
    # The parse stack as far as errors need it: "(" an open group, "|" an alternation marker, or a regexp as the
    # largest product of counted repetitions ({n,m}) along a path inside it (repeatIsValid allows 1000).
    def __init__(self, pattern: str) -> None:
        self.whole = pattern
        self.stack: list[str | int] = []

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
                    self.stack.append("(")
                    t = t[1:]
            elif c == "|":
                self.stack.append("|")
                t = t[1:]
            elif c == ")":
                self._right_paren()
                t = t[1:]
            elif c == "[":
                t = self._class(t)
                self.stack.append(_X)
            elif c in "*+?":
                before = t
                t = self._repeat(before, t[1:], last_repeat, None)
                repeat = before
            elif c == "{":
                before = t
                parsed = _parse_repeat(t)
                if parsed is None:
                    self.stack.append(_X)  # not a repeat: a literal {
                    t = t[1:]
                else:
                    low, high, after = parsed
                    if low < 0 or low > 1000 or high > 1000 or (high >= 0 and low > high):
                        raise _Error("invalid repeat count", before[:len(before) - len(after)])
                    t = self._repeat(before, after, last_repeat, (low, high))
                    repeat = before
            elif c == "\\":
                t = self._backslash(t)
            else:
                self.stack.append(_X)
                t = t[1:]
            last_repeat = repeat
        if "(" in self.stack:
            raise _Error("missing closing )", self.whole)

    def _repeat(self, before: str, after: str, last_repeat: str, counts: tuple[int, int] | None) -> str:
        if after.startswith("?"):
            after = after[1:]
        if last_repeat:
            raise _Error("invalid nested repetition operator", last_repeat[:len(last_repeat) - len(after)])
        top = self.stack[-1] if self.stack else "("
        if isinstance(top, str):
            raise _Error("missing argument to repetition operator", before[:len(before) - len(after)])
        if counts is not None:
            low, high = counts
            factor = high if high >= 0 else low
            weight = 1 if factor == 0 else factor * top  # a {0} repetition is not looked into
            if (low >= 2 or high >= 2) and weight > 1000:
                raise _Error("invalid repeat count", before[:len(before) - len(after)])
            self.stack[-1] = weight
        return after

    def _right_paren(self) -> None:
        # Everything since the matching "(" collapses into one regexp.
        weight = _X
        while self.stack and self.stack[-1] != "(":
            top = self.stack.pop()
            if isinstance(top, int):
                weight = max(weight, top)
        if not self.stack:
            raise _Error("unexpected )", self.whole)
        self.stack[-1] = weight

    def _perl_flags(self, s: str) -> str:
        starts_with_p = len(s) > 4 and s[2] == "P" and s[3] == "<"
        starts_with_name = len(s) > 3 and s[2] == "<"
        if starts_with_p or starts_with_name:
            end = s.find(">")
            if end < 0:
                raise _Error("invalid named capture", s)
            capture = s[:end + 1]
            name = s[(4 if starts_with_p else 3):end]
            if not _CAPTURE_NAME.fullmatch(name):
                raise _Error("invalid named capture", capture)
            self.stack.append("(")
            return s[end + 1:]
        t = s[2:]
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
                    self.stack.append("(")
                return t
            else:
                break
        raise _Error("invalid or unsupported Perl syntax", s[:len(s) - len(t)])

    def _backslash(self, t: str) -> str:
        if len(t) >= 2:
            c = t[1]
            if c in "AbBz":
                self.stack.append(_X)
                return t[2:]
            if c == "C":
                raise _Error("invalid escape sequence", t[:2])
            if c == "Q":
                literal, _, rest = t[2:].partition("\\E")
                if literal:
                    self.stack.append(_X)
                return rest
            if c in "pP":
                self.stack.append(_X)
                return _unicode_class(t)
            if c in _PERL_CLASSES:
                self.stack.append(_X)
                return t[2:]
        _, rest = _escape(t)
        self.stack.append(_X)
        return rest

    def _class(self, s: str) -> str:
        t = s[1:]
        if t.startswith("^"):
            t = t[1:]
        first = True
        while not t or t[0] != "]" or first:
            first = False
            if len(t) > 2 and t[0] == "[" and t[1] == ":":
                end = t.find(":]", 2)
                if end >= 0:
                    name = t[:end + 2]
                    if name not in _POSIX_CLASSES:
                        raise _Error("invalid character class range", name)
                    t = t[end + 2:]
                    continue
            if len(t) >= 2 and t[0] == "\\" and t[1] in "pP":
                t = _unicode_class(t)
                continue
            if len(t) >= 2 and t[0] == "\\" and t[1] in _PERL_CLASSES:
                t = t[2:]
                continue
            rng = t
            low, t = _class_char(t, s)
            high = low
            if len(t) >= 2 and t[0] == "-" and t[1] != "]":
                high, t = _class_char(t[1:], s)
                if high < low:
                    raise _Error("invalid character class range", rng[:len(rng) - len(t)])
        return t[1:]


def _class_char(s: str, whole_class: str) -> tuple[int, str]:
    if not s:
        raise _Error("missing closing ]", whole_class)
    if s[0] == "\\":
        return _escape(s)
    return ord(s[0]), s[1:]


def _unicode_class(s: str) -> str:
    t = s[2:]
    if not t:
        # Go reads an empty name here (a decoding error it does not report) and finds no such class.
        raise _Error("invalid character class range", s)
    if t[0] != "{":
        seq, rest = s[:3], s[3:]
        name = seq[2:]
    else:
        end = s.find("}")
        if end < 0:
            raise _Error("invalid character class range", s)
        seq, rest = s[:end + 1], s[end + 1:]
        name = s[3:end]
    if name.startswith("^"):
        name = name[1:]
    if _canonical(name) not in _UNICODE_NAMES:
        raise _Error("invalid character class range", seq)
    return rest


def _escape(s: str) -> tuple[int, str]:
    """``parseEscape``: the escaped rune and the rest."""
    t = s[1:]
    if not t:
        raise _Error("trailing backslash at end of expression", "")
    c, t = t[0], t[1:]
    if ord(c) < 0x80 and not c.isalnum():
        return ord(c), t
    if c in "1234567" and t and t[0] in _OCTAL or c == "0":
        value = int(c)
        for _ in range(2):
            if not t or t[0] not in _OCTAL:
                break
            value, t = value * 8 + int(t[0]), t[1:]
        return value, t
    if c == "x" and t:
        c, t = t[0], t[1:]
        if c == "{":
            digits = ""
            while t:
                c, t = t[0], t[1:]
                if c == "}":
                    if digits and int(digits, 16) <= 0x10FFFF:
                        return int(digits, 16), t
                    break
                if c not in _HEX or int(digits + c, 16) > 0x10FFFF:
                    break
                digits += c
        else:
            second, t = (t[0], t[1:]) if t else ("", t)
            if c in _HEX and second and second in _HEX:
                return int(c + second, 16), t
    elif c in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[c], t
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


_TRANSLATIONS = re.compile(r"\\\\|\\z|\\Q.*?(?:\\E|$)|\(\?<(?=[A-Za-z0-9_]+>)", re.S)


def python_pattern(pattern: str) -> re.Pattern[str] | None:
    """A Python regex matching what the Go one matches, as far as the two syntaxes translate (``\\z``,
    ``\\Q...\\E``, ``(?<name>``); None when Python cannot compile it (Unicode classes such as ``\\pL``): the
    pattern is then not checked rather than checked wrongly."""

    def translate(match: re.Match[str]) -> str:
        text = match.group(0)
        if text == "\\z":
            return r"\Z"
        if text.startswith("\\Q"):
            body = text[2:]
            return re.escape(body[:-2] if body.endswith("\\E") else body)
        if text == "(?<":
            return "(?P<"
        return text

    try:
        return re.compile(_TRANSLATIONS.sub(translate, pattern))
    except (re.error, OverflowError, RecursionError):
        return None
