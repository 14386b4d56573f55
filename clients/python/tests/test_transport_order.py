"""What the sync client dispatches while it waits: the notifications before the awaited
responses, never those after them (protocol.md §1.5: a watching fetchd writes a merge's
notifications right after an answer, often in the same read)."""
import os
from typing import List, Tuple

from fetchd import Client


def client_on_pipes() -> Tuple[Client, int, int, List[str]]:
    """A client reading what the test writes to the returned fd (and writing to a pipe the
    test leaves unread), with every notification's method noted in the returned list."""
    from_server, to_client = os.pipe()
    from_client, to_server = os.pipe()
    client = Client(os.fdopen(from_server, "rb", buffering=0), os.fdopen(to_server, "wb", buffering=0),
                    framing="ndjson")
    seen: List[str] = []
    client.add_listener(lambda method, params: seen.append(method))
    return client, to_client, from_client, seen


ANSWER = b'{"jsonrpc":"2.0","result":7,"id":1}\n'


def test_a_notification_after_the_response_waits_for_the_next_read():
    client, to_client, from_client, seen = client_on_pipes()
    before = b'{"jsonrpc":"2.0","method":"test/before","params":{}}\n'
    after = b'{"jsonrpc":"2.0","method":"store/didChangeExternally","params":{"token":1,"transactions":[]}}\n'
    os.write(to_client, before + ANSWER + after)
    try:
        assert client.request("server/echo", {"value": 7}) == 7
        assert seen == ["test/before"]
        assert client.held_back() == 1
        assert client.wait_for_notifications(0.2) == 1
        assert seen == ["test/before", "store/didChangeExternally"]
        assert client.held_back() == 0
    finally:
        for fd in (to_client, from_client):
            os.close(fd)


def test_a_timeout_of_zero_dispatches_what_was_held_back_and_reads_nothing():
    client, to_client, from_client, seen = client_on_pipes()
    held = b'{"jsonrpc":"2.0","method":"test/held","params":{}}\n'
    later = b'{"jsonrpc":"2.0","method":"test/later","params":{}}\n'
    os.write(to_client, ANSWER + held)
    try:
        assert client.request("server/echo", {"value": 7}) == 7
        os.write(to_client, later)
        assert client.wait_for_notifications(0, until="test/none") == 1
        assert seen == ["test/held"]
    finally:
        for fd in (to_client, from_client):
            os.close(fd)
