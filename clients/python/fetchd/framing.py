"""Bytes <-> JSON-RPC messages, with no state beyond a decoder's buffer.

Framing on a byte stream: LSP (Content-Length headers) or NDJSON (one per line). Decoders are
incremental: feed them whatever a read returned, they hand back every complete message body
(bytes) and keep the rest for the next read. ``parse`` turns bodies into ``Response``s and
``Notification``s; ``frame_message`` makes the bytes of one message (or batch) to write.
"""
from __future__ import annotations

import json
from typing import Any, Callable, Dict, Iterable, List, NamedTuple, Optional, Tuple, Union

from .errors import FetchdError, ProtocolViolation
from .gcpause import PAUSE_FROM_BYTES, collector_paused

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
        # The complete lines split in one call: a big cycle is 100,000 lines in a few reads.
        self._buffer += data
        end = self._buffer.rfind(b"\n")
        if end < 0:
            return []
        # One copy (a bytearray slice and then bytes would be two); both views released
        # before the buffer is resized.
        with memoryview(self._buffer) as view, view[:end] as head:
            chunk = bytes(head)
        del self._buffer[: end + 1]
        lines = chunk.split(b"\n")
        if b"\r" in chunk:
            lines = [line.rstrip(b"\r") for line in lines]
        return [line for line in lines if line and not line.isspace()]

    @property
    def pending(self) -> int:
        return len(self._buffer)


def decoder(framing: str) -> "LSPDecoder | NDJSONDecoder":
    if framing == LSP:
        return LSPDecoder()
    if framing == NDJSON:
        return NDJSONDecoder()
    raise ValueError(f"unknown framing {framing!r}; expected one of {FRAMINGS}")


# -- messages ----------------------------------------------------------------------------------
_decoder = json.JSONDecoder()
_decode = _decoder.decode
# What `decode` runs after skipping leading whitespace: a body that starts and ends with its
# value (fetchd writes no whitespace around one) needs nothing else.
_scan: Callable[[str, int], Tuple[Any, int]] = _decoder.scan_once  # type: ignore[attr-defined]

Params = Optional[Dict[str, Any]]


class Response(NamedTuple):
    id: Any
    result: Any = None
    error: Optional[FetchdError] = None


class Notification(NamedTuple):
    method: str
    params: Dict[str, Any]


Incoming = Union[Response, Notification]


def dumps(value: Any) -> bytes:
    """Compact UTF-8 JSON; NaN and infinities are refused (JSON has no such numbers)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def frame_message(message: Any, framing: str) -> bytes:
    """One message (or a batch: a list of them) as the bytes to write."""
    return encode(dumps(message), framing)


def parse(bodies: Iterable[bytes]) -> List[Incoming]:
    """The responses and notifications in message bodies, in order (a batch's in its order).
    Many small bodies of one read (a big cycle in rows mode) pause the collector as one big
    body does."""
    bodies = bodies if isinstance(bodies, list) else list(bodies)
    with collector_paused(sum(map(len, bodies)) >= PAUSE_FROM_BYTES):
        return parse_values(decode_body(body) for body in bodies)


def parse_values(values: Iterable[Any]) -> List[Incoming]:
    """``parse`` for bodies already decoded."""
    out: List[Incoming] = []
    for message in values:
        if isinstance(message, list):
            if not message:
                raise ProtocolViolation("server sent an empty batch")
            for element in message:
                out.append(classify(element))
        else:
            out.append(classify(message))
    return out


def decode_body(body: bytes) -> Any:
    """One message body's JSON value (ProtocolViolation if it is not JSON)."""
    try:
        # fetchd writes UTF-8: decoded directly, not through json.loads' sniffing.
        text = body.decode("utf-8")
        if len(body) < PAUSE_FROM_BYTES:
            return _decode_text(text)
        with collector_paused():
            return _decode_text(text)
    except (UnicodeDecodeError, ValueError) as error:
        raise ProtocolViolation(f"server sent invalid JSON: {error}: {body[:200]!r}") from None


def _decode_text(text: str) -> Any:
    try:
        value, end = _scan(text, 0)
        if end == len(text):
            return value
    except StopIteration:
        pass
    # Whitespace around the value, or not JSON: the full decoder accepts or says why.
    return _decode(text)


def classify(message: Any) -> Incoming:
    """A decoded JSON value as a response or a notification (ProtocolViolation otherwise)."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        raise ProtocolViolation(f"not a JSON-RPC 2.0 message: {message!r}")
    if "method" in message:
        if "id" in message:
            raise ProtocolViolation(f"fetchd sends no requests to clients: {message!r}")
        params = message.get("params")
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise ProtocolViolation(f"notification params must be an object: {message!r}")
        return Notification(message["method"], params)
    if "id" not in message:
        raise ProtocolViolation(f"response without an id: {message!r}")
    has_result, has_error = "result" in message, "error" in message
    if has_result == has_error:
        raise ProtocolViolation(f"a response needs exactly one of result/error: {message!r}")
    if has_error:
        error = message["error"]
        if not isinstance(error, dict):
            raise ProtocolViolation(f"error must be an object: {message!r}")
        return Response(message["id"], error=FetchdError.from_object(error))
    return Response(message["id"], result=message["result"])
