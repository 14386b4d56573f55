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


def test_an_insert_in_parts_is_one_cycle_with_ids_in_row_order(server):
    server.open_store(CONTACTS)
    people = server.context().controller("people", fetch_request("Contact", sort_descriptors=["age", "name"]))
    cycles = []
    server.add_listener(lambda method, params: cycles.append(method) if method == "controller/didChangeContent" else None)
    sent = []
    original = server.write
    server.write = lambda data: (sent.append(data), original(data))[1]
    rows = [[f"p{i:05d}", "P", (i * 7919) % 90] for i in range(25_000)]
    result = server.batch_insert_in_parts("Contact", ["name", "initial", "age"], rows, part_bytes=200_000,
                                          return_ids=True)
    server.write = original
    # 10,000 rows first, then parts of about 200 kB: several requests, one cycle.
    assert len(sent) >= 3 and all(len(data) < 400_000 for data in sent[1:])
    assert result["count"] == 25_000 == len(result["ids"])
    numbers = [int(i.split("/")[1]) for i in result["ids"]]
    assert numbers == sorted(numbers)
    assert len(cycles) == 1
    check_mirror(people)
    got = server.context().get(result["ids"][:1] + result["ids"][-1:], keys=["name"])
    assert [o["name"] for o in got] == ["p00000", "p24999"]


def test_a_bad_part_raises_numbered_through_the_insert_and_nothing_is_held(server):
    server.open_store(CONTACTS)
    rows = [[f"p{i}", "P", i % 90] for i in range(30_000)]
    rows[20_003][2] = "old"
    with pytest.raises(FetchdError) as caught:
        server.batch_insert_in_parts("Contact", ["name", "initial", "age"], rows, part_bytes=100_000)
    assert caught.value.code == -32030
    assert [(e["row"], e["key"]) for e in caught.value.data["errors"]] == [(20_003, "age")]
    assert caught.value.data["heldRowsDropped"] > 0
    assert server.store_cancel_batch_insert("Contact")["count"] == 0
    assert server.context().count(fetch_request("Contact")) == 0
    # The client is still in step: the next insert in parts works.
    assert server.batch_insert_in_parts("Contact", ["name", "initial", "age"], rows[:3])["count"] == 3
