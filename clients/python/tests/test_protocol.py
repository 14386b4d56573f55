import json

import pytest

from fetchd import FetchdError, ProtocolCore
from fetchd.errors import ProtocolViolation
from fetchd.framing import LSP, NDJSON, LSPDecoder, Notification, Response


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


def test_the_core_matches_responses_to_awaited_ids_without_any_io():
    core = ProtocolCore(NDJSON)
    first, _ = core.request("a")
    second, _ = core.request("b")
    answered = core.receive(
        b'{"jsonrpc":"2.0","id":2,"result":"two"}\n{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}\n'
        b'{"jsonrpc":"2.0","id":1,'
    )
    assert answered == [second] and not core.is_answered(first)
    assert core.receive(b'"result":"one"}\n') == [first]
    assert core.take(first).result == "one" and core.take(second).result == "two"
    assert core.receive(b'{"jsonrpc":"2.0","id":1,"result":"again"}\n') == []  # answered already
    third, _ = core.request("c")
    core.forget([third])
    assert core.receive(b'{"jsonrpc":"2.0","id":3,"result":"late"}\n') == [] and not core.is_answered(third)


def test_a_handler_error_is_kept_for_the_caller_and_the_stream_goes_on():
    core = ProtocolCore(NDJSON)
    request_id, _ = core.request("context/insert")

    def failing(method, params):
        raise RuntimeError("listener failed")

    core.add_listener(failing)
    answered = core.receive(
        b'{"jsonrpc":"2.0","method":"controller/willChangeContent","params":{"controller":"c"}}\n'
        b'{"jsonrpc":"2.0","id":1,"result":{}}\n'
    )
    assert answered == [request_id]
    error = core.take_handler_error()
    assert isinstance(error, RuntimeError) and core.take_handler_error() is None


def test_a_step_is_driven_by_feeding_it_results():
    """controller.create_step yields controller/create, then controller/rows per non-empty
    section; the mirror is loaded from what it was given (no client involved)."""
    from fetchd import SectionInfo
    from fetchd.controller import LiveController

    core = ProtocolCore()
    controller = LiveController(None, "main", "notes", {"entity": "Note"}, None, {"keys": ["title"]}, None, True)
    step = controller.create_step(core)
    create = next(step)
    assert (create.method, create.params["name"]) == ("controller/create", "notes")
    rows = step.send(create.decode({"sections": [{"name": "", "indexTitle": "", "numberOfObjects": 1}], "count": 1}))
    assert (rows.method, rows.params) == ("controller/rows", {"controller": "notes", "section": 0, "keys": ["title"]})
    with pytest.raises(StopIteration):
        step.send(rows.decode({"objects": [{"id": "Note/1", "title": "a"}]}))
    assert controller.mirror.ids() == [["Note/1"]]
    assert controller.sections_at_create == [SectionInfo("", "", 1)]
    core.dispatch(Notification("controller/willChangeContent", {"controller": "notes"}))
    assert controller.in_cycle  # registered: the core routes the controller's notifications


def test_a_failed_create_step_routes_the_name_back():
    from fetchd.controller import LiveController

    core = ProtocolCore()
    first, second = (LiveController(None, "main", "notes", {"entity": "Note"}, None, None, None, False) for _ in range(2))
    core.register("notes", first)
    step = second.create_step(core)
    next(step)
    with pytest.raises(FetchdError):
        step.throw(FetchdError(-32025, "taken", {"kind": "duplicateName"}))
    core.dispatch(Notification("controller/willChangeContent", {"controller": "notes"}))
    assert first.in_cycle and not second.in_cycle
