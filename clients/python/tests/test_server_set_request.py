"""controller/setRequest against the real fetchd: a search field's keystrokes, a new sort and
new sections each reach the mirror as one change cycle, never a reload."""
import random

import pytest

from fetchd import fetch_request

from models import CONTACTS, check_mirror

pytestmark = pytest.mark.server


def test_keystrokes_narrow_and_widen_through_one_cycle_each(server):
    server.open_store(CONTACTS)
    main = server.context()
    for name in ["Ana", "Anton", "Al", "Bo", "Bea", "Cy"]:
        main.insert("Contact", {"name": name, "initial": name[0]})
    main.save()
    by_name = fetch_request("Contact", sort_descriptors=["name"])
    people = main.controller("people", by_name)
    cycles = []
    server.add_listener(lambda method, params: cycles.append(method) if method == "controller/didChangeContent" else None)
    for prefix in ["A", "An", "Ant", "An", ""]:
        predicate = f'name BEGINSWITH "{prefix}"' if prefix else None
        people.set_request(fetch_request("Contact", predicate=predicate, sort_descriptors=["name"]))
        check_mirror(people)
    assert len(cycles) == 5  # every keystroke changes the rows: one cycle each
    assert [r["name"] for r in people.mirror.sections[0].rows] == ["Al", "Ana", "Anton", "Bea", "Bo", "Cy"]

    # New sort, then sections by initial, then none again: the request stays when omitted.
    people.set_request(fetch_request("Contact", sort_descriptors=["-name"]))
    check_mirror(people)
    people.set_request(section_name_key_path="initial")
    check_mirror(people)
    assert [s.name for s in people.mirror.sections] == ["A", "B", "C"]  # sections ascend (§8)
    people.set_request(section_name_key_path=None)
    check_mirror(people)
    assert people.section_name_key_path is None and len(people.mirror.sections) == 1


def test_random_request_changes_keep_the_mirror_exact(server):
    server.open_store(CONTACTS)
    main = server.context()
    rng = random.Random(7)
    for i in range(40):
        main.insert("Contact", {"name": f"n{rng.randrange(100):02d}", "initial": "ABC"[rng.randrange(3)],
                                "age": rng.randrange(60)})
    main.save()
    people = main.controller("people", fetch_request("Contact", sort_descriptors=["name"]))
    for step in range(30):
        request = fetch_request(
            "Contact",
            predicate=rng.choice([None, "age > 20", "age < 40", "initial != 'B'", "name BEGINSWITH 'n1'"]),
            sort_descriptors=rng.choice([["name"], ["-age", "name"], ["initial", "-name"]]),
            fetch_limit=rng.choice([None, None, 7]), fetch_offset=rng.choice([0, 0, 3]))
        people.set_request(request, section_name_key_path=rng.choice(["initial", None]))
        check_mirror(people)
        if step % 5 == 0:
            main.update(people.mirror.sections[0].rows[0]["id"] if people.mirror.sections and people.mirror.sections[0].rows
                        else main.fetch(fetch_request("Contact"))[0]["id"], {"age": rng.randrange(60)})
            check_mirror(people)
