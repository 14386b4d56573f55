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
        self._buffer += data
        out: List[bytes] = []
        while True:
            if self._length is None:
                end = self._buffer.find(b"\r\n\r\n")
                if end < 0:
                    return out
                header = bytes(self._buffer[:end]).decode("ascii", "replace")
                del self._buffer[: end + 4]
                self._length = self._content_length(header)
            if len(self._buffer) < self._length:
                return out
            out.append(bytes(self._buffer[: self._length]))
            del self._buffer[: self._length]
            self._length = None

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
        out: List[bytes] = []
        while True:
            end = self._buffer.find(b"\n")
            if end < 0:
                return out
            line = bytes(self._buffer[:end]).rstrip(b"\r")
            del self._buffer[: end + 1]
            if line.strip():
                out.append(line)

    @property
    def pending(self) -> int:
        return len(self._buffer)


def decoder(framing: str) -> "LSPDecoder | NDJSONDecoder":
    if framing == LSP:
        return LSPDecoder()
    if framing == NDJSON:
        return NDJSONDecoder()
    raise ValueError(f"unknown framing {framing!r}; expected one of {FRAMINGS}")
