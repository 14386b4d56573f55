"""Method names and parameter objects of every fetchd call, shared by the synchronous and the
asyncio API so both speak exactly the same wire shapes."""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

from .requests import drop_none

Call = Tuple[str, Dict[str, Any]]


def initialize(client_name: str, version: Optional[str]) -> Call:
    return "initialize", {"clientInfo": drop_none({"name": client_name, "version": version})}


def open_store(model: Dict[str, Any], path: Optional[str]) -> Call:
    return "store/open", drop_none({"path": path, "model": model})


def create_context(
    name: str, parent: Optional[str], merges_changes_from_parent: Optional[bool], merge_policy: Optional[str]
) -> Call:
    return "context/create", drop_none(
        {
            "name": name,
            "parent": parent,
            "mergesChangesFromParent": merges_changes_from_parent,
            "mergePolicy": merge_policy,
        }
    )


def insert(context: str, entity: str, values: Optional[Dict[str, Any]]) -> Call:
    return "context/insert", {"context": context, "entity": entity, "values": dict(values or {})}


def update(context: str, object_id: str, values: Dict[str, Any]) -> Call:
    return "context/update", {"context": context, "id": object_id, "values": dict(values)}


def delete(context: str, object_id: str) -> Call:
    return "context/delete", {"context": context, "id": object_id}


def get(context: str, ids: Sequence[str], keys: Optional[Sequence[str]]) -> Call:
    return "context/get", drop_none({"context": context, "ids": list(ids), "keys": _list(keys)})


def fetch(context: str, request: Dict[str, Any]) -> Call:
    return "context/fetch", {"context": context, "request": request}


def count(context: str, request: Dict[str, Any]) -> Call:
    return "context/count", {"context": context, "request": request}


def context_only(method: str, context: str) -> Call:
    """save, rollback, processPendingChanges, close."""
    return f"context/{method}", {"context": context}


def create_controller(
    context: str,
    name: str,
    request: Dict[str, Any],
    section_name_key_path: Optional[str],
    notify: Optional[Dict[str, Any]],
) -> Call:
    return "controller/create", drop_none(
        {
            "context": context,
            "name": name,
            "request": request,
            "sectionNameKeyPath": section_name_key_path,
            "notify": notify,
        }
    )


def rows(name: str, section: int, offset: int, limit: Optional[int], keys: Optional[Sequence[str]]) -> Call:
    return "controller/rows", drop_none(
        {"controller": name, "section": section, "offset": offset, "limit": limit, "keys": _list(keys)}
    )


def controller_only(method: str, name: str) -> Call:
    """performFetch, sections, sectionIndexTitles, close."""
    return f"controller/{method}", {"controller": name}


def object_at(name: str, index_path: Sequence[int]) -> Call:
    return "controller/object", {"controller": name, "indexPath": list(index_path)}


def index_path(name: str, object_id: str) -> Call:
    return "controller/indexPath", {"controller": name, "id": object_id}


def section_for_index_title(name: str, title: str, index: int) -> Call:
    return "controller/sectionForIndexTitle", {"controller": name, "title": title, "index": index}


def mirror_keys(notify: Optional[Dict[str, Any]]) -> Tuple[Optional[Sequence[str]], bool]:
    """The keys a controller's mirror rows carry, matching what its notifications carry:
    (keys for controller/rows, whether rows keep values at all)."""
    if not notify:
        return None, True
    if notify.get("objects") is False:
        return None, False
    return notify.get("keys"), True


def _list(values: Optional[Sequence[str]]) -> Optional[list]:
    return None if values is None else list(values)
