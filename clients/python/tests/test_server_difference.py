"""notify mode "difference" (protocol.md §10.8): one controller/didChange per cycle, applied
to the mirror in one step. Each request gets two controllers, one per mode, over the same
random cycles (single calls, batches large enough to make many runs, saves, rollbacks);
after every cycle both mirrors must be equal and equal to a fresh controller/rows.
FETCHD_RANDOM_CYCLES runs longer."""
import asyncio
import os
import random

import pytest

import fetchd.mirror as mirror_module
from fetchd import AsyncClient, Difference, FetchdError, MirrorError, SectionInfo, TableMirror, fetch_request, sort

from conftest import fetchd_binary
from models import CONTACTS, check_mirror
from test_server_mirror_random import random_values

pytestmark = pytest.mark.server

REQUESTS = [
    ("sectioned", fetch_request("Contact", sort_descriptors=["initial", "name"]), "initial", None),
    ("young", fetch_request("Contact", predicate="age < 3", sort_descriptors=["-age"]), None, None),
    (
        "window",
        fetch_request("Contact", sort_descriptors=[sort("name", comparator="caseInsensitiveCompare")], fetch_limit=9, fetch_offset=3),
        None,
        None,
    ),
    ("keyed", fetch_request("Contact", sort_descriptors=["score", "name"]), "age", {"keys": ["name", "age"]}),
    ("bare", fetch_request("Contact", sort_descriptors=["age"]), None, {"objects": False}),
]


def random_cycle(rng, ids, target):
    """One random cycle on ``target`` (a context or a batch collector); returns nothing."""
    op = rng.random()
    if op < 0.3 or not ids:
        target.insert("Contact", random_values(rng))
    elif op < 0.45:
        target.delete(ids.pop(rng.randrange(len(ids))))
    else:
        target.update(rng.choice(ids), {"age": rng.randint(0, 4), "name": rng.choice(["Ana", "bo", "Cy", "dee", "Eve"]),
                                        "score": rng.choice([0.0, 0.5, 1.25])})


def assert_twins(rows_mode, difference_mode):
    assert difference_mode.mirror.snapshot() == rows_mode.mirror.snapshot()
    if (difference_mode.notify or {}).get("objects") is False:
        # Ids only: the rows hold {"id"} alone.
        fresh = [[{"id": o["id"]} for o in section] for section in difference_mode.fetched()]
        assert [[dict(r) for r in s.rows] for s in difference_mode.mirror.sections] == fresh
        assert difference_mode.mirror.section_infos() == difference_mode.sections()
    else:
        check_mirror(difference_mode)


@pytest.mark.parametrize("seed,splice_limit", [(5, 8), (6, 8), (7, 0)])
def test_difference_mirrors_equal_rows_mirrors_and_fresh_rows(server, seed, splice_limit, monkeypatch):
    # splice_limit 0: every touched section is rebuilt in one pass; 8: few runs are spliced.
    monkeypatch.setattr(mirror_module._Undoable, "SPLICE_LIMIT", splice_limit)
    rng = random.Random(seed)
    server.open_store(CONTACTS)
    main = server.context()
    with main.batch() as batch:
        for _ in range(40):
            batch.insert("Contact", random_values(rng))
    twins = []
    for name, request, section, notify in REQUESTS:
        rows = main.controller(name, request, section_name_key_path=section, notify=notify)
        diff = main.controller(name + "Diff", request, section_name_key_path=section, notify=notify, mode="difference")
        twins.append((rows, diff))
    seen = 0
    for _ in range(int(os.environ.get("FETCHD_RANDOM_CYCLES", "60"))):
        ids = [o["id"] for o in main.fetch(fetch_request("Contact"))]
        op = rng.random()
        before = [diff.cycles for _, diff in twins]
        if op < 0.5:
            with main.batch() as batch:
                # Up to 40 changes: enough runs in one section for the one-pass rebuild.
                for _ in range(rng.choice([2, 5, 40])):
                    random_cycle(rng, ids, batch)
        elif op < 0.85:
            random_cycle(rng, ids, main)
        elif op < 0.95:
            main.save()
        else:
            main.rollback()
        for (rows, diff), cycles in zip(twins, before):
            assert diff.last_batch is None
            if diff.cycles != cycles:
                assert diff.cycles == cycles + 1, "one controller/didChange per cycle"
                seen += 1
            assert_twins(rows, diff)
    assert seen > 50


def test_delete_run_and_insert_run_are_a_few_numbers(server):
    server.open_store(CONTACTS)
    main = server.context()
    by_age = fetch_request("Contact", sort_descriptors=["age"])
    diff = main.controller("diff", by_age, notify={"keys": ["age"]}, mode="difference")
    seen = []
    diff.cycle_hooks.append(lambda controller, cycle: seen.append(cycle))
    with main.batch() as batch:
        for age in range(500):
            batch.insert("Contact", {"name": "n", "initial": "N", "age": age})
    inserted = seen[-1]
    assert isinstance(inserted, Difference)
    assert inserted.inserted == [(0, 0, 500)] and inserted.keys == ["age"] and len(inserted.ids) == 500
    ids = diff.mirror.ids()[0]
    with main.batch() as batch:
        for object_id in ids[100:400]:
            batch.delete(object_id)
    assert diff.last_difference is not None and diff.last_difference.deleted == [(0, 100, 300)]
    assert diff.mirror.ids() == [ids[:100] + ids[400:]]
    check_mirror(diff)


def test_bad_mode_names_the_member(server):
    server.open_store(CONTACTS)
    with pytest.raises(FetchdError) as raised:
        server.context().controller("x", fetch_request("Contact"), notify={"mode": "x"})  # type: ignore[typeddict-item]
    assert raised.value.code == -32602 and raised.value.data["param"] == "notify.mode"


def test_a_bad_difference_leaves_the_mirror_unchanged():
    mirror = TableMirror()
    mirror.load([SectionInfo("", "", 20)], [[{"id": f"C/{i}"} for i in range(20)]])
    before = mirror.snapshot()
    # Ten one-row runs (the one-pass rebuild), then an update naming the wrong id.
    bad = Difference([], [], [(0, r, 1) for r in range(18, -1, -2)], [], [], [(0, 0, 1)], ["C/0"], None, None)
    with pytest.raises(MirrorError):
        mirror.apply_difference(bad)
    assert mirror.snapshot() == before
    good = Difference([], [], [(0, r, 1) for r in range(18, -1, -2)], [], [], [(0, 0, 1)], ["C/1"], None, None)
    mirror.apply_difference(good)
    assert mirror.ids() == [[f"C/{i}" for i in range(1, 20, 2)]]


def test_async_difference_mode():
    async def main():
        client = await AsyncClient.spawn(fetchd_binary(), framing="ndjson")
        await client.open_store(CONTACTS)
        ctx = client.context()
        rng = random.Random(9)
        request = fetch_request("Contact", sort_descriptors=["initial", "name"])
        rows = await ctx.controller("rows", request, section_name_key_path="initial")
        diff = await ctx.controller("diff", request, section_name_key_path="initial", mode="difference")
        for _ in range(30):
            ids = await ctx.fetch_ids(fetch_request("Contact"))
            async with ctx.batch() as batch:
                for _ in range(rng.randint(1, 12)):
                    random_cycle(rng, ids, batch)
            assert diff.mirror.snapshot() == rows.mirror.snapshot()
            assert diff.mirror.snapshot() == [(s, rows_) for s, rows_ in zip(await diff.sections(), await diff.fetched())]
        assert diff.cycles == rows.cycles == 30
        assert await client.stop() == 0

    asyncio.run(main())
