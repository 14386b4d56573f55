"""The ``initialize`` handshake: the protocol version this client speaks and the check of what
fetchd answers, shared by the sync and asyncio clients. A wheel and a binary from different
releases can meet (a fetchd on the PATH, $FETCHD); failing at spawn with both versions named
beats a puzzling error on the first request that changed between them."""
from __future__ import annotations

from typing import Any, Optional

from .errors import ProtocolVersionMismatch
from .version import __version__
from .wire_types import InitializeParamsClientInfo

# The protocolVersion of fetchd's initialize result (protocol.md §2) this client is written for.
PROTOCOL_VERSION = 1


def default_client_info() -> InitializeParamsClientInfo:
    """What fetchd logs about its peer when the caller names none."""
    return {"name": "fetchd-python", "version": __version__}


def check_initialize_result(result: Any, binary: Optional[str]) -> None:
    """Raise ProtocolVersionMismatch unless ``result`` (initialize's) names PROTOCOL_VERSION."""
    version = result.get("protocolVersion") if isinstance(result, dict) else None
    if isinstance(version, int) and not isinstance(version, bool) and version == PROTOCOL_VERSION:
        return
    # Worded as the JS client words it: "fetchd 0.2.0 at /path speaks protocol version 2; ...".
    info = result.get("serverInfo") if isinstance(result, dict) else None
    server = "fetchd"
    if isinstance(info, dict) and isinstance(info.get("version"), str):
        server += f" {info['version']}"
    if binary:
        server += f" at {binary}"
    ours = f"this client (fetchd {__version__} for Python) speaks protocol version {PROTOCOL_VERSION}"
    if isinstance(version, int) and not isinstance(version, bool):
        said, known = f"speaks protocol version {version}", version
    else:
        said, known = "does not say which protocol version it speaks (its initialize result has no protocolVersion)", None
    raise ProtocolVersionMismatch(
        f"{server} {said}; {ours}. Use a fetchd and a Python client of the same release.",
        known, PROTOCOL_VERSION, binary)


__all__ = ["PROTOCOL_VERSION", "check_initialize_result", "default_client_info"]
