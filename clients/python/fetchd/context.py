"""Context handles and JSON-RPC batches: the calls they make are built here once
(``ContextCalls``, ``BatchBase``); ``Context``/``Batch`` send them synchronously, the asyncio
twins in aio.py await them."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Union, cast

from .changes import WireObject
from .protocol import BatchCall, BatchCollector, Call
from .wire_methods import Calls
from .wire_types import ContextChangesResult, ContextFetchParamsPropertiesToFetchItemOption2, ContextSaveResult, ContextUndoResult, FetchRequest

if TYPE_CHECKING:
    from .client import Client
    from .controller import Controller


def _object(result: Any) -> WireObject:
    return dict(result["object"])


def _objects(result: Any) -> List[WireObject]:
    return [dict(o) for o in result["objects"]]


def _count(result: Any) -> int:
    return int(result["count"])


def _values_of(result: Any) -> Dict[str, Any]:
    return dict(result["values"])


def _has_changes(result: Any) -> bool:
    return bool(result["hasChanges"])


def _nothing(result: Any) -> None:
    return None


def _list(keys: Optional[Sequence[str]]) -> Optional[List[str]]:
    return None if keys is None else list(keys)


def _values(values: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
    return dict(values or {})


class ContextCalls:
    """The calls a handle on context ``name`` makes, with its results picked out."""

    def __init__(self, name: str) -> None:
        self.name = name

    def insert_call(self, entity: str, values: Optional[Mapping[str, Any]]) -> Call[WireObject]:
        return Calls.context_insert(self.name, entity, _values(values)).then(_object)

    def update_call(self, object_id: str, values: Mapping[str, Any]) -> Call[WireObject]:
        return Calls.context_update(self.name, object_id, _values(values)).then(_object)

    def delete_call(self, object_id: str) -> Call[None]:
        return Calls.context_delete(self.name, object_id).then(_nothing)

    def get_call(self, ids: Sequence[str], keys: Optional[Sequence[str]]) -> Call[List[WireObject]]:
        return Calls.context_get(self.name, list(ids), keys=_list(keys)).then(_objects)

    def fetch_call(self, request: FetchRequest, keys: Optional[Sequence[str]]) -> Call[List[WireObject]]:
        return Calls.context_fetch(self.name, request, keys=_list(keys)).then(_objects)

    def fetch_dictionaries_call(
        self,
        request: FetchRequest,
        properties: Optional[Sequence[Union[str, ContextFetchParamsPropertiesToFetchItemOption2]]],
        group_by: Optional[Sequence[str]],
        having: Optional[str],
        distinct: Optional[bool],
    ) -> Call[List[Dict[str, Any]]]:
        return Calls.context_fetch(
            self.name, request, result_type="dictionary", properties_to_fetch=None if properties is None else list(properties),
            properties_to_group_by=_list(group_by), having_predicate=having, returns_distinct_results=distinct,
        ).then(lambda result: [dict(row) for row in cast(List[Dict[str, Any]], result["objects"])])

    def fetch_ids_call(self, request: FetchRequest) -> Call[List[str]]:
        return Calls.context_fetch(self.name, request, result_type="id").then(
            lambda result: [str(i) for i in result["objects"]]
        )

    def count_call(self, request: FetchRequest) -> Call[int]:
        return Calls.context_count(self.name, request).then(_count)

    def save_call(self) -> Call[ContextSaveResult]:
        return Calls.context_save(self.name)

    def rollback_call(self) -> Call[None]:
        return Calls.context_rollback(self.name).then(_nothing)

    def process_pending_changes_call(self) -> Call[None]:
        return Calls.context_process_pending_changes(self.name).then(_nothing)

    def close_call(self) -> Call[None]:
        return Calls.context_close(self.name).then(_nothing)

    def has_changes_call(self) -> Call[bool]:
        return Calls.context_has_changes(self.name).then(_has_changes)

    def changes_call(self) -> Call[ContextChangesResult]:
        return Calls.context_changes(self.name)

    def changed_values_call(self, object_id: str) -> Call[Dict[str, Any]]:
        return Calls.context_changed_values(self.name, object_id).then(_values_of)

    def committed_values_call(self, object_id: str, keys: Optional[Sequence[str]]) -> Call[Dict[str, Any]]:
        return Calls.context_committed_values(self.name, object_id, keys=_list(keys)).then(_values_of)

    def refresh_call(self, object_id: str, merge_changes: bool) -> Call[None]:
        return Calls.context_refresh(self.name, object_id, merge_changes).then(_nothing)

    def reset_call(self) -> Call[None]:
        return Calls.context_reset(self.name).then(_nothing)

    def undo_call(self) -> Call[ContextUndoResult]:
        return Calls.context_undo(self.name)

    def redo_call(self) -> Call[ContextUndoResult]:
        return Calls.context_redo(self.name)

    def undo_state_call(self) -> Call[ContextUndoResult]:
        return Calls.context_undo_state(self.name)

    def begin_undo_grouping_call(self, action_name: Optional[str]) -> Call[ContextUndoResult]:
        return Calls.context_begin_undo_grouping(self.name, action_name=action_name)

    def end_undo_grouping_call(self) -> Call[ContextUndoResult]:
        return Calls.context_end_undo_grouping(self.name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class Context(ContextCalls):
    """A named managed-object context on the server ("main" after store/open)."""

    def __init__(self, client: "Client", name: str) -> None:
        super().__init__(name)
        self.client = client

    def insert(self, entity: str, values: Optional[Mapping[str, Any]] = None) -> WireObject:
        return self.client.call(self.insert_call(entity, values))

    def update(self, object_id: str, values: Mapping[str, Any]) -> WireObject:
        return self.client.call(self.update_call(object_id, values))

    def delete(self, object_id: str) -> None:
        self.client.call(self.delete_call(object_id))

    def get(self, ids: Sequence[str], keys: Optional[Sequence[str]] = None) -> List[WireObject]:
        return self.client.call(self.get_call(ids, keys))

    def fetch(self, request: FetchRequest, keys: Optional[Sequence[str]] = None) -> List[WireObject]:
        return self.client.call(self.fetch_call(request, keys))

    def count(self, request: FetchRequest) -> int:
        return self.client.call(self.count_call(request))

    def fetch_dictionaries(
        self,
        request: FetchRequest,
        properties: Optional[Sequence[Union[str, ContextFetchParamsPropertiesToFetchItemOption2]]] = None,
        group_by: Optional[Sequence[str]] = None,
        having: Optional[str] = None,
        distinct: Optional[bool] = None,
    ) -> List[Dict[str, Any]]:
        """context/fetch with resultType "dictionary": rows of key paths and expressions
        ({"name", "function", "keyPath"}), grouped by ``group_by``, filtered by ``having``."""
        return self.client.call(self.fetch_dictionaries_call(request, properties, group_by, having, distinct))

    def fetch_ids(self, request: FetchRequest) -> List[str]:
        return self.client.call(self.fetch_ids_call(request))

    def save(self) -> ContextSaveResult:
        """Returns the counts {inserted, updated, deleted}."""
        return self.client.call(self.save_call())

    def rollback(self) -> None:
        self.client.call(self.rollback_call())

    def process_pending_changes(self) -> None:
        self.client.call(self.process_pending_changes_call())

    def close(self) -> None:
        self.client.call(self.close_call())

    def has_changes(self) -> bool:
        return self.client.call(self.has_changes_call())

    def changes(self) -> ContextChangesResult:
        """The ids of the unsaved changes: {inserted, updated, deleted}."""
        return self.client.call(self.changes_call())

    def changed_values(self, object_id: str) -> Dict[str, Any]:
        """The keys of the object that differ from the committed values, with the values here."""
        return self.client.call(self.changed_values_call(object_id))

    def committed_values(self, object_id: str, keys: Optional[Sequence[str]] = None) -> Dict[str, Any]:
        """The object's values as the parent (the store for a root) shows them."""
        return self.client.call(self.committed_values_call(object_id, keys))

    def refresh(self, object_id: str, merge_changes: bool) -> None:
        """Re-bases (merge_changes True) or drops (False) the unsaved change to the object."""
        self.client.call(self.refresh_call(object_id, merge_changes))

    def reset(self) -> None:
        self.client.call(self.reset_call())

    def undo(self) -> ContextUndoResult:
        """Undo the last group of edits (a change cycle); answers the undo state."""
        return self.client.call(self.undo_call())

    def redo(self) -> ContextUndoResult:
        return self.client.call(self.redo_call())

    def undo_state(self) -> ContextUndoResult:
        """{canUndo, canRedo, undoActionName, redoActionName, undoCount, redoCount, groupingLevel}."""
        return self.client.call(self.undo_state_call())

    def begin_undo_grouping(self, action_name: Optional[str] = None) -> ContextUndoResult:
        return self.client.call(self.begin_undo_grouping_call(action_name))

    def end_undo_grouping(self) -> ContextUndoResult:
        return self.client.call(self.end_undo_grouping_call())

    def batch(self) -> "Batch":
        """Collect calls, send them as one JSON-RPC batch (one change cycle) on ``send()`` or
        at the end of a ``with`` block."""
        return Batch(self.client, self.name)

    def controller(self, name: str, request: FetchRequest, **options: Any) -> "Controller":
        return self.client.controller(self.name, name, request, **options)


