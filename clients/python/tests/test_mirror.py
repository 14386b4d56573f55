import random

import pytest

from fetchd import ChangeBatch, MirrorError, ObjectChange, SectionChange, SectionInfo, TableMirror
from fetchd.mirror import MirrorSection
from fetchd.delegate import ControllerCore

from reference_cycle import cycle, info, table_of


def obj(n, **values):
    return {"id": f"Contact/{n}", **values}


def load(mirror, table):
    mirror.load([SectionInfo.from_wire(info(name, rows)) for name, rows in table], [rows for _, rows in table])


def as_table(mirror):
    return [(s.name, s.rows) for s in mirror.sections]


def apply(mirror, notifications):
    core = ControllerCore("c", mirror=mirror)
    for method, params in notifications:
        core.handle_notification(method, params)
    return core


def change(kind, n, path=None, new_path=None, **values):
    params = {"type": kind, "id": f"Contact/{n}"}
    if path is not None:
        params["indexPath"] = list(path)
    if new_path is not None:
        params["newIndexPath"] = list(new_path)
        params["object"] = obj(n, **values)
    return ObjectChange.from_wire(params)


def section(kind, index, name, count):
    return SectionChange.from_wire({"type": kind, "sectionIndex": index, "section": info(name, [0] * count)})


def test_insert_into_an_empty_unsectioned_table():
    mirror = TableMirror()
    load(mirror, [("", [])])
    mirror.apply(ChangeBatch(objects=[change("insert", 1, new_path=(0, 0), text="hi")]))
    assert as_table(mirror) == [("", [obj(1, text="hi")])]
    assert mirror.count == 1


def test_rename_moves_a_contact_into_a_new_section_and_empties_the_old_one():
    mirror = TableMirror()
    load(mirror, [("A", [obj(1, name="Ana")]), ("C", [obj(2, name="Cid")])])
    batch = ChangeBatch(
        sections=[section("delete", 0, "A", 1), section("insert", 1, "Z", 1)],
        objects=[change("move", 1, (0, 0), (1, 0), name="Zoe")],
    )
    mirror.apply(batch)
    assert as_table(mirror) == [("C", [obj(2, name="Cid")]), ("Z", [obj(1, name="Zoe")])]
    assert mirror.section_index_titles() == ["C", "Z"]


def test_swap_is_one_move_and_one_update():
    mirror = TableMirror()
    load(mirror, [("", [obj(1, k=1), obj(2, k=2), obj(3, k=3)])])
    # 1 and 2 swap keys: NEW order 2,1,3. 2 stays (earliest in NEW), 1 moves.
    mirror.apply(
        ChangeBatch(objects=[change("move", 1, (0, 0), (0, 1), k=2), change("update", 2, (0, 1), (0, 0), k=1)])
    )
    assert mirror.ids() == [["Contact/2", "Contact/1", "Contact/3"]]
    assert mirror.object_at((0, 0)) == obj(2, k=1)
    assert mirror.object_at((0, 1)) == obj(1, k=2)


def test_deletes_apply_from_the_highest_index_path_down():
    mirror = TableMirror()
    load(mirror, [("", [obj(n) for n in range(1, 6)])])
    mirror.apply(ChangeBatch(objects=[change("delete", 4, (0, 3)), change("delete", 2, (0, 1)), change("delete", 1, (0, 0))]))
    assert mirror.ids() == [["Contact/3", "Contact/5"]]


def test_update_without_values_keeps_only_the_id_when_the_controller_sends_ids_only():
    mirror = TableMirror()
    load(mirror, [("", [{"id": "Contact/1"}])])
    mirror.apply(ChangeBatch(objects=[ObjectChange.from_wire({"type": "update", "id": "Contact/1", "indexPath": [0, 0], "newIndexPath": [0, 0]})]))
    assert mirror.sections[0].rows == [{"id": "Contact/1"}]


