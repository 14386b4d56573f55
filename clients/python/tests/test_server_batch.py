"""store/batchInsert, batchUpdate, batchUpdateObjects and batchDelete against the real fetchd:
random batches (objects and the columnar rows) each reach a live controller's mirror as one
cycle; a bad batch lists every problem by row and key and writes nothing."""
import random

import pytest

from fetchd import FetchdError, fetch_request

from models import CONTACTS, check_mirror

pytestmark = pytest.mark.server


def test_random_batches_keep_the_mirror_exact(server):
    server.open_store(CONTACTS)
    main = server.context()
    people = main.controller("people", fetch_request("Contact", sort_descriptors=["age", "name"]))
    cycles = []
    server.add_listener(lambda method, params: cycles.append(method) if method == "controller/didChangeContent" else None)
    rng = random.Random(11)
    for step in range(30):
        before = len(cycles)
        roll = rng.randrange(3)
        if roll == 0:
            rows = [[f"n{rng.randrange(1000):03d}", "ABC"[rng.randrange(3)], rng.randrange(80)] for _ in range(rng.randrange(1, 40))]
            objects = [{"name": "obj", "initial": "O"}] if rng.random() < 0.3 else None
            result = server.store_batch_insert("Contact", objects=objects, keys=["name", "initial", "age"], rows=rows,
                                               return_ids=True)
            assert result["count"] == len(rows) + len(objects or []) == len(result["ids"])
        elif roll == 1:
            result = server.store_batch_update("Contact", {"age": rng.randrange(80)}, predicate="age < $a",
                                               variables={"a": rng.randrange(80)})
        else:
            result = server.store_batch_delete("Contact", predicate=f"initial == '{'ABCO'[rng.randrange(4)]}' AND age > 40")
        check_mirror(people)
        assert len(cycles) - before == (1 if result["count"] else 0), f"step {step}"


def test_a_bad_batch_lists_every_problem_and_writes_nothing(server):
    server.open_store(CONTACTS)
    with pytest.raises(FetchdError) as caught:
        server.store_batch_insert("Contact", objects=[{"name": "ok", "initial": "O"}, {"name": 3}],
                                  keys=["name", "initial", "age"], rows=[["a", "A", "old"], ["b"]])
    assert caught.value.code == -32030
    problems = [(e.get("row"), e.get("key")) for e in caught.value.data["errors"]]
    assert problems == [(1, "initial"), (1, "name"), (2, "age"), (3, None)]
    assert server.context().count(fetch_request("Contact")) == 0


KEYS = ["name", "initial", "age", "phone"]


def test_batch_update_objects_both_forms_one_cycle(server):
    server.open_store(CONTACTS)
    ids = server.store_batch_insert("Contact", keys=["name", "initial", "age"],
                                    rows=[[f"p{i}", "P", i] for i in range(12)], return_ids=True)["ids"]
    main = server.context()
    people = main.controller("people", fetch_request("Contact", sort_descriptors=["age", "name"]))
    other = server.create_context("other")
    old = other.controller("old", fetch_request("Contact", predicate="age >= 40", sort_descriptors=["name"]))
    cycles = []
    server.add_listener(lambda method, params: cycles.append(params["controller"])
                        if method == "controller/didChangeContent" else None)
    result = server.store_batch_update_objects(
        "Contact",
        objects=[{"id": ids[0], "age": 70, "name": "Zed"}, {"id": ids[1], "phone": "555"}],
        ids=[ids[2], ids[3], ids[4]], keys=["age", "initial"], rows=[[41, "Q"], [42, "R"], [1, "S"]])
    assert result == {"count": 5}
    assert sorted(cycles) == ["old", "people"]
    check_mirror(people)
    check_mirror(old)
    assert [[r["id"] for r in s.rows] for s in old.mirror.sections] == [[ids[0], ids[2], ids[3]]]
    fresh = main.fetch(fetch_request("Contact", sort_descriptors=["age", "name"]))
    assert [[dict(r) for r in s.rows] for s in people.mirror.sections] == [fresh]
    got = [[o[k] for k in KEYS] for o in main.get(ids[:6], KEYS)]
    assert got == [["Zed", "P", 70, None], ["p1", "P", 1, "555"], ["p2", "Q", 41, None], ["p3", "R", 42, None],
                   ["p4", "S", 1, None], ["p5", "P", 5, None]]


def test_batch_update_objects_lists_every_problem_and_writes_nothing(server):
    server.open_store(CONTACTS)
    ids = server.store_batch_insert("Contact", keys=["name", "initial", "age"],
                                    rows=[["a", "A", 1], ["b", "B", 2], ["c", "C", 3]], return_ids=True)["ids"]
    main = server.context()
    people = main.controller("people", fetch_request("Contact", sort_descriptors=["age"]))
    cycles = []
    server.add_listener(lambda method, params: cycles.append(method) if method == "controller/didChangeContent" else None)
    request = fetch_request("Contact", sort_descriptors=["age"])
    before = main.fetch(request)
    with pytest.raises(FetchdError) as caught:
        server.store_batch_update_objects(
            "Contact",
            objects=[{"id": ids[0], "age": 50}, {"id": "Contact/999", "age": 3}, {"id": ids[1], "name": None}],
            ids=[ids[2], ids[0]], keys=["age"], rows=[["old"], [4]])
    assert caught.value.code == -32030
    problems = [(e.get("row"), e.get("id"), e.get("key")) for e in caught.value.data["errors"]]
    assert problems == [(1, "Contact/999", None), (2, None, "name"), (3, None, "age"), (4, ids[0], None)]
    assert all(e["reason"] for e in caught.value.data["errors"])
    for bad in ({"ids": ["Contact-1"], "keys": ["age"], "rows": [[5]]},
                {"objects": [{"id": "Contact", "age": 5}]},
                {"ids": [ids[0]], "keys": ["age"], "rows": [[5], [6]]}):
        with pytest.raises(FetchdError) as caught:
            server.store_batch_update_objects("Contact", **bad)
        assert caught.value.code == -32602, bad
    assert cycles == []
    assert main.fetch(request) == before
    check_mirror(people)
