"""The SPDY/3.1 codec (fakekube.server.spdy) and the kubelet's protocol handshake (spdyconn.handshake)."""

from __future__ import annotations

import struct
import zlib

import pytest

from fakekube.server import spdy
from fakekube.server.spdyconn import handshake
from fakekube.server.spdydict import DICTIONARY


def test_header_blocks_share_one_compression_context_across_frames() -> None:
    client, server = spdy.FrameWriter(), spdy.FrameReader()
    frames_out = [client.syn_stream(i, {"streamType": ["stdout"], "port": ["80"], "requestID": [str(i)]})
                  for i in (1, 3, 5)]
    # the second and later blocks compress against the first (one zlib stream per direction): far smaller
    assert len(frames_out[1]) < len(frames_out[0]) - 10 and len(frames_out[2]) < len(frames_out[0]) - 10
    wire = b"".join(frames_out)
    frames = [f for i in range(len(wire)) for f in server.feed(wire[i:i + 1])]  # fed a byte at a time
    assert [(f.kind, f.stream, f.header("StreamType"), f.header("requestid")) for f in frames] == [
        (spdy.SYN_STREAM, i, "stdout", str(i)) for i in (1, 3, 5)]


def test_frames_round_trip() -> None:
    w, r = spdy.FrameWriter(), spdy.FrameReader()
    wire = (w.syn_reply(1, {"a": ["1", "2"]}, fin=True) + w.data(1, b"hello", fin=True) + w.data(3, b"")
            + w.rst_stream(5, spdy.CANCEL) + w.ping(7) + w.goaway(9, spdy.GOAWAY_PROTOCOL_ERROR)
            + w.window_update(1, 1000) + w.settings([(0, 7, 65536)]))
    frames = r.feed(wire)
    assert [(f.kind, f.stream, f.fin, f.data, f.value) for f in frames[1:]] == [
        (0, 1, True, b"hello", 0), (0, 3, False, b"", 0), (spdy.RST_STREAM, 5, False, b"", spdy.CANCEL),
        (spdy.PING, 7, False, b"", 0), (spdy.GOAWAY, 9, False, b"", 1), (spdy.WINDOW_UPDATE, 1, False, b"", 1000),
        (spdy.SETTINGS, 0, False, struct.pack(">III", 1, 7, 65536), 0)]
    assert frames[0].headers == {"a": ["1", "2"]} and frames[0].fin


def test_wire_layout_is_spdy3() -> None:
    # control bit, version 3, type; flags and 24-bit length (SPDY draft 3.1 section 2.2)
    assert spdy.FrameWriter().ping(1) == bytes.fromhex("8003000600000004" "00000001")
    assert spdy.FrameWriter.data(3, b"ab", fin=True) == bytes.fromhex("00000003" "01000002") + b"ab"
    reply = spdy.FrameWriter().syn_reply(1)
    block = zlib.decompressobj(zdict=DICTIONARY).decompress(reply[12:])
    assert reply[:4] == bytes.fromhex("80030002") and block == b"\x00\x00\x00\x00"  # zero headers


def _control(kind: int, payload: bytes, flags: int = 0) -> bytes:
    return struct.pack(">HHI", 0x8003, kind, (flags << 24) | len(payload)) + payload


@pytest.mark.parametrize("wire", [
    pytest.param(_control(0x0FFF, b""), id="unknown control type"),
    pytest.param(_control(spdy.PING, b"\x00\x00\x00"), id="short ping"),
    pytest.param(_control(spdy.PING, b"\x00\x00\x00\x00"), id="ping id 0"),
    pytest.param(_control(spdy.RST_STREAM, struct.pack(">II", 1, 0)), id="reset status 0"),
    pytest.param(_control(spdy.RST_STREAM, struct.pack(">II", 0, 5)), id="reset stream 0"),
    pytest.param(_control(spdy.GOAWAY, b"\x00" * 4), id="short goaway"),
    pytest.param(_control(spdy.SYN_STREAM, struct.pack(">IIBB", 1, 0, 0, 0) + b"not zlib"), id="corrupt headers"),
    pytest.param(_control(spdy.SYN_STREAM, b"\x00\x00"), id="short syn_stream"),
    pytest.param(_control(spdy.SETTINGS, struct.pack(">I", 5)), id="settings count too large"),
    pytest.param(struct.pack(">II", 0, 1) + b"x", id="data on stream 0"),
])
def test_malformed_frames_are_errors(wire: bytes) -> None:
    with pytest.raises(spdy.SpdyError):
        spdy.FrameReader().feed(wire)


def test_header_block_longer_than_its_headers_is_an_error() -> None:
    deflate = zlib.compressobj(zdict=DICTIONARY)
    block = deflate.compress(struct.pack(">I", 0) + b"extra") + deflate.flush(zlib.Z_SYNC_FLUSH)
    with pytest.raises(spdy.SpdyError):
        spdy.FrameReader().feed(_control(spdy.SYN_REPLY, struct.pack(">I", 1) + block))


# k8s.io/streaming pkg/httpstream/httpstream_test.go TestHandshake (v0.37.2), the same rows
@pytest.mark.parametrize(("client", "expected"), [
    pytest.param(None, 400, id="no protocol"),
    pytest.param([",, "], 400, id="empty client protocol header"),
    pytest.param(["c"], 403, id="no common protocol"),
    pytest.param(["c, d"], 403, id="no common protocol with comma separated list"),
    pytest.param(["b"], "b", id="common protocol"),
    pytest.param(["b, c"], "b", id="common protocol with comma separated list"),
])
def test_handshake(client: list[str] | None, expected: int | str) -> None:
    outcome = handshake(client, ["a", "b"], 3)
    assert (outcome if isinstance(outcome, str) else outcome[0]) == expected


def test_handshake_messages_are_the_kubelets() -> None:
    assert handshake(None, ["a"], 7) == (
        400, [], "unable to upgrade: header X-Stream-Protocol-Version does not exist in request with 7 headers")
    assert handshake([",, "], ["a"], 7)[2] == (  # type: ignore[index]
        "unable to upgrade: header X-Stream-Protocol-Version contains [,, ], but no valid protocols")
    assert handshake(["c, d"], ["a", "b"], 7) == (
        403, [("X-Accepted-Stream-Protocol-Versions", "a"), ("X-Accepted-Stream-Protocol-Versions", "b")],
        "unable to upgrade: unable to negotiate protocol: client supports [c d], server accepts [a b]")
