"""Dictionary, aggregate and id fetches against the real fetchd."""
import pytest

from fetchd import fetch_request

from models import CONTACTS

pytestmark = pytest.mark.server


def test_groups_aggregates_having_and_ids(server):
    server.open_store(CONTACTS)
    main = server.context()
    for name, initial, age in [("Ana", "A", 30), ("Al", "A", 40), ("Bo", "B", 20), ("Cy", "C", 50)]:
        main.insert("Contact", {"name": name, "initial": initial, "age": age})
    main.save()
    rows = main.fetch_dictionaries(
        fetch_request("Contact", sort_descriptors=["-total"]),
        properties=["initial", {"name": "total", "function": "sum", "keyPath": "age"},
                    {"name": "n", "function": "count", "keyPath": "name"}],
        group_by=["initial"], having="total > 30")
    assert rows == [{"initial": "A", "total": 70, "n": 2}, {"initial": "C", "total": 50, "n": 1}]
    main.insert("Contact", {"name": "Bea", "initial": "B", "age": 1})  # unsaved: counted in memory
    assert main.fetch_dictionaries(fetch_request("Contact"), properties=["initial"], distinct=True) == [
        {"initial": "A"}, {"initial": "B"}, {"initial": "C"}]
    rows = main.fetch_dictionaries(fetch_request("Contact"), properties=[{"name": "n", "function": "count", "keyPath": "name"}],
                                   group_by=["initial"], having="n > 1")
    assert rows == [{"initial": "A", "n": 2}, {"initial": "B", "n": 2}]
    ids = main.fetch_ids(fetch_request("Contact", predicate="age >= 30", sort_descriptors=["age"]))
    assert [main.get([i], keys=["name"])[0]["name"] for i in ids] == ["Ana", "Al", "Cy"]
