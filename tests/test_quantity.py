"""``resource.Quantity``'s canonical form, with cases restated from kubernetes/apimachinery
``pkg/api/resource/quantity_test.go`` (TestQuantityParseEmit, TestQuantityString, TestQuantityParse)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from fakekube import quantity


@pytest.mark.parametrize(("text", "canonical"), [
    # TestQuantityParseEmit
    ("1Ki", "1Ki"), ("1Mi", "1Mi"), ("1Gi", "1Gi"), ("1024Mi", "1Gi"), ("1000M", "1G"),
    (".001Ki", "1024m"), (".000001Ki", "1024u"), (".000000001Ki", "1024n"), (".000000000001Ki", "2n"),
    # TestQuantityString (as parsed strings)
    ("1e9", "1e9"), ("1e-3", "1e-3"), ("80e-3", "80e-3"), ("300e6", "300e6"), ("1e12", "1e12"), ("3e3", "3e3"),
    ("3k", "3k"), ("0", "0"), ("1n", "1n"), ("1080n", "1080n"), ("1.080u", "1080n"), ("80u", "80u"),
    # what controllers trip on
    ("1000m", "1"), ("0.5", "500m"), ("2048Ki", "2Mi"), ("1.5Gi", "1536Mi"), ("1000", "1k"), ("100m", "100m"),
    ("-1Ki", "-1Ki"), ("512", "512"),
])
def test_canonical_form(text: str, canonical: str) -> None:
    assert quantity.canonicalize(text) == canonical


def test_resource_lists_round_up_to_milli() -> None:
    values = {"cpu": "0.0001", "memory": "1.5"}
    quantity.canonicalize_list(values)
    assert values == {"cpu": "1m", "memory": "1500m"}


def test_numbers_and_bad_text() -> None:
    assert quantity.canonicalize(2) == "2"
    assert quantity.canonicalize("12 cores") == "12 cores"  # left for decoding to report
    assert quantity.value_of("1Gi") == 1024**3
    assert quantity.value_of("250m") == Fraction(1, 4)
    with pytest.raises(quantity.QuantityError):
        quantity.parse("1..2")
