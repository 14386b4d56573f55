"""Builders for the wire shapes clients send most: fetch requests and sort descriptors."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Union

SortSpec = Union[str, Dict[str, Any]]


def sort(key: str, ascending: bool = True, comparator: Optional[str] = None) -> Dict[str, Any]:
    """A sort descriptor; comparator is "compare", "caseInsensitiveCompare" or
    "localizedStandardCompare" (the server's default when omitted is "compare")."""
    descriptor: Dict[str, Any] = {"key": key, "ascending": ascending}
    if comparator is not None:
        descriptor["comparator"] = comparator
    return descriptor


def fetch_request(
    entity: str,
    predicate: Optional[str] = None,
    sort_descriptors: Sequence[SortSpec] = (),
    variables: Optional[Dict[str, Any]] = None,
    fetch_limit: Optional[int] = None,
    fetch_offset: Optional[int] = None,
    fetch_batch_size: Optional[int] = None,
) -> Dict[str, Any]:
    """A FetchRequest object. A plain string sort spec means ascending by that key; a leading
    "-" means descending ("-updatedAt")."""
    request: Dict[str, Any] = {"entity": entity}
    if predicate is not None:
        request["predicate"] = predicate
    if variables is not None:
        request["variables"] = variables
    if sort_descriptors:
        descriptors: List[Dict[str, Any]] = []
        for spec in sort_descriptors:
            if isinstance(spec, str):
                descending = spec.startswith("-")
                descriptors.append(sort(spec[1:] if descending else spec, not descending))
            else:
                descriptors.append(dict(spec))
        request["sortDescriptors"] = descriptors
    if fetch_limit is not None:
        request["fetchLimit"] = fetch_limit
    if fetch_offset is not None:
        request["fetchOffset"] = fetch_offset
    if fetch_batch_size is not None:
        request["fetchBatchSize"] = fetch_batch_size
    return request


def drop_none(params: Dict[str, Any]) -> Dict[str, Any]:
    """Optional parameters are omitted from the wire rather than sent as null."""
    return {k: v for k, v in params.items() if v is not None}
