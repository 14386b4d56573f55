"""The clients' transport against a scripted peer (tests/fake_fetchd.py), not the real server:
spawning, both framings, results, errors, notification dispatch before the response, batches,
controllers loading their mirror, EOF."""
import asyncio
import json
import os
from pathlib import Path

import pytest

from fetchd import PROTOCOL_VERSION, AsyncClient, Client, ConnectionClosed, FetchdError, ProtocolVersionMismatch

from reference_cycle import cycle, info

FAKE = str(Path(__file__).with_name("fake_fetchd.py"))
FRAMINGS = ["lsp", "ndjson"]


def script_env(tmp_path, steps):
    path = tmp_path / "script.json"
    path.write_text(json.dumps(steps))
    return {**os.environ, "FAKE_FETCHD_SCRIPT": str(path)}


@pytest.mark.parametrize("framing", FRAMINGS)
def test_results_errors_and_shutdown(framing):
    client = Client.spawn(FAKE, framing=framing)
    assert client.request("test/echo", {"text": "Zoë 🙂", "n": 2**62}) == {"text": "Zoë 🙂", "n": 2**62}
    with pytest.raises(FetchdError) as caught:
        client.request("test/fail", {"code": -32010, "message": "No such context", "data": {"kind": "unknownContext", "context": "x"}})
    assert (caught.value.code, caught.value.kind, caught.value.data["context"]) == (-32010, "unknownContext", "x")
    with pytest.raises(FetchdError) as caught:
        client.request("no/such")
    assert caught.value.code == -32601
    assert client.stop() == 0


@pytest.mark.parametrize("framing", FRAMINGS)
def test_cycle_notifications_reach_listeners_before_the_call_returns(framing):
    seen = []
    with Client.spawn(FAKE, framing=framing) as client:
        client.add_listener(lambda method, params: seen.append(method))
        notes = [{"method": "controller/willChangeContent", "params": {"controller": "c"}},
                 {"method": "controller/didChangeContent", "params": {"controller": "c"}}]
        assert client.request("test/cycle", {"notifications": notes, "result": {"ok": True}}) == {"ok": True}
        assert seen == ["controller/willChangeContent", "controller/didChangeContent"]


def test_batch_results_in_call_order_with_per_call_errors():
    with Client.spawn(FAKE) as client:
        batch = client.batch()
        first = batch.call("test/echo", {"a": 1})
        second = batch.call("test/fail", {"code": -32020, "message": "Denied", "data": {"kind": "deleteDenied"}})
        third = batch.call("test/echo", {"object": {"id": "Note/1"}}, pick="object")
        with pytest.raises(FetchdError):
            batch.send()
        assert first.result == {"a": 1}
        assert second.error.kind == "deleteDenied"
        assert third.result == {"id": "Note/1"}
        with pytest.raises(FetchdError):
            second.result


def controller_script(controller="notes"):
    """controller/create on an empty table, rows never fetched; then a cycle that inserts two
    notes and a later one that moves the second to the top."""
    a = {"id": "Note/1", "title": "a", "rank": 2}
    b = {"id": "Note/2", "title": "b", "rank": 1}
    b2 = {"id": "Note/2", "title": "b", "rank": 3}
    t0 = [("", [])]
    t1 = [("", [b, a])]
    t2 = [("", [b2, a])]
    as_wire = lambda notes: [{"method": m, "params": p} for m, p in notes]
    return [
        {"method": "controller/create", "result": {"sections": [info("", [])], "count": 0}},
        {"method": "context/insert", "notifications": as_wire(cycle(controller, t0, t1, set())), "result": {"object": a}},
        {"method": "context/update", "notifications": as_wire(cycle(controller, t1, t2, {"Note/2"})), "result": {"object": b2}},
        {"method": "controller/sections", "result": {"sections": [info("", [b2, a])]}},
        {"method": "controller/rows", "result": {"objects": [b2, a]}},
    ]


def test_sync_controller_mirror_follows_cycles(tmp_path):
    with Client.spawn(FAKE, env=script_env(tmp_path, controller_script())) as client:
        events = []
        delegate = type("D", (), {"did_change_object": lambda self, c, o, p, t, n: events.append((t, o["id"]))})()
        notes = client.context().controller("notes", {"entity": "Note"}, delegate=delegate)
        assert notes.mirror.ids() == [[]]
        client.context().insert("Note", {"title": "a"})
        assert notes.mirror.ids() == [["Note/2", "Note/1"]]
        client.context().update("Note/2", {"rank": 3})
        assert events == [("insert", "Note/2"), ("insert", "Note/1"), ("update", "Note/2")]
        assert notes.fetched() == [[row for row in notes.mirror.sections[0].rows]]


