"""Synchronous context handles and JSON-RPC batches."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence

from . import calls
from .errors import FetchdError
from .protocol import Params, Response

if TYPE_CHECKING:
    from .client import Client
    from .controller import Controller

WireObject = Dict[str, Any]


class Context:
    """A named managed-object context on the server ("main" after store/open)."""

    def __init__(self, client: "Client", name: str) -> None:
        self.client = client
        self.name = name

    def insert(self, entity: str, values: Optional[Dict[str, Any]] = None) -> WireObject:
        return self.client.request(*calls.insert(self.name, entity, values))["object"]

    def update(self, object_id: str, values: Dict[str, Any]) -> WireObject:
        return self.client.request(*calls.update(self.name, object_id, values))["object"]

    def delete(self, object_id: str) -> None:
        self.client.request(*calls.delete(self.name, object_id))

    def get(self, ids: Sequence[str], keys: Optional[Sequence[str]] = None) -> List[WireObject]:
        return self.client.request(*calls.get(self.name, ids, keys))["objects"]

    def fetch(self, request: Dict[str, Any]) -> List[WireObject]:
        return self.client.request(*calls.fetch(self.name, request))["objects"]

    def count(self, request: Dict[str, Any]) -> int:
        return self.client.request(*calls.count(self.name, request))["count"]

    def save(self) -> Dict[str, int]:
        """Returns the counts {inserted, updated, deleted}."""
        return self.client.request(*calls.context_only("save", self.name))

    def rollback(self) -> None:
        self.client.request(*calls.context_only("rollback", self.name))

    def process_pending_changes(self) -> None:
        self.client.request(*calls.context_only("processPendingChanges", self.name))

    def close(self) -> None:
        self.client.request(*calls.context_only("close", self.name))

    def batch(self) -> "Batch":
        """Collect calls, send them as one JSON-RPC batch (one change cycle) on ``send()`` or
        at the end of a ``with`` block."""
        return Batch(self.client, self.name)

    def controller(self, name: str, request: Dict[str, Any], **options: Any) -> "Controller":
        return self.client.controller(self.name, name, request, **options)

    def __repr__(self) -> str:
        return f"Context({self.name!r})"


class BatchCall:
    """One call of a batch; its outcome is known once the batch is sent."""

    def __init__(self, method: str, params: Params, pick: Optional[str]) -> None:
        self.method = method
        self.params = params
        self._pick = pick
        self.response: Optional[Response] = None

    @property
    def done(self) -> bool:
        return self.response is not None

    @property
    def error(self) -> Optional[FetchdError]:
        return None if self.response is None else self.response.error

    @property
    def result(self) -> Any:
        """The call's result (``object`` for insert/update), or raises its FetchdError."""
        if self.response is None:
            raise RuntimeError("the batch has not been sent yet")
        if self.response.error is not None:
            raise self.response.error
        value = self.response.result
        if self._pick is not None and isinstance(value, dict):
            return value.get(self._pick)
        return value


class BatchBase:
    """The calls a batch can hold; the sync and asyncio batches differ only in sending."""

    def __init__(self, context: Optional[str]) -> None:
        self.context = context
        self.calls: List[BatchCall] = []
        self.sent = False

    def _context(self, context: Optional[str]) -> str:
        name = context or self.context
        if name is None:
            raise ValueError("this batch has no default context; pass context=")
        return name

    def call(self, method: str, params: Params = None, pick: Optional[str] = None) -> BatchCall:
        if self.sent:
            raise RuntimeError("the batch was already sent")
        item = BatchCall(method, params, pick)
        self.calls.append(item)
        return item

    def insert(self, entity: str, values: Optional[Dict[str, Any]] = None, context: Optional[str] = None) -> BatchCall:
        return self.call(*calls.insert(self._context(context), entity, values), pick="object")

    def update(self, object_id: str, values: Dict[str, Any], context: Optional[str] = None) -> BatchCall:
        return self.call(*calls.update(self._context(context), object_id, values), pick="object")

    def delete(self, object_id: str, context: Optional[str] = None) -> BatchCall:
        return self.call(*calls.delete(self._context(context), object_id))

    def save(self, context: Optional[str] = None) -> BatchCall:
        return self.call(*calls.context_only("save", self._context(context)))

    def rollback(self, context: Optional[str] = None) -> BatchCall:
        return self.call(*calls.context_only("rollback", self._context(context)))

    def _resolve(self, responses: Sequence[Response], raise_on_error: bool) -> List[BatchCall]:
        for item, response in zip(self.calls, responses):
            item.response = response
        if raise_on_error:
            for item in self.calls:
                if item.error is not None:
                    raise item.error
        return self.calls


class Batch(BatchBase):
    def __init__(self, client: "Client", context: Optional[str]) -> None:
        super().__init__(context)
        self.client = client

    def send(self, raise_on_error: bool = True) -> List[BatchCall]:
        """Send the batch; with ``raise_on_error`` the first failed call's error is raised
        (every call still has its outcome)."""
        if self.sent:
            raise RuntimeError("the batch was already sent")
        self.sent = True
        if not self.calls:
            return []
        responses = self.client.send_batch([(c.method, c.params) for c in self.calls])
        return self._resolve(responses, raise_on_error)

    def __enter__(self) -> "Batch":
        return self

    def __exit__(self, exc_type: Any, *rest: Any) -> None:
        if exc_type is None and not self.sent:
            self.send()
