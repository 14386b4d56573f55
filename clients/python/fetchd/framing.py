"""Message framing on a byte stream: LSP (Content-Length headers) or NDJSON (one per line).

Decoders are incremental: feed them whatever a read returned, they hand back every complete
message body (bytes) and keep the rest for the next read.
"""
from __future__ import annotations

from typing import List

from .errors import ProtocolViolation

LSP = "lsp"
NDJSON = "ndjson"
FRAMINGS = (LSP, NDJSON)


def encode(body: bytes, framing: str) -> bytes:
    """Frame one message body."""
    if framing == LSP:
        return b"Content-Length: " + str(len(body)).encode("ascii") + b"\r\n\r\n" + body
    if framing == NDJSON:
        if b"\n" in body:
            raise ValueError("an NDJSON message body cannot contain a newline")
        return body + b"\n"
    raise ValueError(f"unknown framing {framing!r}; expected one of {FRAMINGS}")


class LSPDecoder:
    """Reads ``Content-Length: N\\r\\n`` (+ other headers, any case) ``\\r\\n`` then N bytes."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._length: "int | None" = None

    def feed(self, data: bytes) -> List[bytes]:
        # A read position instead of deleting per message: a 10k-change cycle is thousands
        # of messages in one read, and deleting each from the front would be quadratic.
        self._buffer += data
        buffer, pos = self._buffer, 0
        out: List[bytes] = []
        while True:
            if self._length is None:
                end = buffer.find(b"\r\n\r\n", pos)
                if end < 0:
                    break
                header = bytes(buffer[pos:end]).decode("ascii", "replace")
                pos = end + 4
                self._length = self._content_length(header)
            if len(buffer) - pos < self._length:
                break
            out.append(bytes(buffer[pos : pos + self._length]))
            pos += self._length
            self._length = None
        del buffer[:pos]
        return out

    @staticmethod
    def _content_length(header: str) -> int:
        for line in header.split("\r\n"):
            name, sep, value = line.partition(":")
            if sep and name.strip().lower() == "content-length":
                try:
                    length = int(value.strip())
                except ValueError:
                    break
                if length < 0:
                    break
                return length
        raise ProtocolViolation(f"LSP header without a valid Content-Length: {header!r}")

    @property
    def pending(self) -> int:
        """Bytes received but not yet part of a complete message."""
        return len(self._buffer)


class NDJSONDecoder:
    """One JSON text per line; blank lines are skipped, a trailing ``\\r`` is dropped."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> List[bytes]:
        self._buffer += data
        buffer, pos = self._buffer, 0
        out: List[bytes] = []
        while True:
            end = buffer.find(b"\n", pos)
            if end < 0:
                break
            line = bytes(buffer[pos:end]).rstrip(b"\r")
            pos = end + 1
            if line and not line.isspace():
                out.append(line)
        del buffer[:pos]
        return out

    @property
    def pending(self) -> int:
        return len(self._buffer)


def decoder(framing: str) -> "LSPDecoder | NDJSONDecoder":
    if framing == LSP:
        return LSPDecoder()
    if framing == NDJSON:
        return NDJSONDecoder()
    raise ValueError(f"unknown framing {framing!r}; expected one of {FRAMINGS}")
