"""The official MCP Python SDK (mcp 2.3.0) as the client of `fetchd mcp`, in both eras.

Default mode: the SDK probes server/discover and must settle on 2026-07-28, then listens with
client.listen(). Legacy mode: initialize, then resources/subscribe. Each run lists the tools
and resources, calls every tool, subscribes to a controller resource, commits from a plain
sqlite3 writer and from another fetchd, receives the update each time and compares the
resource with the file. A last run checks --read-only. Any warning the SDK logs (a message
that failed its type validation is only logged) fails the run.

usage: python mcp_client.py path/to/fetchd
"""

import json
import logging
import os
import sqlite3
import subprocess
import sys
import tempfile
import warnings

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.subscriptions import ResourcesListChanged, ResourceUpdated
from mcp.shared.exceptions import MCPError

import mcp_types as types

MODEL = {
    "entities": [
        {"name": "Contact", "attributes": {"name": {"type": "string"}, "age": {"type": "integer", "default": 0}}}
    ]
}
MAX_ROWS = 4
WAIT = 10  # seconds an update may take before the run fails
YOUNG = "fetchd://controller/young"
EXPECTED_TOOLS = [
    "describe_model", "fetch", "count", "aggregate", "insert", "update", "delete", "save", "history",
    "open_controller", "close_controller",
]


