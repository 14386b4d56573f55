"""Context introspection against the real fetchd: hasChanges, changes, changedValues,
committedValues, refresh and reset, sync and asyncio."""
import asyncio

import pytest

from fetchd import AsyncClient, FetchdError, fetch_request

from conftest import fetchd_binary
from models import CONTACTS

pytestmark = pytest.mark.server


def test_introspection_follows_the_unsaved_changes(server):
    server.open_store(CONTACTS)
    main = server.context()
    ana = main.insert("Contact", {"name": "Ana", "initial": "A", "age": 30})
    assert main.has_changes()
    assert main.changes() == {"inserted": [ana["id"]], "updated": [], "deleted": []}
    assert main.committed_values(ana["id"]) == {}
    main.save()
    assert not main.has_changes()

    main.update(ana["id"], {"age": 31, "name": "Ann"})
    assert main.changed_values(ana["id"]) == {"name": "Ann", "age": 31}
    assert main.committed_values(ana["id"], keys=["age"]) == {"age": 30}
    main.refresh(ana["id"], merge_changes=True)
    assert main.get([ana["id"]], keys=["age"])[0]["age"] == 31
    main.refresh(ana["id"], merge_changes=False)
    assert main.get([ana["id"]], keys=["name", "age"])[0] == {"id": ana["id"], "name": "Ana", "age": 30}
    assert not main.has_changes()

    main.insert("Contact", {"name": "Bo", "initial": "B"})
    main.reset()
    assert main.count(fetch_request("Contact")) == 1
    with pytest.raises(FetchdError) as caught:
        main.committed_values(ana["id"], keys=["nope"])
    assert caught.value.data["key"] == "nope"


def test_introspection_in_asyncio():
    async def run():
        client = await AsyncClient.spawn(fetchd_binary())
        await client.open_store(CONTACTS)
        main = client.context()
        ana = await main.insert("Contact", {"name": "Ana", "initial": "A"})
        assert await main.has_changes()
        assert (await main.changes())["inserted"] == [ana["id"]]
        assert (await main.changed_values(ana["id"]))["name"] == "Ana"
        await main.save()
        assert await main.committed_values(ana["id"], keys=["name"]) == {"name": "Ana"}
        await main.update(ana["id"], {"name": "Ann"})
        await main.refresh(ana["id"], False)
        assert not await main.has_changes()
        await main.reset()
        assert await client.close() == 0

    asyncio.run(run())
