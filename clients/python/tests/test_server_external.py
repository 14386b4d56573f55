"""Other processes on one file (protocol.md §5): a watching fetchd delivers their commits
unsolicited, through the same listeners, delegates and mirrors as any cycle."""
import asyncio
import sqlite3

import pytest

from fetchd import AsyncClient, Client, fetch_request

from conftest import fetchd_binary
from models import CONTACTS, check_mirror

pytestmark = pytest.mark.server


def _spawn(path, watch):
    client = Client.spawn(fetchd_binary(), framing="ndjson", args=["--watch", watch], timeout=10)
    client.store_open(model=CONTACTS, path=str(path))
    return client


def test_a_watching_client_hears_another_fetchd_and_a_plain_writer(tmp_path):
    path = tmp_path / "shared.sqlite"
    a = _spawn(path, "auto")  # inotify wakes it (poll where inotify is missing)
    b = _spawn(path, "off")
    try:
        heard = []
        a.add_listener(lambda method, params: heard.append(method))
        people = a.controller("main", "people", fetch_request("Contact", sort_descriptors=["name"]))
        writer = b.create_context("writer", transaction_author="importer")
        writer.insert("Contact", {"name": "Ana", "initial": "A"})
        writer.save()

        assert a.wait_for_notifications(5) > 0
        assert heard[-1] == "store/didChangeExternally"
        assert [r["name"] for r in people.mirror.sections[0].rows] == ["Ana"]
        check_mirror(people)

        db = sqlite3.connect(str(path), timeout=5)
        db.execute("INSERT INTO Contact (name, initial) VALUES ('Bo', 'B')")
        db.commit()
        db.close()
        assert a.wait_for_notifications(5) > 0
        assert [r["name"] for r in people.mirror.sections[0].rows] == ["Ana", "Bo"]
        check_mirror(people)
        # Nothing more comes: the wait ends at its timeout with nothing dispatched.
        assert a.wait_for_notifications(0.2) == 0

        history = a.store_history(0)
        assert [t["author"] for t in history["transactions"]] == ["importer", None]
        assert history["more"] is False
        token = a.store_history_token()["token"]
        assert token == history["transactions"][-1]["token"]
        assert a.store_check_external_changes() == {"merged": 0, "token": token}
        # b may not have merged the last commit yet (its cursor holds it): force.
        assert a.store_purge_history(token, force=True)["deleted"] >= 1
    finally:
        assert a.close() == 0
        assert b.close() == 0


def test_check_external_changes_with_watch_off(tmp_path):
    path = tmp_path / "shared.sqlite"
    a = _spawn(path, "off")
    b = _spawn(path, "off")
    try:
        people = a.controller("main", "people", fetch_request("Contact", sort_descriptors=["name"]))
        b.context().insert("Contact", {"name": "Cy", "initial": "C"})
        b.context().save()
        assert a.wait_for_notifications(0.3) == 0
        assert a.store_check_external_changes()["merged"] == 1
        assert [r["name"] for r in people.mirror.sections[0].rows] == ["Cy"]
    finally:
        assert a.close() == 0
        assert b.close() == 0


def test_async_client_hears_external_changes(tmp_path):
    path = tmp_path / "shared.sqlite"

    async def main():
        a = await AsyncClient.spawn(fetchd_binary(), framing="ndjson", args=["--watch", "poll"])
        b = await AsyncClient.spawn(fetchd_binary(), framing="ndjson", args=["--watch", "off"])
        try:
            await a.store_open(model=CONTACTS, path=str(path))
            await b.store_open(model=CONTACTS, path=str(path))
            people = await a.controller("main", "people", fetch_request("Contact", sort_descriptors=["name"]))
            await b.context().insert("Contact", {"name": "Di", "initial": "D"})
            await b.context().save()
            assert await a.wait_for_notifications(5) > 0
            assert [r["name"] for r in people.mirror.sections[0].rows] == ["Di"]
        finally:
            assert await a.close() == 0
            assert await b.close() == 0

    asyncio.run(main())
