"""Controllers, notifications and the TableMirror against the real fetchd."""
import asyncio

import pytest

from fetchd import AsyncClient, fetch_request

from conftest import fetchd_binary
from models import CONTACTS, NOTES, check_mirror, events, section_events, stamp

pytestmark = pytest.mark.server

BY_INITIAL = fetch_request("Contact", sort_descriptors=["initial", "name"])


def test_create_sends_no_notifications_and_loads_the_mirror(server):
    server.open_store(CONTACTS)
    main = server.context()
    for name in ["Cy", "Ana", "Al", "Bo"]:
        main.insert("Contact", {"name": name, "initial": name[0]})
    seen = []
    server.add_listener(lambda method, params: seen.append(method))
    contacts = main.controller("contacts", BY_INITIAL, section_name_key_path="initial")
    assert seen == []
    assert [(s.name, s.index_title, s.number_of_objects) for s in contacts.sections_at_create] == [
        ("A", "A", 2), ("B", "B", 1), ("C", "C", 1)
    ]
    assert [[r["name"] for r in s.rows] for s in contacts.mirror.sections] == [["Al", "Ana"], ["Bo"], ["Cy"]]
    assert contacts.section_index_titles() == ["A", "B", "C"]
    assert contacts.section_for_index_title("B", 1) == 1
    bo = contacts.mirror.object_at((1, 0))
    assert contacts.index_path(bo["id"]) == (1, 0)
    assert contacts.object_at((1, 0))["id"] == bo["id"]
    check_mirror(contacts)


def test_contacts_rename_moves_across_sections(server):
    server.open_store(CONTACTS)
    main = server.context()
    ana = main.insert("Contact", {"name": "Ana", "initial": "A"})
    main.insert("Contact", {"name": "Cid", "initial": "C"})
    contacts = main.controller("contacts", BY_INITIAL, section_name_key_path="initial")
    main.update(ana["id"], {"name": "Zoe", "initial": "Z"})
    assert section_events(contacts) == [("delete", 0, "A"), ("insert", 1, "Z")]
    assert events(contacts) == [("move", ana["id"], (0, 0), (1, 0))]
    assert contacts.mirror.section_index_titles() == ["C", "Z"]
    check_mirror(contacts)


def test_phone_edit_is_an_update_and_a_noop_sends_nothing(server):
    server.open_store(CONTACTS)
    main = server.context()
    ana = main.insert("Contact", {"name": "Ana", "initial": "A", "phone": "1"})
    contacts = main.controller("contacts", BY_INITIAL, section_name_key_path="initial")
    main.update(ana["id"], {"phone": "2"})
    assert events(contacts) == [("update", ana["id"], (0, 0), (0, 0))]
    assert contacts.mirror.object_at((0, 0))["phone"] == "2"
    cycles = contacts.cycles
    main.update(ana["id"], {"phone": "2"})  # the same value: no change, no will/did pair
    assert contacts.cycles == cycles
    check_mirror(contacts)


def test_notes_edit_moves_to_top_and_deleting_the_last_note_empties_the_table(server):
    server.open_store(NOTES)
    main = server.context()
    notes = main.controller("notes", fetch_request("Note", sort_descriptors=["-updatedAt"]))
    made = [main.insert("Note", {"title": f"n{i}", "updatedAt": stamp(i)}) for i in range(3)]
    assert notes.mirror.ids() == [[made[2]["id"], made[1]["id"], made[0]["id"]]]
    main.update(made[0]["id"], {"contents": "edited", "updatedAt": stamp(10)})
    assert events(notes) == [("move", made[0]["id"], (0, 2), (0, 0))]
    for note in made:
        main.delete(note["id"])
    assert notes.mirror.ids() == [[]]  # one section named "" stays, even when empty
    assert notes.sections()[0].number_of_objects == 0
    check_mirror(notes)


def test_swap_is_one_move_and_one_update(server):
    server.open_store(NOTES)
    main = server.context()
    a = main.insert("Note", {"title": "a", "updatedAt": stamp(1)})
    b = main.insert("Note", {"title": "b", "updatedAt": stamp(2)})
    notes = main.controller("notes", fetch_request("Note", sort_descriptors=["updatedAt"]))
    with main.batch() as batch:
        batch.update(a["id"], {"updatedAt": stamp(2)})
        batch.update(b["id"], {"updatedAt": stamp(1)})
    assert sorted(e[0] for e in events(notes)) == ["move", "update"]
    assert events(notes)[0] == ("move", a["id"], (0, 0), (0, 1))
    check_mirror(notes)


