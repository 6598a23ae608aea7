"""fakekube.pemcerts against Go's encoding/pem Decode rules (go/src/encoding/pem/pem_test.go's kinds of input)."""

from __future__ import annotations

from fakekube import pemcerts


def test_a_block_at_the_start_or_after_a_newline() -> None:
    block, rest = pemcerts.decode(b"-----BEGIN X-----\nAAAA\n-----END X-----\ntail")
    assert (block.type, block.data, rest) == ("X", b"\x00\x00\x00", b"tail")
    block, _ = pemcerts.decode(b"junk\n-----BEGIN Y-----\nA: b\n\nAAAA\n-----END Y-----\n")
    assert (block.type, block.headers) == ("Y", {"A": "b"})
    assert pemcerts.decode(b"junk -----BEGIN X-----\nAAAA\n-----END X-----\n")[0] is None


def test_malformed_candidates_are_skipped() -> None:
    # A wrong END type, trailing text on the END line and bad base64 each skip that candidate only.
    for bad in (b"-----BEGIN X-----\nAAAA\n-----END Y-----\n", b"-----BEGIN X-----\nAAAA\n-----END X----- x\n",
                b"-----BEGIN X-----\nA!AA\n-----END X-----\n"):
        assert pemcerts.decode(bad)[0] is None
        assert [b.type for b in pemcerts.blocks(bad + b"-----BEGIN Z-----\nAAAA\n-----END Z-----\n")] == ["Z"]
    assert pemcerts.blocks(b"-----BEGIN X-----\n") == []


def test_certificate_outline() -> None:
    assert pemcerts.certificate_outline(b"\x00\x00\x00") is None
    assert pemcerts.certificate_outline(b"\x30\x00") is None