def test_async_client_same_behaviour(tmp_path):
    async def main():
        client = await AsyncClient.spawn(FAKE, framing="ndjson", env=script_env(tmp_path, controller_script()))
        async with client:
            assert await client.request("test/echo", {"x": [1, 2]}) == {"x": [1, 2]}
            results = await asyncio.gather(*(client.request("test/echo", {"i": i}) for i in range(20)))
            assert [r["i"] for r in results] == list(range(20))
            piped = await client.pipeline([("test/echo", {"i": i}) for i in range(20)])
            assert [r.result["i"] for r in piped] == list(range(20))
            notes = await client.context().controller("notes", {"entity": "Note"})
            await client.context().insert("Note", {"title": "a"})
            await client.context().update("Note/2", {"rank": 3})
            assert notes.mirror.ids() == [["Note/2", "Note/1"]]
            assert notes.cycles == 2
            assert await notes.fetched() == [notes.mirror.sections[0].rows]
            with pytest.raises(FetchdError) as caught:
                await client.request("test/fail", {"code": -32602, "message": "Invalid params", "data": {"kind": "invalidParams", "param": "id"}})
            assert caught.value.kind == "invalidParams"
            batch = client.batch()
            call = batch.call("test/echo", {"object": 5}, pick="object")
            await batch.send()
            assert call.result == 5
            assert await client.stop() == 0

    asyncio.run(main())


def test_delegate_errors_surface_after_the_response_is_read(tmp_path):
    with Client.spawn(FAKE, env=script_env(tmp_path, controller_script())) as client:
        class Boom:
            def did_change_content(self, controller):
                raise RuntimeError("delegate failed")

        client.context().controller("notes", {"entity": "Note"}, delegate=Boom())
        with pytest.raises(RuntimeError, match="delegate failed"):
            client.context().insert("Note", {"title": "a"})
        # The stream stayed in step: the next call gets its own answer.
        assert client.request("test/echo", {"still": "fine"}) == {"still": "fine"}


def test_server_exit_is_connection_closed():
    client = Client.spawn(FAKE)
    client.notify("exit")
    with pytest.raises(ConnectionClosed):
        client.request("test/echo", {})
    client.close()