def test_fetch_limit_window_stays_exact(server):
    server.open_store(NOTES)
    main = server.context()
    top = main.controller("top", fetch_request("Note", sort_descriptors=["-updatedAt"], fetch_limit=2))
    made = [main.insert("Note", {"title": f"n{i}", "updatedAt": stamp(i)}) for i in range(4)]
    assert top.mirror.ids() == [[made[3]["id"], made[2]["id"]]]
    main.delete(made[3]["id"])
    assert top.mirror.ids() == [[made[2]["id"], made[1]["id"]]]
    check_mirror(top)


def test_notify_projection_keys_and_ids_only(server):
    server.open_store(CONTACTS)
    main = server.context()
    keyed = main.controller("keyed", BY_INITIAL, notify={"keys": ["name"]})
    bare = main.controller("bare", BY_INITIAL, notify={"objects": False})
    ana = main.insert("Contact", {"name": "Ana", "initial": "A", "phone": "1"})
    assert keyed.mirror.object_at((0, 0)) == {"id": ana["id"], "name": "Ana"}
    assert bare.mirror.object_at((0, 0)) == {"id": ana["id"]}
    check_mirror(keyed)


def test_async_client_controller_cycle():
    async def main():
        client = await AsyncClient.spawn(fetchd_binary(), framing="ndjson")
        await client.open_store(NOTES)
        ctx = client.context()
        notes = await ctx.controller("notes", fetch_request("Note", sort_descriptors=["-updatedAt"]))
        a = await ctx.insert("Note", {"title": "a", "updatedAt": stamp(1)})
        b = await ctx.insert("Note", {"title": "b", "updatedAt": stamp(2)})
        assert notes.mirror.ids() == [[b["id"], a["id"]]]
        async with ctx.batch() as batch:
            batch.delete(a["id"])
            batch.insert("Note", {"title": "c", "updatedAt": stamp(3)})
        assert notes.cycles == 3
        assert [[r["title"] for r in s.rows] for s in notes.mirror.sections] == [["c", "b"]]
        assert await notes.fetched() == [notes.mirror.sections[0].rows]
        # The generated request methods, awaited, next to the handles.
        rows = await client.controller_rows("notes", 0, keys=["title"])
        assert rows == {"objects": [{"id": r["id"], "title": r["title"]} for r in notes.mirror.sections[0].rows]}
        assert await client.controller_index_path("notes", b["id"]) == {"indexPath": [0, 1]}
        assert await notes.index_path(b["id"]) == (0, 1)
        assert (await client.context_count("main", fetch_request("Note")))["count"] == 2
        assert await client.stop() == 0

    asyncio.run(main())


def test_duplicate_controller_name_is_refused_and_the_first_keeps_working(server):
    from fetchd import FetchdError

    server.open_store(NOTES)
    main = server.context()
    notes = main.controller("notes", fetch_request("Note", sort_descriptors=["updatedAt"]))
    with pytest.raises(FetchdError) as caught:
        main.controller("notes", fetch_request("Note"))
    assert (caught.value.code, caught.value.kind) == (-32025, "duplicateName")
    made = main.insert("Note", {"title": "a", "updatedAt": stamp(1)})
    assert notes.mirror.ids() == [[made["id"]]]


def test_child_context_save_reaches_controllers_on_the_parent(server):
    server.open_store(NOTES)
    main = server.context()
    notes = main.controller("notes", fetch_request("Note", sort_descriptors=["-updatedAt"]))
    editor = server.create_context("editor", parent="main")
    draft = editor.insert("Note", {"title": "draft", "updatedAt": stamp(1)})
    assert notes.mirror.ids() == [[]]  # unsaved in the child: main does not see it
    editor.save()
    assert events(notes) == [("insert", draft["id"], None, (0, 0))]
    check_mirror(notes)


def test_perform_fetch_reloads_the_mirror_and_close_forgets_the_controller(server):
    from fetchd import FetchdError

    server.open_store(NOTES)
    main = server.context()
    notes = main.controller("notes", fetch_request("Note", sort_descriptors=["updatedAt"]))
    made = [main.insert("Note", {"title": f"n{i}", "updatedAt": stamp(i)}) for i in range(3)]
    seen = []
    server.add_listener(lambda method, params: seen.append(method))
    sections = notes.perform_fetch()
    assert seen == []  # performFetch sends no notifications
    assert [s.number_of_objects for s in sections] == [3]
    assert notes.mirror.ids() == [[m["id"] for m in made]]
    check_mirror(notes)
    notes.close()
    with pytest.raises(FetchdError) as caught:
        notes.sections()
    assert caught.value.kind == "unknownController"
    main.insert("Note", {"title": "after close", "updatedAt": stamp(9)})
    assert seen == []  # a closed controller gets no more notifications
