"""Python client for fetchd, the NSFetchedResultsController backend over JSON-RPC 2.0.

    from fetchd import Client, fetch_request
    with Client.spawn() as client:
        client.open_store(model)
        notes = client.context().controller("notes", fetch_request("Note", sort_descriptors=["-updatedAt"]))
        client.context().insert("Note", {"title": "Hello"})
        print(notes.mirror.ids())
"""
from .aio import AsyncBatch, AsyncClient, AsyncContext, AsyncController
from .call import BatchCall, Call
from .changes import (
    DELETE,
    INSERT,
    MOVE,
    UPDATE,
    ChangeBatch,
    Difference,
    IndexPath,
    ObjectChange,
    SectionChange,
    SectionInfo,
)
from .client import Batch, Client, Context, Controller
from .controller import KEEP
from .delegate import ControllerDelegate
from .errors import ConnectionClosed, FetchdError, MirrorError, ProtocolVersionMismatch, ProtocolViolation
from .framing import LSP, NDJSON, Notification, Response
from .handshake import PROTOCOL_VERSION
from .locate import find_fetchd
from .mirror import MirrorSection, TableMirror
from .progress import Progress, ProgressCallback, TerminalBar
from .protocol import ProtocolCore
from .requests import fetch_request, sort
from .version import __version__
from .wire_calls import REQUESTS, Calls

__all__ = [
    "AsyncBatch", "AsyncClient", "KEEP", "AsyncContext", "AsyncController", "Batch", "BatchCall", "Call", "Calls",
    "ChangeBatch", "Client", "ConnectionClosed", "Context", "Controller", "ControllerDelegate",
    "DELETE", "Difference", "FetchdError", "INSERT", "IndexPath", "LSP", "MOVE", "MirrorError", "MirrorSection",
    "NDJSON", "Notification", "ObjectChange", "PROTOCOL_VERSION", "Progress", "ProgressCallback", "ProtocolCore",
    "ProtocolVersionMismatch", "ProtocolViolation", "REQUESTS", "Response",
    "SectionChange", "SectionInfo", "TableMirror", "TerminalBar", "UPDATE", "fetch_request", "find_fetchd", "sort",
]