class BatchBase(BatchCollector):
    """The calls a batch can hold (``add`` takes any ``Calls.*`` call as well)."""

    def insert(
        self, entity: str, values: Optional[Mapping[str, Any]] = None, context: Optional[str] = None
    ) -> BatchCall[WireObject]:
        return self.add(ContextCalls(self._context(context)).insert_call(entity, values))

    def update(self, object_id: str, values: Mapping[str, Any], context: Optional[str] = None) -> BatchCall[WireObject]:
        return self.add(ContextCalls(self._context(context)).update_call(object_id, values))

    def delete(self, object_id: str, context: Optional[str] = None) -> BatchCall[None]:
        return self.add(ContextCalls(self._context(context)).delete_call(object_id))

    def save(self, context: Optional[str] = None) -> BatchCall[ContextSaveResult]:
        return self.add(ContextCalls(self._context(context)).save_call())

    def rollback(self, context: Optional[str] = None) -> BatchCall[None]:
        return self.add(ContextCalls(self._context(context)).rollback_call())


class Batch(BatchBase):
    def __init__(self, client: "Client", context: Optional[str]) -> None:
        super().__init__(context)
        self.client = client

    def send(self, raise_on_error: bool = True) -> List[BatchCall[Any]]:
        """Send the batch; with ``raise_on_error`` the first failed call's error is raised
        (every call still has its outcome)."""
        calls = self.start_sending()
        if not calls:
            return []
        return self.resolve(self.client.send_batch(calls), raise_on_error)

    def __enter__(self) -> "Batch":
        return self

    def __exit__(self, exc_type: Any, *rest: Any) -> None:
        if exc_type is None and not self.sent:
            self.send()