@pytest.mark.parametrize(
    "batch, message",
    [
        (ChangeBatch(objects=[change("delete", 9, (0, 0))]), "holds 'Contact/1'"),
        (ChangeBatch(objects=[change("delete", 1, (0, 5))]), "has 2 rows"),
        (ChangeBatch(objects=[change("insert", 3, new_path=(2, 0))]), "no section 2"),
        (ChangeBatch(sections=[section("delete", 0, "", 2)]), "unreported"),
        (ChangeBatch(objects=[change("update", 2, (0, 0), (0, 0))]), "updates 'Contact/2'"),
        # Fails after earlier steps changed the mirror: those are undone.
        (ChangeBatch(objects=[change("delete", 2, (0, 1)), change("insert", 3, new_path=(2, 0))]), "no section 2"),
        (
            ChangeBatch(
                sections=[section("insert", 1, "Z", 1)],
                objects=[change("move", 1, (0, 0), (1, 0)), change("update", 9, (0, 0), (0, 0))],
            ),
            "updates 'Contact/9'",
        ),
    ],
)
def test_an_inconsistent_batch_raises_and_leaves_the_mirror_unchanged(batch, message):
    mirror = TableMirror()
    load(mirror, [("", [obj(1), obj(2)])])
    with pytest.raises(MirrorError, match=message):
        mirror.apply(batch)
    assert mirror.ids() == [["Contact/1", "Contact/2"]]
    assert [s.name for s in mirror.sections] == [""]


def test_load_checks_the_section_counts():
    with pytest.raises(MirrorError):
        TableMirror().load([SectionInfo("", "", 2)], [[obj(1)]])


def test_reference_cycles_rebuild_new_from_old_over_random_runs():
    """Random contact books: each cycle inserts, deletes and edits (section and sort keys);
    the mirror fed the cycle's notifications must equal the NEW table exactly."""
    rng = random.Random(20261123)
    letters = "ABCDE"
    for run in range(150):
        objects = {}
        next_id = 1
        for _ in range(rng.randint(0, 8)):
            objects[next_id] = {"id": f"Contact/{next_id}", "initial": rng.choice(letters), "rank": rng.randint(0, 5)}
            next_id += 1
        mirror = TableMirror()
        old = table_of(list(objects.values()), "initial", "rank")
        load(mirror, old)
        for _ in range(12):
            changed = set()
            for _ in range(rng.randint(1, 4)):
                op = rng.random()
                if op < 0.3 or not objects:
                    objects[next_id] = {"id": f"Contact/{next_id}", "initial": rng.choice(letters), "rank": rng.randint(0, 5)}
                    next_id += 1
                elif op < 0.5:
                    objects.pop(rng.choice(list(objects)))
                else:
                    n = rng.choice(list(objects))
                    key = rng.choice(["initial", "rank"])
                    value = rng.choice(letters) if key == "initial" else rng.randint(0, 5)
                    if objects[n][key] != value:
                        objects[n] = {**objects[n], key: value}
                        changed.add(objects[n]["id"])
            new = table_of(list(objects.values()), "initial", "rank")
            notes = cycle("c", old, new, changed & {o["id"] for o in objects.values()})
            core = apply(mirror, notes)
            assert as_table(mirror) == new, f"run {run}"
            assert core.cycles == (1 if notes else 0)
            old = new


