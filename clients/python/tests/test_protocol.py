import json

import pytest

from fetchd import FetchdError, ProtocolCore
from fetchd.errors import ProtocolViolation
from fetchd.framing import LSP, NDJSON, LSPDecoder
from fetchd.protocol import Notification, Response


def body(framed: bytes):
    (message,) = LSPDecoder().feed(framed)
    return json.loads(message)


def test_requests_are_numbered_and_params_omitted_when_none():
    core = ProtocolCore(LSP)
    first, data1 = core.request("initialize", {"clientInfo": {"name": "t"}})
    second, data2 = core.request("shutdown")
    assert (first, second) == (1, 2)
    assert body(data1) == {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "t"}}}
    assert body(data2) == {"jsonrpc": "2.0", "id": 2, "method": "shutdown"}


def test_notification_has_no_id():
    assert body(ProtocolCore().notification("exit")) == {"jsonrpc": "2.0", "method": "exit"}


def test_batch_is_one_array_message():
    core = ProtocolCore(NDJSON)
    ids, data = core.batch([("a", {"x": 1}), ("b", None)])
    assert ids == [1, 2]
    assert data.endswith(b"\n") and data.count(b"\n") == 1
    assert [m["method"] for m in json.loads(data)] == ["a", "b"]
    with pytest.raises(ValueError):
        core.batch([])


def test_nan_is_refused_before_anything_is_sent():
    with pytest.raises(ValueError):
        ProtocolCore().request("context/insert", {"values": {"x": float("nan")}})


def test_feed_classifies_results_errors_notifications_and_batches():
    core = ProtocolCore(NDJSON)
    stream = (
        b'{"jsonrpc":"2.0","method":"controller/willChangeContent","params":{"controller":"c"}}\n'
        b'{"jsonrpc":"2.0","id":1,"result":{"object":{"id":"Note/1"}}}\n'
        b'[{"jsonrpc":"2.0","id":2,"result":null},'
        b'{"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"No such object","data":{"kind":"unknownObject","id":"Note/9"}}}]\n'
    )
    out = core.feed(stream)
    assert out[0] == Notification("controller/willChangeContent", {"controller": "c"})
    assert out[1] == Response(1, result={"object": {"id": "Note/1"}})
    assert out[2] == Response(2, result=None)
    error = out[3].error
    assert isinstance(error, FetchdError)
    assert (error.code, error.message, error.kind) == (-32001, "No such object", "unknownObject")
    assert error.data == {"kind": "unknownObject", "id": "Note/9"}


@pytest.mark.parametrize(
    "line",
    [
        b"not json",
        b'{"id":1,"result":1}',
        b'{"jsonrpc":"2.0","id":1}',
        b'{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"x"}}',
        b'{"jsonrpc":"2.0","result":1}',
        b'{"jsonrpc":"2.0","method":"x","params":[1]}',
        b'{"jsonrpc":"2.0","id":5,"method":"x"}',
        b"[]",
    ],
)
def test_feed_refuses_what_is_not_a_valid_message_from_fetchd(line):
    with pytest.raises(ProtocolViolation):
        ProtocolCore(NDJSON).feed(line + b"\n")


class Recorder:
    def __init__(self):
        self.seen = []

    def handle_notification(self, method, params):
        self.seen.append((method, params))


def test_dispatch_routes_by_controller_name_after_listeners():
    core = ProtocolCore()
    a, b = Recorder(), Recorder()
    order = []
    core.register("a", a)
    core.register("b", b)
    core.add_listener(lambda method, params: order.append(("listener", params.get("controller"))))
    core.dispatch(Notification("controller/willChangeContent", {"controller": "b"}))
    core.dispatch(Notification("controller/didChangeContent", {"controller": "nobody"}))
    core.dispatch(Notification("window/logMessage", {"controller": "a"}))
    assert a.seen == []
    assert b.seen == [("controller/willChangeContent", {"controller": "b"})]
    assert order == [("listener", "b"), ("listener", "nobody"), ("listener", "a")]
    core.unregister("b")
    core.dispatch(Notification("controller/didChangeContent", {"controller": "b"}))
    assert len(b.seen) == 1
