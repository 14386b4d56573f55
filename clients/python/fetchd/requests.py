"""Builders for the wire shapes clients send most: fetch requests and sort descriptors."""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Union, cast

from .wire_types import SortDescriptorComparator, FetchRequest, SortDescriptor

SortSpec = Union[str, SortDescriptor, Mapping[str, Any]]


def sort(key: str, ascending: bool = True, comparator: Optional[SortDescriptorComparator] = None) -> SortDescriptor:
    """A sort descriptor; comparator is "compare", "caseInsensitiveCompare" or
    "localizedStandardCompare" (the server's default when omitted is "compare")."""
    descriptor: SortDescriptor = {"key": key, "ascending": ascending}
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
) -> FetchRequest:
    """A FetchRequest object. A plain string sort spec means ascending by that key; a leading
    "-" means descending ("-updatedAt")."""
    request: FetchRequest = {"entity": entity}
    if predicate is not None:
        request["predicate"] = predicate
    if variables is not None:
        request["variables"] = variables
    if sort_descriptors:
        descriptors: List[SortDescriptor] = []
        for spec in sort_descriptors:
            if isinstance(spec, str):
                descending = spec.startswith("-")
                descriptors.append(sort(spec[1:] if descending else spec, not descending))
            else:
                descriptors.append(cast(SortDescriptor, dict(spec)))
        request["sortDescriptors"] = descriptors
    if fetch_limit is not None:
        request["fetchLimit"] = fetch_limit
    if fetch_offset is not None:
        request["fetchOffset"] = fetch_offset
    if fetch_batch_size is not None:
        request["fetchBatchSize"] = fetch_batch_size
    return request

