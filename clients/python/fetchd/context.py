"""The calls of context handles and JSON-RPC batches, built once with no I/O
(``ContextCalls``, ``BatchBase``): the sync ``Context``/``Batch`` (client.py) send them, the
asyncio twins (aio.py) await them."""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Union, cast

from .call import BatchCall, BatchCollector, Call
from .changes import WireObject
from .wire_calls import Calls
from .wire_types import ContextChangesResult, ContextFetchParamsPropertiesToFetchItemOption2, ContextSaveResult, ContextUndoResult, FetchRequest


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
