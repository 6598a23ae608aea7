"""``resource.Quantity``: parsing, comparison and the canonical form the API server serialises.

kubernetes/apimachinery ``pkg/api/resource/quantity.go`` (source in docs/semantics.md). Every Quantity the
server stores comes back in canonical form — ``1000m`` as ``1``, ``0.5`` as ``500m``, ``2048Ki`` as ``2Mi``,
``1.5Gi`` as ``1536Mi`` — which is why a controller comparing its desired spec with the stored one by string
sees a difference that is not there. The format (binary ``Ki``…``Ei``, decimal ``n``…``E``, or an ``e``
exponent) is kept from the input; a binary value below 1024 or not a whole number is shown decimal.
"""

from __future__ import annotations

import functools
import math
import re
from fractions import Fraction

# The grammar ``ParseQuantity`` checks first (its ``splitRE``); the typed JSON decoder checks it too.
QUANTITY_RE = re.compile(r"^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$")
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_SUFFIX = {v: k for k, v in _DECIMAL.items()}
_BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_BINARY_SUFFIX = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
_NANO = 10**9

BINARY_SI, DECIMAL_SI, DECIMAL_EXPONENT = "BinarySI", "DecimalSI", "DecimalExponent"
REGEX_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


class QuantityError(ValueError):
    pass


def parse(text: str | int | float) -> tuple[Fraction, str]:
    """(value, format) of a quantity string (JSON numbers are accepted as decimal quantities)."""
    if isinstance(text, bool):
        raise QuantityError(REGEX_ERROR)
    if isinstance(text, int | float):
        text = repr(text) if isinstance(text, float) else str(text)
        text = text.replace("e+", "e")
    if not isinstance(text, str):
        raise QuantityError(REGEX_ERROR)
    return _parse(text)


# Parsing runs on every write of a pod-bearing object (defaulting, validation, QoS); the texts are few and the
# results immutable, so they are cached (errors are raised anew each time).
@functools.lru_cache(maxsize=4096)
def _parse(text: str) -> tuple[Fraction, str]:
    match = QUANTITY_RE.match(text.strip())
    if match is None:
        raise QuantityError(REGEX_ERROR)
    number, suffix = match.groups()
    if number.count(".") > 1 or number in (".", "+.", "-.", "+", "-"):
        raise QuantityError(REGEX_ERROR)
    try:
        value = Fraction(number)
    except (ValueError, ZeroDivisionError):
        raise QuantityError(REGEX_ERROR) from None
    if suffix in _BINARY:
        return value * (1024 ** _BINARY[suffix]), BINARY_SI
    if suffix in _DECIMAL:
        return value * Fraction(10) ** _DECIMAL[suffix], DECIMAL_SI
    if suffix[:1] in ("e", "E") and re.fullmatch(r"[-+]?[0-9]+", suffix[1:]):
        return value * Fraction(10) ** int(suffix[1:]), DECIMAL_EXPONENT
    raise QuantityError("unable to parse quantity's suffix")


def value_of(text: str | int | float) -> Fraction:
    return parse(text)[0]


def _round_away(value: Fraction, scale: int) -> Fraction:
    """Round up (away from zero) to a multiple of ``scale``."""
    scaled = value * scale
    whole = math.ceil(scaled) if value > 0 else math.floor(scaled)
    return Fraction(whole, scale)


def canonical(value: Fraction, fmt: str) -> str:
    """``Quantity.String()`` of a value in a format (precision is limited to nano, rounded away from zero)."""
    if value == 0:
        return "0"
    if fmt == BINARY_SI and (-1024 < value < 1024 or value.denominator != 1):
        fmt = DECIMAL_SI
    if fmt == BINARY_SI:
        number, power = int(value), 0
        while power < 6 and number % 1024 == 0:
            number //= 1024
            power += 1
        return f"{number}{_BINARY_SUFFIX[power]}"
    number = int(_round_away(value, _NANO) * _NANO)
    exponent = -9
    while number % 1000 == 0:
        number //= 1000
        exponent += 3
    if fmt == DECIMAL_SI and exponent in _DECIMAL_SUFFIX:
        return f"{number}{_DECIMAL_SUFFIX[exponent]}"
    return f"{number}e{exponent}" if exponent else str(number)


def canonicalize(text: object, *, round_to_milli: bool = False) -> object:
    """The canonical form of a quantity; anything unparseable is returned as it is (decoding reports it).
    ``round_to_milli`` is ``SetDefaults_ResourceList``: values round up to a multiple of 1m."""
    if not isinstance(text, str | int | float) or isinstance(text, bool):
        return text
    try:
        return _canonical_text(text, round_to_milli) if isinstance(text, str) else _canonical_of(text, round_to_milli)
    except QuantityError:
        return text


@functools.lru_cache(maxsize=4096)
def _canonical_text(text: str, round_to_milli: bool) -> str:
    return _canonical_of(text, round_to_milli)


def _canonical_of(text: str | int | float, round_to_milli: bool) -> str:
    value, fmt = parse(text)
    if round_to_milli:
        value = _round_away(value, 1000)
    return canonical(value, fmt)


def canonicalize_list(resources: object, *, round_to_milli: bool = True) -> None:
    """Canonicalise a ResourceList (``{"cpu": "500m", ...}``) in place."""
    if not isinstance(resources, dict):
        return
    for key, text in resources.items():
        new = canonicalize(text, round_to_milli=round_to_milli)
        if new is not text:
            resources[key] = new
