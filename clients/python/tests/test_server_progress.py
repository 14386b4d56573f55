"""progress= against the real fetchd: the long calls hand their $/progress notifications to a
callback as one begin ... end sequence before they return, batch_insert_in_parts adds its own
"sending rows" reports, a failed call still ends, and the listener is gone afterwards."""
import asyncio
import io

import pytest

from fetchd import AsyncClient, FetchdError, Progress, fetch_request

from conftest import fetchd_binary
from models import CONTACTS, check_mirror

pytestmark = pytest.mark.server

KEYS = ["name", "initial", "age"]


def contact_rows(count):
    return [[f"c{i:05d}", "ABC"[i % 3], i % 90] for i in range(count)]


def check_sequence(seen):
    """One begin first, one end last, reports between; within a step (the message up to its
    ':') the percentages never go down. Returns the report messages."""
    assert seen, "the callback saw nothing"
    assert seen[0].kind == "begin" and seen[0].title
    assert seen[-1].kind == "end"
    assert all(p.kind == "report" for p in seen[1:-1])
    assert len({p.token for p in seen}) == 1
    last = {}
    for p in seen[1:-1]:
        step = p.message.split(":")[0]
        if p.percentage is not None:
            assert 0 <= p.percentage <= 100
            assert p.percentage >= last.get(step, 0), f"{p.message} went back"
            last[step] = p.percentage
    return [p.message for p in seen[1:-1]]


def test_batch_insert_in_parts_reports_one_coherent_sequence(server):
    server.open_store(CONTACTS)
    people = server.context().controller("people", fetch_request("Contact", sort_descriptors=["name"]))
    listeners_before = list(server.core._listeners)
    seen = []
    result = server.batch_insert_in_parts("Contact", KEYS, contact_rows(50_000), part_bytes=64 << 10,
                                          progress=seen.append)
    assert result["count"] == 50_000
    messages = check_sequence(seen)
    assert seen[0].title == "store/batchInsert"
    sending = [p for p in seen if p.message and p.message.startswith("sending rows: ")]
    assert len(sending) > 3, "the parts were not reported"
    assert sending[-1].message == "sending rows: 50000 of 50000" and sending[-1].percentage == 100
    # The final part's steps follow the sending: fetchd checks (and writes) every held row.
    after = messages[messages.index(sending[-1].message) + 1:]
    assert any(m == "checking 50000 rows" or m.startswith("writing rows") for m in after), after
    assert seen[-1].message.startswith("done in ")
    check_mirror(people)

    # Nothing after the end: the listener went with the call.
    assert server.core._listeners == listeners_before
    count = len(seen)
    server.batch_insert_in_parts("Contact", KEYS, contact_rows(20), progress=False)
    server.store_batch_delete("Contact", predicate="age > 80")
    assert len(seen) == count


def test_a_failing_insert_in_parts_still_ends_and_raises(server):
    server.open_store(CONTACTS)
    rows = contact_rows(30_000)
    rows[-1] = ["late", "L", "not a number"]  # refused when the final part is checked
    seen = []
    with pytest.raises(FetchdError) as caught:
        server.batch_insert_in_parts("Contact", KEYS, rows, part_bytes=64 << 10, progress=seen.append)
    assert caught.value.code == -32030
    check_sequence(seen)
    assert seen[-1].message.startswith("failed")
    assert server.core._listeners == []

    # Refused in the first part (a held one): the client ends the sequence itself.
    rows = contact_rows(30_000)
    rows[1] = ["short"]
    seen = []
    with pytest.raises(FetchdError):
        server.batch_insert_in_parts("Contact", KEYS, rows, part_bytes=64 << 10, progress=seen.append)
    check_sequence(seen)
    assert seen[-1].message.startswith("failed after ")
    assert server.context().count(fetch_request("Contact")) == 0
    assert server.core._listeners == []


def test_one_request_calls_report_fetchds_steps(server):
    opened = []
    server.open_store(CONTACTS, progress=opened.append)
    check_sequence(opened)
    assert opened[0].title == "store/open"

    server.batch_insert("Contact", keys=KEYS, rows=contact_rows(500))
    created = []
    old = server.context().controller("old", fetch_request("Contact", predicate="age >= 40", sort_descriptors=["name"]),
                                      progress=created.append)
    check_sequence(created)
    assert created[0].title == "controller/create" and created[-1].message.startswith("done in ")

    deleted = []
    result = server.batch_delete("Contact", predicate="age > 80", progress=deleted.append)
    assert result["count"] > 0
    messages = check_sequence(deleted)
    assert deleted[0].title == "store/batchDelete" and "updating controllers" in messages
    check_mirror(old)

    updated = []
    server.batch_update("Contact", {"initial": "Z"}, predicate="age < 10", progress=updated.append)
    assert check_sequence(updated) and updated[0].title == "store/batchUpdate"

    refused = []
    with pytest.raises(FetchdError):
        server.batch_insert("Contact", keys=KEYS, rows=[["x", "X", "old"]], progress=refused.append)
    check_sequence(refused)
    assert refused[-1].message.startswith("failed")
    assert server.core._listeners == []


def test_the_default_draws_a_bar_only_on_a_terminal(server, monkeypatch):
    class FakeTTY(io.StringIO):
        def isatty(self):
            return True

    server.open_store(CONTACTS)
    pipe = io.StringIO()
    monkeypatch.setattr("sys.stderr", pipe)
    server.batch_insert_in_parts("Contact", KEYS, contact_rows(100))
    assert pipe.getvalue() == ""

    terminal = FakeTTY()
    monkeypatch.setattr("sys.stderr", terminal)
    server.batch_insert_in_parts("Contact", KEYS, contact_rows(100), progress=False)
    assert terminal.getvalue() == ""
    server.batch_insert_in_parts("Contact", KEYS, contact_rows(20_000), part_bytes=64 << 10)
    drawn = terminal.getvalue()
    assert drawn.startswith("\r") and drawn.endswith("\n") and drawn.count("\n") == 1
    assert "store/batchInsert: done in " in drawn.split("\r")[-1]

    seen = []
    terminal.truncate(0)
    terminal.seek(0)
    server.batch_insert_in_parts("Contact", KEYS, contact_rows(100), progress=seen.append)
    assert terminal.getvalue() == "" and seen[-1].kind == "end"


def test_the_async_client_routes_each_call_its_own_progress():
    async def main():
        client = await AsyncClient.spawn(fetchd_binary())
        try:
            opened = []
            await client.open_store(CONTACTS, progress=opened.append)
            await client.batch_insert("Contact", keys=KEYS, rows=contact_rows(2000))
            updated, deleted = [], []
            await asyncio.gather(
                client.batch_update("Contact", {"initial": "Q"}, predicate="age < 30", progress=updated.append),
                client.batch_delete("Contact", predicate="age > 60", progress=deleted.append),
            )
            created = []
            await client.controller("main", "all", fetch_request("Contact", sort_descriptors=["name"]),
                                    progress=created.append)
            assert client.core._listeners == []
            return opened, updated, deleted, created
        finally:
            await client.close()

    opened, updated, deleted, created = asyncio.run(main())
    titles = []
    for seen in (opened, updated, deleted, created):
        check_sequence(seen)
        titles.append(seen[0].title)
    assert titles == ["store/open", "store/batchUpdate", "store/batchDelete", "controller/create"]
    assert updated[0].token != deleted[0].token
    assert all(isinstance(p, Progress) for p in opened)
