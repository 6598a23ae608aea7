"""Name rules: DNS labels and subdomains, qualified names (label keys, annotation keys, finalizers), label
values, each kind's name function, and ``generateName``, with the real API server's error texts.

Sources (see docs/validation.md): kubernetes/apimachinery ``pkg/util/validation/validation.go`` (DNS rules),
``pkg/api/validate/content/kube.go`` (label keys and values), ``pkg/api/validation/generic.go`` (name
functions), apiserver ``pkg/storage/names/generate.go`` (generateName). These take strings and answer
messages; ``fakekube.validation`` turns them into ``FieldError``s on an object's fields.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

from fakekube.ipstrings import ip_errors

__all__ = [
    "NameValidator",
    "byte_len",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_dns1035_label",
    "is_qualified_name",
    "is_valid_label_value",
    "known_valid_annotation_keys",
    "known_valid_labels",
    "name_is_dns_subdomain",
    "name_is_dns_label",
    "name_is_dns1035_label",
    "name_is_ip",
    "name_is_path_segment",
    "name_is_anything",
    "remember_valid",
    "validate_namespace_name",
    "generate_name",
    "GENERATE_NAME_ALPHABET",
]

NameValidator = Callable[[str, bool], list[str]]

# --------------------------------------------------------------------------------------- DNS rules

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT = "(" + _LABEL_KEY_FMT + ")?"

# fullmatch, because Python's "$" would also accept a trailing newline where Go's does not.
_DNS1123_LABEL_RE = re.compile(_DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN_RE = re.compile(_DNS1123_SUBDOMAIN_FMT)
_DNS1035_LABEL_RE = re.compile(_DNS1035_LABEL_FMT)
_LABEL_KEY_RE = re.compile(_LABEL_KEY_FMT)
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)

_DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
_DNS1035_LABEL_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
    "start with an alphabetic character, and end with an alphanumeric character"
)
_LABEL_KEY_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def byte_len(value: str) -> int:
    # Go measures strings in bytes.
    return len(value) if value.isascii() else len(value.encode("utf-8", "surrogatepass"))


def _max_len_chars(n: int) -> str:
    return f"must be no more than {n} characters"


def _max_len_bytes(n: int) -> str:
    # The label-key/value rules moved to apimachinery's ``content`` package, which says "bytes".
    return f"must be no more than {n} bytes"


_SUBDOMAIN_REGEX_ERR = _regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com")
_LABEL_REGEX_ERR = _regex_error(_DNS1123_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc")
_DNS1035_REGEX_ERR = _regex_error(_DNS1035_LABEL_MSG, _DNS1035_LABEL_FMT, "my-name", "abc-123")
_LABEL_KEY_REGEX_ERR = _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
_LABEL_VALUE_REGEX_ERR = _regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345")


def is_dns1123_label(value: str) -> list[str]:
    """RFC 1123 label (namespaces): at most 63 characters, no dots."""
    return _checked_once(_VALID_DNS_LABELS, value, _dns1123_label_errors)


def _dns1123_label_errors(value: str) -> list[str]:
    errs: list[str] = []
    if byte_len(value) > 63:
        errs.append(_max_len_chars(63))
    if not _DNS1123_LABEL_RE.fullmatch(value):
        if _DNS1123_SUBDOMAIN_RE.fullmatch(value):
            errs.append("must not contain dots")
        else:
            errs.append(_LABEL_REGEX_ERR)
    return errs


def is_dns1123_subdomain(value: str) -> list[str]:
    """RFC 1123 subdomain (most kinds, all custom resources): at most 253 characters."""
    return _length_and_pattern(value, 253, _DNS1123_SUBDOMAIN_RE, _SUBDOMAIN_REGEX_ERR)


_SUBDOMAIN_CASELESS_RE = re.compile(_DNS1123_SUBDOMAIN_FMT, re.IGNORECASE)
_SUBDOMAIN_CASELESS_ERR = _regex_error(
    "an RFC 1123 subdomain must consist of alphanumeric characters, '-' or '.', and must start and end with an "
    "alphanumeric character", _DNS1123_SUBDOMAIN_FMT, "Example.com")


def is_dns1123_subdomain_caseless(value: str) -> list[str]:
    """apimachinery ``content.IsDNS1123SubdomainCaseless`` (declarative ``format=k8s-long-name-caseless``): a
    subdomain in either case; the message shows the lowercase pattern, as upstream's does."""
    return _length_and_pattern(value, 253, _SUBDOMAIN_CASELESS_RE, _SUBDOMAIN_CASELESS_ERR)


def is_dns1035_label(value: str) -> list[str]:
    """RFC 1035 label (services): must start with a letter."""
    return _length_and_pattern(value, 63, _DNS1035_LABEL_RE, _DNS1035_REGEX_ERR)


def _length_and_pattern(value: str, limit: int, pattern: re.Pattern[str], pattern_error: str,
                        too_long: Callable[[int], str] = _max_len_chars) -> list[str]:
    """The two checks of apimachinery's simple validators, each reported: length first, then form."""
    errs: list[str] = []
    if byte_len(value) > limit:
        errs.append(too_long(limit))
    if not pattern.fullmatch(value):
        errs.append(pattern_error)
    return errs


# Strings known to pass a check: label keys and values repeat on every write of an object and across objects,
# and a regular expression costs more than a set lookup. Bounded; only valid strings are remembered.
_VALID_QUALIFIED_NAMES: set[str] = set()
_VALID_LABEL_VALUES: set[str] = set()
_VALID_DNS_LABELS: set[str] = set()  # namespaces, container, volume and port names
_MAX_REMEMBERED = 50_000


