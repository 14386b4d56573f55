"""What the sync client dispatches while it waits: the notifications before the awaited
responses, never those after them (protocol.md §1.5: a watching fetchd writes a merge's
notifications right after an answer, often in the same read)."""
import os

from fetchd import Client


def test_a_notification_after_the_response_waits_for_the_next_read():
    from_server, to_client = os.pipe()
    from_client, to_server = os.pipe()
    client = Client(os.fdopen(from_server, "rb", buffering=0), os.fdopen(to_server, "wb", buffering=0),
                    framing="ndjson")
    seen = []
    client.add_listener(lambda method, params: seen.append(method))
    before = b'{"jsonrpc":"2.0","method":"test/before","params":{}}\n'
    answer = b'{"jsonrpc":"2.0","result":7,"id":1}\n'
    after = b'{"jsonrpc":"2.0","method":"store/didChangeExternally","params":{"token":1,"transactions":[]}}\n'
    os.write(to_client, before + answer + after)
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
    from_server, to_client = os.pipe()
    from_client, to_server = os.pipe()
    client = Client(os.fdopen(from_server, "rb", buffering=0), os.fdopen(to_server, "wb", buffering=0),
                    framing="ndjson")
    seen = []
    client.add_listener(lambda method, params: seen.append(method))
    answer = b'{"jsonrpc":"2.0","result":7,"id":1}\n'
    held = b'{"jsonrpc":"2.0","method":"test/held","params":{}}\n'
    later = b'{"jsonrpc":"2.0","method":"test/later","params":{}}\n'
    os.write(to_client, answer + held)
    try:
        assert client.request("server/echo", {"value": 7}) == 7
        os.write(to_client, later)
        assert client.wait_for_notifications(0, until="test/none") == 1
        assert seen == ["test/held"]
    finally:
        for fd in (to_client, from_client):
            os.close(fd)