class SDKComplaints(logging.Handler):
    """Collects what the SDK logs at warning or above: a server message it refused, among others."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append(self.format(record))


complaints = SDKComplaints()
logging.getLogger().addHandler(complaints)
warnings.simplefilter("ignore")  # resources/subscribe is deprecated at 2026-07-28; legacy mode uses it on purpose


def check(condition, what):
    if not condition:
        raise AssertionError(what)


def rows_in_file(db, where=""):
    with sqlite3.connect(db) as conn:
        return [list(r) for r in conn.execute(f"SELECT name, age FROM Contact {where} ORDER BY name")]


def structured(result, what):
    check(not result.is_error, f"{what} failed: {result.content}")
    check(json.loads(result.content[0].text) == result.structured_content, f"{what}: text and structuredContent differ")
    return result.structured_content


async def resource_rows(client, uri):
    read = await client.read_resource(uri)
    contents = json.loads(read.contents[0].text)
    check(read.contents[0].mime_type == "application/json", "resource mimeType")
    check("truncated" not in contents, f"{uri} is truncated")
    return [[o["name"], o["age"]] for s in contents["sections"] for o in s["objects"]]


class Updates:
    """Resource updates as they arrive: from the listen stream (2026-07-28) or the message handler."""

    def __init__(self):
        self.send, self.receive = anyio.create_memory_object_stream(100)

    async def handler(self, message):
        if isinstance(message, types.ResourceUpdatedNotification):
            await self.send.send(("updated", message.params.uri))
        elif isinstance(message, types.ResourceListChangedNotification):
            await self.send.send(("listChanged", None))

    async def pump(self, subscription):
        async for event in subscription:
            if isinstance(event, ResourceUpdated):
                await self.send.send(("updated", event.uri))
            elif isinstance(event, ResourcesListChanged):
                await self.send.send(("listChanged", None))

    async def expect(self, kind, uri=None):
        with anyio.fail_after(WAIT):
            while True:
                got_kind, got_uri = await self.receive.receive()
                if got_kind == kind and (uri is None or got_uri == uri):
                    return

    def drain(self):
        while True:
            try:
                self.receive.receive_nowait()
            except anyio.WouldBlock:
                return


async def call_every_tool(client, db):
    tools = await client.list_tools()
    check([t.name for t in tools.tools] == EXPECTED_TOOLS, f"tools: {[t.name for t in tools.tools]}")
    check(all(t.input_schema["type"] == "object" for t in tools.tools), "every inputSchema is an object")
    resources = await client.list_resources()
    check([r.uri for r in resources.resources] == ["fetchd://model"], f"resources: {resources.resources}")
    templates = await client.list_resource_templates()
    check(templates.resource_templates[0].uri_template == "fetchd://controller/{name}", "template")

    model = structured(await client.call_tool("describe_model", {}), "describe_model")["model"]
    check([e["name"] for e in model["entities"]] == ["Contact"], f"model: {model}")
    read = await client.read_resource("fetchd://model")
    check(json.loads(read.contents[0].text) == model, "fetchd://model is describe_model's model")

    ids = {}
    for name, age in [("Ana", 30), ("Bo", 25), ("Cy", 61), ("Di", 44), ("Ed", 19), ("Flo", 70), ("Gil", 5)]:
        obj = structured(await client.call_tool("insert", {"entity": "Contact", "values": {"name": name, "age": age}}), "insert")
        ids[name] = obj["object"]["id"]
    structured(await client.call_tool("update", {"id": ids["Bo"], "values": {"age": 26}}), "update")
    structured(await client.call_tool("delete", {"id": ids["Gil"]}), "delete")
    saved = structured(await client.call_tool("save", {}), "save")
    check(saved["inserted"] == 6 and saved["deleted"] == 0, f"save: {saved}")
    check(rows_in_file(db) == [["Ana", 30], ["Bo", 26], ["Cy", 61], ["Di", 44], ["Ed", 19], ["Flo", 70]], "file after save")

    count = structured(await client.call_tool("count", {"entity": "Contact", "predicate": "age >= $min", "variables": {"min": 40}}), "count")
    check(count == {"count": 3}, f"count: {count}")

    # Paging: MAX_ROWS per answer, the cursor for the rest.
    first = structured(await client.call_tool("fetch", {"entity": "Contact", "sort": ["-age"], "keys": ["name"]}), "fetch")
    check(len(first["objects"]) == MAX_ROWS and "nextCursor" in first, f"first page: {first}")
    rest = structured(
        await client.call_tool("fetch", {"entity": "Contact", "sort": ["-age"], "keys": ["name"], "cursor": first["nextCursor"]}),
        "fetch with cursor")
    names = [o["name"] for o in first["objects"] + rest["objects"]]
    check(names == ["Flo", "Cy", "Di", "Ana", "Bo", "Ed"] and "nextCursor" not in rest, f"pages: {names}")

    total = structured(
        await client.call_tool("aggregate", {"entity": "Contact", "properties": [{"name": "total", "function": "sum", "keyPath": "age"}]}),
        "aggregate")
    check(total["objects"] == [{"total": 30 + 26 + 61 + 44 + 19 + 70}], f"aggregate: {total}")

    history = structured(await client.call_tool("history", {}), "history")
    check(len(history["transactions"]) >= 1 and history["more"] is False, f"history: {history}")

    # Bad arguments and unknown names: isError results that change nothing; an unknown tool is a protocol error.
    for args, kind in [
        ({"entity": "Contact", "limit": "x"}, "invalidParams"),
        ({"entity": "Contact", "colour": 1}, "invalidParams"),
        ({}, "invalidParams"),
        ({"entity": "Nobody"}, "unknownEntity"),
        ({"entity": "Contact", "predicate": "age >>> 3"}, "predicateSyntax"),
        ({"entity": "Contact", "cursor": "soon"}, "invalidParams"),
    ]:
        bad = await client.call_tool("fetch", args)
        check(bad.is_error and f'"kind":"{kind}"' in bad.content[0].text, f"fetch {args}: {bad}")
    bad = await client.call_tool("insert", {"entity": "Contact", "values": {"age": "old"}})
    check(bad.is_error, f"insert of a bad value: {bad}")
    check(structured(await client.call_tool("save", {}), "save of nothing")["inserted"] == 0, "a refused insert left nothing to save")
    try:
        await client.call_tool("drop_everything", {})
        raise AssertionError("an unknown tool was answered")
    except MCPError as error:
        check(error.error.code == -32602, f"unknown tool: {error.error}")

    opened = structured(await client.call_tool("open_controller", {"name": "old", "entity": "Contact", "predicate": "age > 60"}), "open_controller")
    check(opened["uri"] == "fetchd://controller/old" and opened["count"] == 2, f"open_controller: {opened}")
    structured(await client.call_tool("close_controller", {"name": "old"}), "close_controller")
    return ids


async def live_updates(client, db, fetchd, updates):
    """Open the controller, then commit from outside twice; each commit reaches the client."""
    updates.drain()
    structured(await client.call_tool("open_controller", {"name": "young", "entity": "Contact", "predicate": "age < 40", "sort": ["name"]}), "open young")
    await updates.expect("listChanged")
    check([r.uri for r in (await client.list_resources()).resources] == ["fetchd://model", YOUNG], "controller resource listed")
    check(await resource_rows(client, YOUNG) == rows_in_file(db, "WHERE age < 40"), "young at open")

    # A plain sqlite3 writer.
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO Contact (name, age) VALUES ('Hal', 33)")
    await updates.expect("updated", YOUNG)
    young = await resource_rows(client, YOUNG)
    check(young == rows_in_file(db, "WHERE age < 40") and ["Hal", 33] in young, f"after sqlite3: {young}")

    # Another fetchd process.
    request = {"jsonrpc": "2.0", "id": 1, "method": "store/batchUpdate",
               "params": {"entity": "Contact", "values": {"age": 50}, "predicate": "name == 'Ed'"}}
    other = subprocess.run([fetchd, "exec", "-", "--store", db], input=json.dumps(request) + "\n",
                           capture_output=True, text=True, timeout=60)
    check(other.returncode == 0 and '"result"' in other.stdout, f"other fetchd: {other.stdout} {other.stderr}")
    await updates.expect("updated", YOUNG)
    young = await resource_rows(client, YOUNG)
    check(young == rows_in_file(db, "WHERE age < 40") and ["Ed", 19] not in young, f"after fetchd: {young}")

    # This session's own change and save.
    structured(await client.call_tool("insert", {"entity": "Contact", "values": {"name": "Ivy", "age": 7}}), "insert Ivy")
    await updates.expect("updated", YOUNG)
    structured(await client.call_tool("save", {}), "save Ivy")
    check(await resource_rows(client, YOUNG) == rows_in_file(db, "WHERE age < 40"), "after own save")

    structured(await client.call_tool("close_controller", {"name": "young"}), "close young")
    await updates.expect("listChanged")
    try:
        await client.read_resource(YOUNG)
        raise AssertionError("a closed controller's resource was read")
    except MCPError as error:
        check(error.error.code == -32002, f"closed resource: {error.error}")


def server(fetchd, db, *extra):
    return StdioServerParameters(command=fetchd, args=["mcp", "--store", db, *extra])


async def run_mode(fetchd, mode, directory):
    db = os.path.join(directory, f"{mode}.db")
    model = os.path.join(directory, "model.json")
    updates = Updates()
    client = Client(server(fetchd, db, "--model", model, "--max-rows", str(MAX_ROWS)), mode=mode,
                    message_handler=updates.handler if mode == "legacy" else None, read_timeout_seconds=30)
    async with client:
        if mode == "legacy":
            check(client.protocol_version == "2025-11-25", f"legacy settled on {client.protocol_version}")
            check(client.session.initialize_result is not None, "legacy mode ran initialize")
        else:
            check(client.protocol_version == "2026-07-28", f"auto settled on {client.protocol_version}")
            check(client.session.discover_result is not None, "auto mode settled through server/discover")
        check(client.server_info.name == "fetchd", f"serverInfo: {client.server_info}")
        await call_every_tool(client, db)
        if mode == "legacy":
            await client.subscribe_resource(YOUNG)
            await live_updates(client, db, fetchd, updates)
        else:
            async with client.listen(resource_subscriptions=[YOUNG], resources_list_changed=True) as sub:
                check(sub.honored.resource_subscriptions == [YOUNG] and sub.honored.resources_list_changed, f"honored: {sub.honored}")
                async with anyio.create_task_group() as tg:
                    tg.start_soon(updates.pump, sub)
                    await live_updates(client, db, fetchd, updates)
                    tg.cancel_scope.cancel()
            # The stream ended by cancellation; the connection goes on.
            structured(await client.call_tool("count", {"entity": "Contact"}), "count after listen")
    print(f"mcp {mode}: passed")


async def run_read_only(fetchd, directory):
    db = os.path.join(directory, "auto.db")
    before = rows_in_file(db)
    async with Client(server(fetchd, db, "--read-only"), read_timeout_seconds=30) as client:
        for name, args in [("insert", {"entity": "Contact", "values": {"name": "Zed"}}), ("save", {}),
                           ("update", {"id": "Contact/1", "values": {"age": 1}}), ("delete", {"id": "Contact/1"})]:
            refused = await client.call_tool(name, args)
            check(refused.is_error and "--read-only" in refused.content[0].text and '"kind":"readOnly"' in refused.content[0].text,
                  f"read-only {name}: {refused}")
        fetched = structured(await client.call_tool("fetch", {"entity": "Contact", "sort": ["name"], "keys": ["name", "age"], "limit": 100}), "read-only fetch")
        check([[o["name"], o["age"]] for o in fetched["objects"]] == before, f"read-only fetch: {fetched}")
    check(rows_in_file(db) == before, "read-only wrote nothing")
    print("mcp read-only: passed")


async def main(fetchd):
    with tempfile.TemporaryDirectory() as directory:
        with open(os.path.join(directory, "model.json"), "w") as f:
            json.dump(MODEL, f)
        for mode in ["auto", "legacy"]:
            await run_mode(fetchd, mode, directory)
        await run_read_only(fetchd, directory)
    check(not complaints.records, "the SDK complained:\n" + "\n".join(complaints.records))
    print("3 passed, 0 failed")


if __name__ == "__main__":
    anyio.run(main, os.path.abspath(sys.argv[1]))
