"""Errors raised by the fetchd client."""
from __future__ import annotations

from typing import Any, Dict, Optional


class FetchdError(Exception):
    """A JSON-RPC error object returned by the server: code, message and data.

    ``data`` is the server's ``{"kind": ..., ...}`` object naming the problem (or None).
    """

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{message} (code {code}{', ' + repr(data) if data is not None else ''})")
        self.code = code
        self.message = message
        self.data = data

    @property
    def kind(self) -> Optional[str]:
        """The ``data.kind`` the server names the problem with, if any."""
        if isinstance(self.data, dict):
            kind = self.data.get("kind")
            return kind if isinstance(kind, str) else None
        return None

    @classmethod
    def from_object(cls, error: Dict[str, Any]) -> "FetchdError":
        code = error.get("code")
        message = error.get("message")
        return cls(
            code if isinstance(code, int) else -32603,
            message if isinstance(message, str) else "malformed error object",
            error.get("data"),
        )


class ProtocolVersionMismatch(FetchdError):
    """fetchd's ``initialize`` answered a ``protocolVersion`` other than this client's. Raised by
    the client, never sent by fetchd: ``code`` is 0 and ``kind`` is ``protocolVersionMismatch``;
    ``server_version`` is None when the answer had no integer ``protocolVersion``."""

    def __init__(self, message: str, server_version: Optional[int], client_version: int,
                 binary: Optional[str] = None) -> None:
        super().__init__(0, message, {"kind": "protocolVersionMismatch", "binary": binary,
                                      "serverProtocolVersion": server_version, "clientProtocolVersion": client_version})
        # The sentence alone: the "(code 0, ...)" suffix FetchdError adds would only repeat it.
        self.args = (message,)
        self.server_version = server_version
        self.client_version = client_version
        self.binary = binary

    def __str__(self) -> str:
        return self.message


class ProtocolViolation(Exception):
    """The peer sent bytes or messages that break JSON-RPC or the fetchd wire contract."""


class MirrorError(Exception):
    """A batch of notifications cannot be applied to a TableMirror (protocol.md §11)."""


class ConnectionClosed(Exception):
    """The server closed its output (exited) before answering."""
