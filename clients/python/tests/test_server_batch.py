"""store/batchInsert, batchUpdate and batchDelete against the real fetchd: random batches
(objects and the columnar rows) each reach a live controller's mirror as one cycle; a bad
batch lists every problem by row and key and writes nothing."""
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