def _checked_once(known: set[str], value: str, errors_of: Callable[[str], list[str]]) -> list[str]:
    """``errors_of(value)``, asked only of a string not already known to pass (and remembered if it does)."""
    if type(value) is str and value in known:
        return []
    return remember_valid(known, value, errors_of(value))


def remember_valid(known: set[Any], value: Any, errs: list[Any], limit: int = _MAX_REMEMBERED) -> list[Any]:
    """``errs``, after remembering ``value`` (an exact str, or JSON bytes) in ``known`` when it is empty;
    ``known`` starts again empty once it holds ``limit`` values."""
    if not errs and type(value) in (str, bytes):
        if len(known) >= limit:
            known.clear()
        known.add(value)
    return errs


def is_qualified_name(value: str) -> list[str]:
    """Label keys, annotation keys and finalizers: ``[prefix/]name``, prefix a DNS subdomain."""
    return _checked_once(_VALID_QUALIFIED_NAMES, value, _qualified_name_errors)


def _qualified_name_errors(value: str) -> list[str]:
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    else:
        return [
            "a valid label key "
            + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif byte_len(name) > 63:
        errs.append("name part " + _max_len_bytes(63))
    if not _LABEL_KEY_RE.fullmatch(name):
        errs.append("name part " + _LABEL_KEY_REGEX_ERR)
    return errs


def known_valid_labels(labels: dict[Any, Any]) -> bool:
    """Whether every key and value of ``labels`` is an exact ``str`` already known to pass
    (``is_qualified_name``, ``is_valid_label_value``): most objects' labels are, and then nothing is checked."""
    names, values = _VALID_QUALIFIED_NAMES, _VALID_LABEL_VALUES
    for key, value in labels.items():
        if type(key) is not str or type(value) is not str or key not in names or value not in values:
            return False
    return True


def known_valid_annotation_keys(annotations: dict[Any, Any]) -> bool:
    """Whether every key of ``annotations`` is an exact ``str`` whose lower-cased form is already known to pass
    ``is_qualified_name``, and every value an exact ``str``."""
    names = _VALID_QUALIFIED_NAMES
    for key, value in annotations.items():
        if type(key) is not str or type(value) is not str or key.lower() not in names:
            return False
    return True


def is_valid_label_value(value: str) -> list[str]:
    """Label values: empty, or at most 63 alphanumerics/``-_.`` starting and ending alphanumeric."""
    return _checked_once(_VALID_LABEL_VALUES, value, _label_value_errors)


def _label_value_errors(value: str) -> list[str]:
    return _length_and_pattern(value, 63, _LABEL_VALUE_RE, _LABEL_VALUE_REGEX_ERR, _max_len_bytes)


# ------------------------------------------------------------------------------------ name functions


def _mask_trailing_dash(name: str) -> str:
    # Upstream replaces the last *two* characters by "a" (generic.go maskTrailingDash), so "ab-" -> "aa".
    if len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


def name_is_dns_subdomain(name: str, prefix: bool) -> list[str]:
    return is_dns1123_subdomain(_mask_trailing_dash(name) if prefix else name)


def name_is_dns_label(name: str, prefix: bool) -> list[str]:
    return is_dns1123_label(_mask_trailing_dash(name) if prefix else name)


def name_is_dns1035_label(name: str, prefix: bool) -> list[str]:
    return is_dns1035_label(_mask_trailing_dash(name) if prefix else name)


def name_is_path_segment(name: str, prefix: bool) -> list[str]:
    """apimachinery ``pkg/api/validation/path`` ``IsValidPathSegmentName`` (RBAC names such as
    ``system:controller:job-controller``): anything but ``.``/``..`` and names with ``/`` or ``%``."""
    if name in (".", ".."):
        return [f"may not be '{name}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in name]


def name_is_ip(name: str, prefix: bool) -> list[str]:
    """networking ``ValidateIPAddressName``: an IPAddress is named by its address in canonical form (no
    generated names, so ``prefix`` changes nothing)."""
    return ip_errors(name)


def name_is_anything(name: str, prefix: bool) -> list[str]:
    """Kinds whose validation accepts any name (certificates ``ValidateCertificateRequestName``)."""
    return []


validate_namespace_name: NameValidator = name_is_dns_label


# ------------------------------------------------------------------------------------ generateName

GENERATE_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_MAX_PREFIX = 63 - 5


def generate_name(prefix: str, rng: random.Random) -> str:
    """``names.SimpleNameGenerator``: prefix cut to 58 characters plus 5 random consonants/digits."""
    if len(prefix) > _MAX_PREFIX:
        prefix = prefix[:_MAX_PREFIX]
    if type(rng) is not random.Random:  # a subclass may draw otherwise: ask it
        return prefix + "".join(rng.choice(GENERATE_NAME_ALPHABET) for _ in range(5))
    # What ``rng.choice(GENERATE_NAME_ALPHABET)`` draws, five times, without its two calls per character:
    # CPython's Random.choice takes ``_randbelow(27)``, which draws 27's bit length (5) of bits until they are
    # below 27 (a test checks that this gives choice's names, seed after seed).
    bits = rng.getrandbits
    chars = []
    for _ in range(5):
        drawn = bits(_DRAWN_BITS)
        while drawn >= _ALPHABET_SIZE:
            drawn = bits(_DRAWN_BITS)
        chars.append(GENERATE_NAME_ALPHABET[drawn])
    return prefix + "".join(chars)


_ALPHABET_SIZE = len(GENERATE_NAME_ALPHABET)
_DRAWN_BITS = _ALPHABET_SIZE.bit_length()