def test_large_cycles_of_rows_mode_rebuild_sections_in_runs():
    """Cycles that remove, insert and move hundreds of rows of a few big sections (runs of
    consecutive rows, and more runs than are spliced one at a time): the mirror fed the
    cycle's notifications equals the NEW table, section changes included."""
    rng = random.Random(20261128)
    for run in range(30):
        objects = {}
        for n in range(1, rng.randint(100, 400)):
            objects[n] = {"id": f"Contact/{n}", "initial": rng.choice("ABC"), "rank": rng.randint(0, 50)}
        next_id = len(objects) + 1
        mirror = TableMirror()
        old = table_of(list(objects.values()), "initial", "rank")
        load(mirror, old)
        for _ in range(4):
            changed = set()
            for n in rng.sample(sorted(objects), len(objects) // rng.choice([2, 3, 10])):
                roll = rng.random()
                if roll < 0.4:
                    del objects[n]
                elif roll < 0.8:
                    objects[n] = {**objects[n], "rank": rng.randint(0, 50), "initial": rng.choice("ABCD")}
                    changed.add(objects[n]["id"])
            for _ in range(rng.randint(0, 150)):
                objects[next_id] = {"id": f"Contact/{next_id}", "initial": rng.choice("ABCD"), "rank": rng.randint(0, 50)}
                next_id += 1
            new = table_of(list(objects.values()), "initial", "rank")
            apply(mirror, cycle("c", old, new, changed & {o["id"] for o in objects.values()}))
            assert as_table(mirror) == new, f"run {run}"
            old = new


def test_a_row_removed_twice_in_one_cycle_is_refused_whole():
    mirror = TableMirror()
    load(mirror, [("", [obj(1), obj(2), obj(3)])])
    with pytest.raises(MirrorError, match="removed twice"):
        mirror.apply(ChangeBatch(objects=[change("delete", 2, (0, 1)), change("move", 2, (0, 1), (0, 0))]))
    assert mirror.ids() == [["Contact/1", "Contact/2", "Contact/3"]]


def test_many_moves_in_one_section_rebuild_it_once_as_removes_then_inserts_would():
    """A cycle of many moves within its sections (no section added or removed) rebuilds each
    section in one pass; over random runs it must leave exactly what removing the old runs
    and then inserting the new ones leaves, and a bad position must change nothing."""
    from fetchd.changes import Difference
    from fetchd.mirror import _Undoable

    rng = random.Random(20261126)
    for run in range(400):
        n = rng.randint(20, 80)
        rows = [obj(i) for i in range(n)]
        removed, pos = [], 0
        while pos < n and len(removed) < 30:
            start = pos + rng.randint(0, 3)
            if start >= n:
                break
            count = rng.randint(1, min(3, n - start))
            removed.append((start, count))
            pos = start + count + 1
        total = n - sum(c for _, c in removed)
        added, at, k = [], 0, 0
        for _ in range(rng.randint(9, 25)):
            row = rng.randint(at, total)
            objects = [obj(1000 + k + j) for j in range(rng.randint(1, 3))]
            k += len(objects)
            added.append((row, objects))
            total += len(objects)
            at = row + len(objects)
        one = _Undoable([MirrorSection("", None)])
        one.sections[0].rows = list(rows)
        one.replace_runs(0, removed, added)
        two = _Undoable([MirrorSection("", None)])
        two.sections[0].rows = list(rows)
        two.remove_runs(0, removed)
        two.insert_runs(0, added)
        assert one.sections[0].rows == two.sections[0].rows, f"run {run}"
    # Twenty moves of a 40-row section, the last one to a row past the end: refused whole.
    mirror = TableMirror()
    load(mirror, [("", [obj(i) for i in range(40)])])
    moved = [[0, 2 * i, 0, i] for i in range(20)]
    moved[-1][3] = 45
    diff = Difference.from_wire({
        "controller": "c", "sections": {"deleted": [], "inserted": []}, "deleted": [], "inserted": [],
        "moved": moved, "updated": [], "ids": [f"Contact/{2 * i}" for i in range(20)]})
    with pytest.raises(MirrorError):
        mirror.apply_difference(diff)
    assert as_table(mirror) == [("", [obj(i) for i in range(40)])]


@pytest.mark.parametrize("entry", [[0, 1], [0, 1, True], [0, "1", 2], (0, 1, 2), 7, [0, 1, 2, 3]])
def test_a_malformed_run_is_named(entry):
    """Runs are checked a column at a time; the one that fails is still named."""
    from fetchd.changes import Difference
    from fetchd.errors import ProtocolViolation

    params = {"controller": "c", "sections": {"deleted": [], "inserted": []}, "deleted": [[0, 0, 1], entry],
              "inserted": [], "moved": [], "updated": [], "ids": []}
    with pytest.raises(ProtocolViolation, match=r"deleted: malformed entry"):
        Difference.from_wire(params)
    params["deleted"] = [[0, 0, 1], [0, 3, 2]]
    assert Difference.from_wire(params).deleted == [(0, 0, 1), (0, 3, 2)]


@pytest.mark.parametrize("keys", [["age"], ["name", "age"], []])
def test_difference_rows_are_the_objects_rows_mode_carries(keys):
    """One key (a dict display) or several (a zip): the same objects; a row short of its
    values is read as far as it goes, as rows mode would have no more."""
    from fetchd.changes import Difference

    values = {"age": [[30], [41], []], "name,age": [["Ana", 30], ["Bo", 41], ["Cy"]], "": [[], [], []]}[",".join(keys)]
    diff = Difference.from_wire({
        "controller": "c", "sections": {"deleted": [], "inserted": []}, "deleted": [], "inserted": [[0, 0, 3]],
        "moved": [], "updated": [], "ids": ["Contact/1", "Contact/2", "Contact/3"], "keys": keys, "values": values})
    expected = [{"id": i, **dict(zip(keys, row))} for i, row in zip(diff.ids, values)]
    assert diff.rows(0, 3) == expected
    assert diff.rows(1, 2) == expected[1:]
    assert list(diff.rows(0, 1)[0]) == ["id", *keys][:len(values[0]) + 1]
