#!/usr/bin/env python3
"""An in-memory stand-in for fetchd, for testing the samples and the live view before (or
without) the real server. It is NOT fetchd and proves nothing about it: it implements only
what the samples use (store/open, context insert/update/delete/save/rollback/fetch/count,
JSON-RPC batches as one cycle, controllers sorted by attributes with "compare" (strings,
numbers, ISO dates), sectionNameKeyPath, notify keys, rows/sections/index titles), no
predicates, no child contexts, no delete rules, and computes each cycle's notifications with
tests/reference_cycle.py. Framing is taken from --framing (lsp or ndjson).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_cycle import cycle  # noqa: E402

framing = sys.argv[sys.argv.index("--framing") + 1] if "--framing" in sys.argv else "lsp"
out, inp = sys.stdout.buffer, sys.stdin.buffer


def write(message):
    body = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()
    out.write((b"Content-Length: %d\r\n\r\n" % len(body) + body) if framing == "lsp" else body + b"\n")
    out.flush()


def read():
    if framing == "ndjson":
        line = inp.readline()
        while line and not line.strip():
            line = inp.readline()
        return json.loads(line) if line else None
    length = None
    while True:
        line = inp.readline()
        if not line:
            return None
        if not line.strip():
            break
        name, _, value = line.decode().partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    return json.loads(inp.read(length))


class Failure(Exception):
    def __init__(self, code, message, **data):
        super().__init__(message)
        self.error = {"code": code, "message": message, "data": data}


entities = {}
objects = {}  # id -> values (the context "main"; saving is bookkeeping only)
saved = {}
next_number = {}
controllers = {}  # name -> {request, section, keys, ids_only, table}


def number(object_id):
    return int(object_id.split("/")[1])


def table_for(spec):
    request = spec["request"]
    rows = [dict(values, id=oid) for oid, values in objects.items() if oid.split("/")[0] == request["entity"]]
    section_key = spec["section"]

    def text(value):
        if value is None:
            return ""
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)

    def key(row):
        parts = [text(row.get(section_key))] if section_key else []
        return parts

    descriptors = request.get("sortDescriptors", [])
    rows.sort(key=number_key)
    for descriptor in reversed(descriptors):
        rows.sort(key=lambda r: (r.get(descriptor["key"]) is not None, r.get(descriptor["key"])), reverse=not descriptor.get("ascending", True))
    if section_key and (not descriptors or descriptors[0]["key"] != section_key):
        rows.sort(key=lambda r: text(r.get(section_key)))
    offset, limit = request.get("fetchOffset", 0), request.get("fetchLimit")
    rows = rows[offset: offset + limit if limit else None]
    table = []
    for row in rows:
        name = key(row)[0] if section_key else ""
        if not table or table[-1][0] != name:
            table.append((name, []))
        table[-1][1].append(project(spec, row))
    return table or [("", [])] if not section_key else table


def number_key(row):
    return number(row["id"])


def project(spec, row):
    if spec["ids_only"]:
        return {"id": row["id"]}
    if spec["keys"] is not None:
        return {"id": row["id"], **{k: row.get(k) for k in spec["keys"]}}
    return dict(row)


def info(name, rows):
    return {"name": name, "indexTitle": name[:1].upper(), "numberOfObjects": len(rows)}


def wire_object(oid):
    return dict(objects[oid], id=oid)


def handle(method, params, changed):
    if method == "initialize":
        return {"serverInfo": {"name": "reference-server", "version": "0"}, "protocolVersion": 1, "capabilities": {}}
    if method == "shutdown":
        return None
    if method == "store/open":
        for entity in params["model"]["entities"]:
            entities[entity["name"]] = entity
            next_number[entity["name"]] = 1
        return {"entities": list(entities), "migrated": False}
    if method == "context/insert":
        entity = entities.get(params["entity"])
        if entity is None:
            raise Failure(-32001, "Unknown entity", kind="unknownEntity", entity=params["entity"])
        values = {k: a.get("default") for k, a in entity.get("attributes", {}).items()}
        values.update(params.get("values", {}))
        oid = f"{entity['name']}/{next_number[entity['name']]}"
        next_number[entity["name"]] += 1
        objects[oid] = values
        return {"object": wire_object(oid)}
    if method == "context/update":
        oid = params["id"]
        if oid not in objects:
            raise Failure(-32002, "Unknown object", kind="unknownObject", id=oid)
        for k, v in params["values"].items():
            if objects[oid].get(k) != v:
                objects[oid][k] = v
                changed.add(oid)
        return {"object": wire_object(oid)}
    if method == "context/delete":
        if params["id"] not in objects:
            raise Failure(-32002, "Unknown object", kind="unknownObject", id=params["id"])
        del objects[params["id"]]
        return {}
    if method == "context/save":
        counts = {"inserted": len(objects.keys() - saved.keys()), "deleted": len(saved.keys() - objects.keys()),
                  "updated": sum(1 for k in objects.keys() & saved.keys() if objects[k] != saved[k])}
        saved.clear()
        saved.update({k: dict(v) for k, v in objects.items()})
        return counts
    if method == "context/rollback":
        objects.clear()
        objects.update({k: dict(v) for k, v in saved.items()})
        changed.update(objects)
        return {}
    if method in ("context/fetch", "context/count"):
        spec = {"request": params["request"], "section": None, "keys": None, "ids_only": False}
        rows = [r for _, section in table_for(spec) for r in section]
        return {"objects": rows} if method == "context/fetch" else {"count": len(rows)}
    if method == "controller/create":
        notify = params.get("notify") or {}
        spec = {"request": params["request"], "section": params.get("sectionNameKeyPath"),
                "keys": notify.get("keys"), "ids_only": notify.get("objects") is False}
        spec["table"] = table_for(spec)
        controllers[params["name"]] = spec
        return {"sections": [info(n, r) for n, r in spec["table"]], "count": sum(len(r) for _, r in spec["table"])}
    spec = controllers.get(params.get("controller"))
    if method.startswith("controller/") and spec is None:
        raise Failure(-32003, "Unknown controller", kind="unknownController", controller=params.get("controller"))
    if method == "controller/sections":
        return {"sections": [info(n, r) for n, r in spec["table"]]}
    if method == "controller/rows":
        rows = spec["table"][params["section"]][1][params.get("offset", 0):]
        keys = params.get("keys")
        rows = [{"id": r["id"], **{k: r.get(k) for k in keys}} if keys is not None else r for r in rows]
        return {"objects": rows[: params["limit"]] if params.get("limit") is not None else rows}
    if method == "controller/sectionIndexTitles":
        titles = []
        for name, rows in spec["table"]:
            if info(name, rows)["indexTitle"] not in titles:
                titles.append(info(name, rows)["indexTitle"])
        return {"titles": titles}
    if method == "controller/sectionForIndexTitle":
        for i, (name, rows) in enumerate(spec["table"]):
            if info(name, rows)["indexTitle"] == params["title"]:
                return {"section": i}
        raise Failure(-32004, "No such index title", kind="unknownIndexTitle")
    raise Failure(-32601, "Method not found", kind="methodNotFound", method=method)


def end_cycle(changed):
    notes = []
    for name, spec in controllers.items():
        new = table_for(spec)
        alive = {r["id"] for _, rows in new for r in rows}
        for method, params in cycle(name, spec["table"], new, changed & alive):
            notes.append({"jsonrpc": "2.0", "method": method, "params": params})
        spec["table"] = new
    return notes


def answer(request, changed):
    try:
        result = handle(request["method"], request.get("params") or {}, changed)
        return {"jsonrpc": "2.0", "id": request.get("id"), "result": result}
    except Failure as failure:
        return {"jsonrpc": "2.0", "id": request.get("id"), "error": failure.error}


while True:
    message = read()
    if message is None:
        sys.exit(0)
    requests = message if isinstance(message, list) else [message]
    changed = set()
    replies = [answer(r, changed) for r in requests if r.get("method") != "exit"]
    if any(r.get("method") == "exit" for r in requests):
        sys.exit(0)
    for note in end_cycle(changed):
        write(note)
    replies = [r for r, q in zip(replies, requests) if "id" in q]
    if replies:
        write(replies if isinstance(message, list) else replies[0])
