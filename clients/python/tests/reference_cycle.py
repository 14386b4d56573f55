"""A reference producer of one cycle's notifications (protocol.md §10) for tables the
tests build by hand, so the mirror and delegate tests can use arbitrary valid batches.

A table is a list of (section name, [objects]); objects are dicts with an "id". ``changed``
names the objects whose values changed in the cycle. Stays (no move) are the unchanged
survivors plus changed survivors kept greedily in NEW order while their OLD order still
increases and their section name is unchanged: a valid batch, not necessarily the fewest moves.
"""
from typing import Any, Dict, List, Sequence, Set, Tuple

Table = List[Tuple[str, List[Dict[str, Any]]]]


def positions(table: Table) -> Dict[str, Tuple[int, int, str]]:
    out = {}
    for s, (name, rows) in enumerate(table):
        for r, row in enumerate(rows):
            out[row["id"]] = (s, r, name)
    return out


def info(name: str, rows: Sequence[Any]) -> Dict[str, Any]:
    return {"name": name, "indexTitle": name[:1].upper(), "numberOfObjects": len(rows)}


def cycle(controller: str, old: Table, new: Table, changed: Set[str]) -> List[Tuple[str, Dict[str, Any]]]:
    """The notifications (method, params) of one cycle in wire order; [] when nothing changed."""
    before, after = positions(old), positions(new)
    new_objects = {row["id"]: row for _, rows in new for row in rows}
    old_order = {oid: i for i, oid in enumerate(sorted(before, key=lambda o: before[o][:2]))}
    new_ids = sorted(after, key=lambda o: after[o][:2])
    survivors = [o for o in new_ids if o in before]
    stays: List[str] = []
    moves: List[str] = []
    for oid in survivors:  # unchanged survivors keep their relative order by construction
        if oid not in changed:
            stays.append(oid)
    stays_sorted = sorted(stays, key=lambda o: new_ids.index(o))
    for oid in (o for o in survivors if o in changed):
        candidate = sorted(stays_sorted + [oid], key=lambda o: new_ids.index(o))
        olds = [old_order[o] for o in candidate]
        if before[oid][2] == after[oid][2] and olds == sorted(olds):
            stays_sorted = candidate
        else:
            moves.append(oid)
    updates = [o for o in stays_sorted if o in changed]

    old_names = [name for name, _ in old]
    new_names = [name for name, _ in new]
    section_deletes = [i for i, name in enumerate(old_names) if name not in new_names]
    section_inserts = [i for i, name in enumerate(new_names) if name not in old_names]
    deletes = [o for o in before if o not in after]
    inserts = [o for o in after if o not in before]
    if not (section_deletes or section_inserts or deletes or inserts or moves or updates):
        return []

    def path(where: Dict[str, Tuple[int, int, str]], oid: str) -> List[int]:
        return [where[oid][0], where[oid][1]]

    out: List[Tuple[str, Dict[str, Any]]] = [("controller/willChangeContent", {"controller": controller})]
    for i in sorted(section_deletes, reverse=True):
        out.append(("controller/didChangeSection", {"controller": controller, "type": "delete", "sectionIndex": i, "section": info(*old[i])}))
    for i in sorted(section_inserts):
        out.append(("controller/didChangeSection", {"controller": controller, "type": "insert", "sectionIndex": i, "section": info(*new[i])}))
    for oid in sorted(deletes, key=lambda o: before[o][:2], reverse=True):
        out.append(("controller/didChangeObject", {"controller": controller, "type": "delete", "id": oid, "indexPath": path(before, oid)}))
    for kind, ids in (("move", moves), ("insert", inserts), ("update", updates)):
        for oid in sorted(ids, key=lambda o: after[o][:2]):
            params: Dict[str, Any] = {"controller": controller, "type": kind, "id": oid, "newIndexPath": path(after, oid), "object": dict(new_objects[oid])}
            if kind != "insert":
                params["indexPath"] = path(before, oid)
            out.append(("controller/didChangeObject", params))
    out.append(("controller/didChangeContent", {"controller": controller}))
    return out


def table_of(objects: Sequence[Dict[str, Any]], section_key: str, sort_key: str) -> Table:
    """Sections by section key ascending, rows by sort key then id number (protocol.md §8)."""
    ordered = sorted(objects, key=lambda o: (o[section_key], o[sort_key], int(o["id"].split("/")[1])))
    table: Table = []
    for obj in ordered:
        if not table or table[-1][0] != obj[section_key]:
            table.append((obj[section_key], []))
        table[-1][1].append(dict(obj))
    return table
