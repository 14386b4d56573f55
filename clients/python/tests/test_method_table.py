"""Both clients cover every request of the OpenRPC document with the same parameter names
(mapped to Python as openrpc_doc.py says), checked by introspection."""
import copy

import pytest

from fetchd import AsyncClient, Client, FetchdError

from conftest import fetchd_binary
from openrpc_doc import coverage_problems, load_document, method_name, param_name, requests


@pytest.mark.parametrize("cls, is_async", [(Client, False), (AsyncClient, True)])
def test_every_request_of_the_document_is_a_client_method_with_its_params(cls, is_async):
    doc = load_document()
    assert requests(doc), "the document lists no requests"
    assert coverage_problems(doc, cls, is_async) == []


def test_rpc_discover_is_exposed_as_discover():
    assert method_name("rpc.discover") == "discover"
    assert callable(Client.discover) and callable(AsyncClient.discover)


def test_the_mapping():
    assert method_name("context/processPendingChanges") == "context_process_pending_changes"
    assert method_name("controller/indexPath") == "controller_index_path"
    assert method_name("store/open") == "store_open"
    assert param_name("sectionNameKeyPath") == "section_name_key_path"
    assert param_name("id") == "object_id"
    assert param_name("class") == "class_"


def test_the_check_fails_for_a_missing_method_a_renamed_param_or_a_wrong_requiredness():
    """The coverage check itself can fail (on a document the clients do not match)."""
    doc = {"methods": [
        {"name": "context/insert", "params": [{"name": "context", "required": True},
                                              {"name": "entity", "required": True},
                                              {"name": "values", "required": True}], "result": {}},
    ]}
    assert coverage_problems(doc, Client, False) == []
    assert coverage_problems(doc, Client, True) != []  # sync methods are not coroutines

    missing = copy.deepcopy(doc)
    missing["methods"].append({"name": "context/teleport", "params": [], "result": {}})
    assert any("context_teleport" in p for p in coverage_problems(missing, Client, False))

    renamed = copy.deepcopy(doc)
    renamed["methods"][0]["params"][1]["name"] = "entityName"
    assert any("entity_name" in p for p in coverage_problems(renamed, AsyncClient, True))

    optional = copy.deepcopy(doc)
    optional["methods"][0]["params"][2]["required"] = False
    assert any("values is optional" in p for p in coverage_problems(optional, Client, False))


@pytest.mark.server
def test_the_server_describes_itself_with_the_checked_in_document():
    doc = load_document()
    with Client.spawn(fetchd_binary()) as client:
        try:
            described = client.discover()
        except FetchdError as error:
            pytest.fail(f"rpc.discover failed: {error}")
    assert described == doc
