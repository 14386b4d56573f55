"""Lifecycle, store and contexts against the real fetchd (FETCHD=/path/to/fetchd)."""
import pytest

from fetchd import PROTOCOL_VERSION, Calls, Client, FetchdError, fetch_request

from conftest import fetchd_binary
from models import CONTACTS

pytestmark = pytest.mark.server


def test_initialize_unknown_method_and_shutdown_in_both_framings(framing):
    client = Client.spawn(fetchd_binary(), framing=framing, initialize=False)
    info = client.initialize(client_info={"name": "pytest", "version": "1"})
    assert info["serverInfo"]["name"] == "fetchd"
    assert info["protocolVersion"] == 1
    assert isinstance(info["capabilities"], dict)
    with pytest.raises(FetchdError) as caught:
        client.request("no/such/method")
    assert caught.value.code == -32601
    assert client.stop() == 0


def test_spawn_sends_initialize_and_checks_the_protocol_version():
    client = Client.spawn(fetchd_binary(), client_info={"name": "pytest"})
    assert client.server_info is not None
    assert client.server_info["protocolVersion"] == PROTOCOL_VERSION
    assert client.server_info["serverInfo"]["name"] == "fetchd"
    with pytest.raises(FetchdError) as caught:  # spawn's was the session's initialize
        client.initialize()
    assert caught.value.kind == "alreadyInitialized"
    assert client.stop() == 0


def test_eof_on_stdin_exits_zero():
    client = Client.spawn(fetchd_binary(), framing="ndjson")
    client.open_store(CONTACTS)
    assert client.close() == 0


def test_store_open_and_context_crud(server):
    opened = server.open_store(CONTACTS)
    assert opened["entities"] == ["Contact"]
    main = server.context()
    ana = main.insert("Contact", {"name": "Ana", "initial": "A", "phone": "555"})
    assert ana["id"].startswith("Contact/") and ana["name"] == "Ana" and ana["phone"] == "555"
    assert ana["age"] == 0 and ana["favorite"] is False
    bob = main.insert("Contact", {"name": "Bob", "initial": "B", "age": 40, "score": 0.1})
    assert bob["score"] == 0.1
    assert main.update(ana["id"], {"age": 30})["age"] == 30
    (got,) = main.get([ana["id"]], keys=["name", "age"])
    assert got == {"id": ana["id"], "name": "Ana", "age": 30}
    request = fetch_request("Contact", predicate="age >= 30", sort_descriptors=["-age"])
    assert [o["name"] for o in main.fetch(request)] == ["Bob", "Ana"]
    assert main.count(fetch_request("Contact")) == 2
    assert main.save() == {"inserted": 2, "updated": 0, "deleted": 0}
    main.delete(bob["id"])
    assert main.count(fetch_request("Contact")) == 1
    main.rollback()
    assert main.count(fetch_request("Contact")) == 2


def test_child_context_saves_into_its_parent(server):
    server.open_store(CONTACTS)
    child = server.create_context("editor", parent="main")
    made = child.insert("Contact", {"name": "Cy", "initial": "C"})
    assert server.context().count(fetch_request("Contact")) == 0
    child.save()
    assert [o["id"] for o in server.context().fetch(fetch_request("Contact"))] == [made["id"]]


@pytest.mark.parametrize(
    "method, params, code, kind",
    [
        ("context/insert", {"context": "main", "entity": "Nope", "values": {}}, -32020, "unknownEntity"),
        ("context/insert", {"context": "nope", "entity": "Contact", "values": {"name": "x", "initial": "x"}}, -32023, "unknownContext"),
        ("context/update", {"context": "main", "id": "Contact/999", "values": {"name": "x"}}, -32022, "unknownObject"),
        ("context/insert", {"context": "main", "entity": "Contact", "values": {"name": "x", "initial": "x", "shoe": 1}}, -32021, "unknownKey"),
        ("context/insert", {"context": "main", "entity": "Contact", "values": {"name": 5, "initial": "x"}}, -32602, "typeMismatch"),
        ("context/fetch", {"context": "main", "request": {"entity": "Contact", "predicate": "name ==="}}, -32602, "predicateSyntax"),
        ("context/insert", {"context": "main", "entity": "Contact"}, -32602, "invalidParams"),
        ("controller/rows", {"controller": "nope", "section": 0}, -32024, "unknownController"),
    ],
)
def test_bad_input_is_a_clear_error_that_changes_nothing(server, method, params, code, kind):
    """Codes and kinds from the server's one error table (protocol.md §3)."""
    server.open_store(CONTACTS)
    with pytest.raises(FetchdError) as caught:
        server.request(method, params)
    assert (caught.value.code, caught.value.kind) == (code, kind), caught.value
    assert server.context().count(fetch_request("Contact")) == 0


def test_batch_is_one_cycle_with_per_call_results(server):
    server.open_store(CONTACTS)
    seen = []
    server.add_listener(lambda method, params: seen.append(method))
    server.context().controller("all", fetch_request("Contact", sort_descriptors=["name"]))
    with server.context().batch() as batch:
        first = batch.insert("Contact", {"name": "Ana", "initial": "A"})
        second = batch.insert("Contact", {"name": "Bea", "initial": "B"})
    assert first.result["name"] == "Ana" and second.result["name"] == "Bea"
    assert seen.count("controller/willChangeContent") == 1
    assert seen.count("controller/didChangeContent") == 1
    assert seen.count("controller/didChangeObject") == 2


def test_generated_methods_and_calls_alone_or_in_a_batch(server):
    """The document's methods, called by their Python names or built once as Calls."""
    server.open_store(CONTACTS)
    batch = server.batch()
    made = batch.add(Calls.context_insert("main", "Contact", {"name": "Ana", "initial": "A"}))
    counted = batch.add(Calls.context_count("main", fetch_request("Contact")))
    batch.send()
    ana = made.result["object"]
    assert ana["name"] == "Ana" and counted.result == {"count": 1}
    assert server.call(Calls.context_get("main", [ana["id"]], keys=["name"])) == {"objects": [{"id": ana["id"], "name": "Ana"}]}
    assert server.context_update("main", ana["id"], {"age": 3})["object"]["age"] == 3
    assert server.server_echo({"pi": 3.14, "s": "é"}) == {"pi": 3.14, "s": "é"}
    assert server.server_ping() == {}
    assert server.context_save("main") == {"inserted": 1, "updated": 0, "deleted": 0}
    server.context_create("side", merges_changes_from_parent=False, merge_policy="overwrite")
    assert server.context_count("side", fetch_request("Contact")) == {"count": 1}
