import pytest

from fetchd.errors import ProtocolViolation
from fetchd.framing import LSP, NDJSON, LSPDecoder, NDJSONDecoder, encode


def test_lsp_encode_writes_exactly_content_length_header():
    assert encode(b'{"a":1}', LSP) == b'Content-Length: 7\r\n\r\n{"a":1}'


def test_lsp_length_counts_utf8_bytes_not_characters():
    body = '{"n":"Zoë 🙂"}'.encode()
    framed = encode(body, LSP)
    assert framed.startswith(b"Content-Length: %d\r\n\r\n" % len(body))
    assert LSPDecoder().feed(framed) == [body]


def test_lsp_decoder_handles_byte_by_byte_reads():
    stream = encode(b'{"a":1}', LSP) + encode(b'[2,3]', LSP)
    decoder = LSPDecoder()
    out = []
    for i in range(len(stream)):
        out += decoder.feed(stream[i : i + 1])
    assert out == [b'{"a":1}', b"[2,3]"]
    assert decoder.pending == 0


def test_lsp_decoder_many_messages_in_one_read_and_a_partial_tail():
    stream = encode(b"{}", LSP) * 3 + b"Content-Length: 4\r\n\r\n[1"
    decoder = LSPDecoder()
    assert decoder.feed(stream) == [b"{}"] * 3
    assert decoder.feed(b",]") == [b"[1,]"]


def test_lsp_decoder_accepts_other_headers_in_any_case():
    stream = b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-LENGTH:  2\r\n\r\n{}"
    assert LSPDecoder().feed(stream) == [b"{}"]


def test_lsp_decoder_rejects_header_without_length():
    with pytest.raises(ProtocolViolation, match="Content-Length"):
        LSPDecoder().feed(b"Content-Type: x\r\n\r\n{}")


def test_ndjson_round_trip_skips_blank_lines_and_crlf():
    decoder = NDJSONDecoder()
    assert decoder.feed(encode(b'{"a":1}', NDJSON) + b"\n\r\n" + b'{"b"') == [b'{"a":1}']
    assert decoder.feed(b":2}\r\n") == [b'{"b":2}']


def test_ndjson_refuses_a_body_with_a_newline():
    with pytest.raises(ValueError):
        encode(b'{\n}', NDJSON)


def test_unknown_framing_is_refused():
    with pytest.raises(ValueError, match="framing"):
        encode(b"{}", "xml")
