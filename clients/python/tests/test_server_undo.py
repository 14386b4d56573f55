"""Undo and redo against the real fetchd: per-cycle groups, explicit named groups, save keeps
the stack, a controller's mirror follows every undo and redo."""
import pytest

from fetchd import FetchdError, fetch_request

from models import CONTACTS, check_mirror

pytestmark = pytest.mark.server


def test_undo_redo_and_groups_reach_the_mirror(server):
    server.open_store(CONTACTS)
    editor = server.create_context("editor", undo={})
    people = editor.controller("people", fetch_request("Contact", sort_descriptors=["name"]))
    ana = editor.insert("Contact", {"name": "Ana", "initial": "A"})
    editor.insert("Contact", {"name": "Bo", "initial": "B"})
    assert editor.undo_state()["undoCount"] == 2
    editor.begin_undo_grouping("Rename")
    editor.update(ana["id"], {"name": "Zed"})
    editor.update(ana["id"], {"initial": "Z"})
    state = editor.end_undo_grouping()
    assert state["undoActionName"] == "Rename" and state["undoCount"] == 3
    check_mirror(people)
    editor.save()
    state = editor.undo()
    assert state["redoActionName"] == "Rename" and state["canRedo"]
    assert editor.get([ana["id"]], keys=["name"])[0]["name"] == "Ana"
    assert editor.has_changes()  # the undo of a saved group is unsaved
    check_mirror(people)
    editor.redo()
    assert not editor.has_changes()
    editor.undo()
    editor.undo()
    editor.undo()
    assert editor.count(fetch_request("Contact")) == 0
    check_mirror(people)
    editor.rollback()
    assert editor.undo_state()["canUndo"] is False


def test_undo_needs_undo_on_the_context(server):
    server.open_store(CONTACTS)
    with pytest.raises(FetchdError) as caught:
        server.context().undo()
    assert caught.value.kind == "invalidValue" and caught.value.data["key"] == "undo"
