"""The TableMirror over a randomized run against the real fetchd: several controllers at once
(sections, predicate, descending sort, fetchLimit/fetchOffset, ties), random cycles of single
calls and batches, saves and rollbacks; after every cycle each mirror must equal a fresh
controller/rows. FETCHD_RANDOM_CYCLES runs longer."""
import os
import random

import pytest

from fetchd import fetch_request, sort

from models import CONTACTS, check_mirror

pytestmark = pytest.mark.server

NAMES = ["Ana", "al", "Bo", "bea", "Cy", "Dee", "dan", "Eve", "Zoe", "Émile", "", "ana"]


def random_values(rng):
    name = rng.choice(NAMES)
    return {
        "name": name,
        "initial": (name[:1] or "#").upper(),
        "age": rng.randint(0, 4),
        "score": rng.choice([0.0, 0.5, 1.25, -2.0]),
        "favorite": rng.random() < 0.5,
        "phone": rng.choice([None, "1", "2"]),
    }


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_mirrors_equal_fresh_rows_after_every_cycle(server, seed):
    rng = random.Random(seed)
    server.open_store(CONTACTS)
    main = server.context()
    for _ in range(10):
        main.insert("Contact", random_values(rng))
    controllers = [
        main.controller("sectioned", fetch_request("Contact", sort_descriptors=["initial", "name"]), section_name_key_path="initial"),
        main.controller("young", fetch_request("Contact", predicate="age < 3", sort_descriptors=["-age"])),
        main.controller(
            "window",
            fetch_request("Contact", sort_descriptors=[sort("name", comparator="caseInsensitiveCompare")], fetch_limit=4, fetch_offset=2),
        ),
        main.controller("favorites", fetch_request("Contact", predicate="favorite == YES", sort_descriptors=["score"]),
                        section_name_key_path="age", notify={"keys": ["name", "age"]}),
    ]
    cycles = int(os.environ.get("FETCHD_RANDOM_CYCLES", "60"))
    for step in range(cycles):
        ids = [o["id"] for o in main.fetch(fetch_request("Contact"))]
        op = rng.random()
        if op < 0.25 or not ids:
            main.insert("Contact", random_values(rng))
        elif op < 0.4:
            main.delete(rng.choice(ids))
        elif op < 0.7:
            values = random_values(rng)
            keys = rng.sample(sorted(values), rng.randint(1, 3))
            main.update(rng.choice(ids), {k: values[k] for k in keys})
        elif op < 0.9:
            with main.batch() as batch:
                for _ in range(rng.randint(2, 6)):
                    choice = rng.random()
                    if choice < 0.3 or not ids:
                        batch.insert("Contact", random_values(rng))
                    elif choice < 0.5:
                        batch.delete(ids.pop(rng.randrange(len(ids))))
                    else:
                        batch.update(rng.choice(ids), {"age": rng.randint(0, 4), "name": rng.choice(NAMES)})
        elif op < 0.95:
            main.save()
        else:
            main.rollback()
        for controller in controllers:
            check_mirror(controller)


@pytest.mark.parametrize("seed", [11, 12])
def test_mirrors_follow_changes_arriving_from_a_child_and_another_root_context(server, seed):
    """Controllers on "main" see cycles caused by a child's save (pushed into main) and by
    another root context's save (merged into main), besides main's own changes."""
    rng = random.Random(seed)
    server.open_store(CONTACTS)
    main = server.context()
    child = server.create_context("editor", parent="main")
    other = server.create_context("other")
    controllers = [
        main.controller("sectioned", fetch_request("Contact", sort_descriptors=["initial", "name"]), section_name_key_path="initial"),
        main.controller("young", fetch_request("Contact", predicate="age < 3", sort_descriptors=["-age", "name"], fetch_limit=5)),
    ]
    for _ in range(int(os.environ.get("FETCHD_RANDOM_CYCLES", "60"))):
        actor = rng.choice([main, child, other])
        ids = [o["id"] for o in actor.fetch(fetch_request("Contact"))]
        op = rng.random()
        if op < 0.35 or not ids:
            actor.insert("Contact", random_values(rng))
        elif op < 0.5:
            actor.delete(rng.choice(ids))
        else:
            actor.update(rng.choice(ids), {"age": rng.randint(0, 4), "name": rng.choice(NAMES)})
        if actor is not main and rng.random() < 0.6:
            actor.save()  # child: into main; other root: to the store, merged into main
        elif actor is main and rng.random() < 0.2:
            main.save()
        for controller in controllers:
            check_mirror(controller)