def test_attach_to_given_streams():
    import subprocess

    process = subprocess.Popen([FAKE, "--framing", "ndjson"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    client = Client(process.stdout, process.stdin, framing="ndjson")
    assert client.request("test/echo", {"attached": True}) == {"attached": True}
    client.close()
    assert process.wait(5) == 0


def test_a_failed_create_of_a_taken_name_keeps_the_first_controller(tmp_path):
    first_cycle = cycle("notes", [("", [])], [("", [{"id": "Note/1"}])], set())
    steps = [
        {"method": "controller/create", "result": {"sections": [info("", [])], "count": 0}},
        {"method": "controller/create", "error": {"code": -32025, "message": "Name taken", "data": {"kind": "duplicateName"}}},
        {"method": "context/insert", "notifications": [{"method": m, "params": p} for m, p in first_cycle], "result": {"object": {"id": "Note/1"}}},
    ]
    with Client.spawn(FAKE, env=script_env(tmp_path, steps)) as client:
        first = client.context().controller("notes", {"entity": "Note"})
        with pytest.raises(FetchdError) as caught:
            client.context().controller("notes", {"entity": "Note"})
        assert caught.value.kind == "duplicateName"
        client.context().insert("Note", {})
        assert first.mirror.ids() == [["Note/1"]]


def test_pipelined_requests_are_answered_in_call_order_in_one_round_trip():
    with Client.spawn(FAKE, framing="ndjson") as client:
        responses = client.pipeline([("test/echo", {"i": i}) for i in range(50)] + [("no/such", None)])
        assert [r.result for r in responses[:50]] == [{"i": i} for i in range(50)]
        assert responses[50].error.code == -32601
        assert client.request("test/echo", {"after": 1}) == {"after": 1}


def test_read_bodies_leaves_decoding_to_settle_which_dispatches_the_notifications():
    seen = []
    notes = [{"method": "controller/willChangeContent", "params": {"controller": "c"}},
             {"method": "controller/didChangeContent", "params": {"controller": "c"}}]
    with Client.spawn(FAKE, framing="ndjson") as client:
        client.add_listener(lambda method, params: seen.append(method))
        ids, data = client.core.batch([("test/cycle", {"notifications": notes, "result": 7}), ("test/echo", {"x": 1})])
        client.write(data)
        bodies = client.read_bodies(lambda body: body.startswith(b"["))
        assert len(bodies) == 3 and seen == []  # two notifications, then the batch's array
        responses = client.settle(bodies, ids)
        assert [r.result for r in responses] == [7, {"x": 1}]
        assert seen == ["controller/willChangeContent", "controller/didChangeContent"]


def test_a_silent_server_times_out_instead_of_hanging(tmp_path):
    with Client.attach(["sleep", "5"], framing="ndjson", timeout=0.2) as client:
        with pytest.raises(TimeoutError):
            client.request("test/echo", {})
        client.process.kill()



def test_a_cycle_while_the_mirror_loads_restarts_the_load(tmp_path):
    """Another process's commit merged between controller/create and controller/rows: its
    cycle arrives before the rows answer. The mirror must not apply it to half-loaded rows;
    the load starts over from fresh sections and ends equal to what the server holds."""
    a = {"id": "Note/1", "title": "a", "rank": 2}
    b = {"id": "Note/2", "title": "b", "rank": 1}
    as_wire = lambda notes: [{"method": m, "params": p} for m, p in notes]
    script = [
        {"method": "controller/create", "result": {"sections": [info("", [a])], "count": 1}},
        {"method": "controller/rows", "notifications": as_wire(cycle("notes", [("", [a])], [("", [b, a])], set())),
         "result": {"objects": [b, a]}},
        {"method": "controller/sections", "result": {"sections": [info("", [b, a])]}},
        {"method": "controller/rows", "result": {"objects": [b, a]}},
    ]
    with Client.spawn(FAKE, env=script_env(tmp_path, script)) as client:
        notes = client.context().controller("notes", {"entity": "Note"})
        assert notes.mirror.ids() == [["Note/2", "Note/1"]]
        assert notes.cycles == 1


def version_env(version):
    return {**os.environ, "FAKE_FETCHD_PROTOCOL_VERSION": version}


def test_spawn_initializes_first_and_accepts_its_protocol_version():
    with Client.spawn(FAKE, env=version_env(str(PROTOCOL_VERSION))) as client:
        assert client.server_info is not None and client.server_info["protocolVersion"] == PROTOCOL_VERSION
        assert client.request("test/echo", {"after": "initialize"}) == {"after": "initialize"}


@pytest.mark.parametrize("version", [str(PROTOCOL_VERSION + 1), "none"])
def test_spawn_refuses_another_protocol_version_naming_both(version):
    with pytest.raises(ProtocolVersionMismatch) as caught:
        Client.spawn(FAKE, env=version_env(version))
    error = caught.value
    assert isinstance(error, FetchdError) and error.kind == "protocolVersionMismatch"
    assert error.binary == FAKE and error.client_version == PROTOCOL_VERSION
    message = str(error)
    assert message.startswith(f"fetchd 0.0.0-fake at {FAKE} ")
    assert f"this client (fetchd {__import__('fetchd').__version__} for Python) speaks protocol version {PROTOCOL_VERSION}" in message
    if version == "none":
        assert error.server_version is None and "does not say which protocol version it speaks" in message
    else:
        assert error.server_version == PROTOCOL_VERSION + 1
        assert f"speaks protocol version {PROTOCOL_VERSION + 1};" in message


def test_initialize_opt_out_then_an_explicit_initialize_checks_the_version():
    with Client.spawn(FAKE, env=version_env("2"), initialize=False) as client:
        assert client.server_info is None
        assert client.request("test/echo", {"n": 1}) == {"n": 1}
        with pytest.raises(ProtocolVersionMismatch, match="speaks protocol version 2;"):
            client.initialize()


def test_async_spawn_checks_the_protocol_version():
    async def main():
        client = await AsyncClient.spawn(FAKE, framing="ndjson", env=version_env("1"))
        assert client.server_info is not None and client.server_info["protocolVersion"] == 1
        await client.close()
        with pytest.raises(ProtocolVersionMismatch, match=f"fetchd 0.0.0-fake at {FAKE} speaks protocol version 7;"):
            await AsyncClient.spawn(FAKE, env=version_env("7"))
        client = await AsyncClient.spawn(FAKE, env=version_env("7"), initialize=False)
        with pytest.raises(ProtocolVersionMismatch):
            await client.initialize()
        await client.close()

    asyncio.run(main())
