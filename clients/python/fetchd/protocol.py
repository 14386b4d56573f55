"""The sans-IO core shared by the synchronous and the asyncio client.

It does everything but I/O: it builds and frames messages, allocates ids, decodes the bytes a
client read into responses and notifications, matches responses to the requests waiting for
them, routes notifications (a ``controller/*`` one to the controller registered under its
``controller`` name, every one to the general listeners) and collects batches. A client only
writes the bytes the core hands it and feeds the core what it reads.

Multi-request operations (create a controller, then load its mirror) are written once as
``Step`` generators: they yield ``Call``s and receive each result; each client drives them
with its own I/O (``Client.run``, ``AsyncClient.run``).
"""
from __future__ import annotations

import json
from typing import (
    Any,
    Callable,
    Dict,
    Generator,
    Generic,
    Iterable,
    List,
    NamedTuple,
    Optional,
    Sequence,
    Set,
    Tuple,
    TypeVar,
    Union,
    cast,
)

from . import framing as framing_mod
from .errors import FetchdError, ProtocolViolation

_decode = json.JSONDecoder().decode

T = TypeVar("T")
U = TypeVar("U")
Params = Optional[Dict[str, Any]]
NotificationListener = Callable[[str, Dict[str, Any]], None]


class Call(Generic[T]):
    """One request to send: its method, its params, and how its raw result becomes a ``T``
    (``then`` adds a step, e.g. picking ``object`` out of ``{"object": ...}``)."""

    __slots__ = ("method", "params", "_decode")

    def __init__(self, method: str, params: Params = None, decode: Optional[Callable[[Any], T]] = None) -> None:
        self.method = method
        self.params = params
        self._decode = decode

    def decode(self, raw: Any) -> T:
        return cast(T, raw) if self._decode is None else self._decode(raw)

    def then(self, convert: Callable[[T], U]) -> "Call[U]":
        def decode(raw: Any) -> U:
            return convert(self.decode(raw))

        return Call(self.method, self.params, decode)

    def __repr__(self) -> str:
        return f"Call({self.method!r}, {self.params!r})"


# A multi-request operation: yields the calls to make, receives each call's decoded result
# (or has the call's error thrown in), returns the operation's result.
Step = Generator[Call[Any], Any, T]


class Response(NamedTuple):
    id: Any
    result: Any = None
    error: Optional[FetchdError] = None


class Notification(NamedTuple):
    method: str
    params: Dict[str, Any]


Incoming = Union[Response, Notification]


class NotificationTarget:
    """What a controller implements to receive its notifications."""

    def handle_notification(self, method: str, params: Dict[str, Any]) -> None:  # pragma: no cover
        raise NotImplementedError


def dumps(value: Any) -> bytes:
    """Compact UTF-8 JSON; NaN and infinities are refused (JSON has no such numbers)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


class ProtocolCore:
    def __init__(self, framing: str = framing_mod.LSP) -> None:
        if framing not in framing_mod.FRAMINGS:
            raise ValueError(f"unknown framing {framing!r}; expected one of {framing_mod.FRAMINGS}")
        self.framing = framing
        self._decoder = framing_mod.decoder(framing)
        self._next_id = 1
        self._targets: Dict[str, NotificationTarget] = {}
        self._listeners: List[NotificationListener] = []
        self._waiting: Set[Any] = set()
        self._answered: Dict[Any, Response] = {}
        self._handler_error: Optional[BaseException] = None

    # -- outgoing -----------------------------------------------------------------------
    def request(self, method: str, params: Params = None) -> Tuple[int, bytes]:
        """A framed request and the id its response will carry (now awaited by the core)."""
        request_id, message = self._request_object(method, params)
        return request_id, self.frame(message)

    def notification(self, method: str, params: Params = None) -> bytes:
        message: Dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        return self.frame(message)

    def batch(self, calls: Sequence[Tuple[str, Params]]) -> Tuple[List[int], bytes]:
        """One framed JSON-RPC batch (an array of requests): the server runs it as one cycle."""
        if not calls:
            raise ValueError("a JSON-RPC batch needs at least one call")
        ids: List[int] = []
        messages: List[Dict[str, Any]] = []
        for method, params in calls:
            request_id, message = self._request_object(method, params)
            ids.append(request_id)
            messages.append(message)
        return ids, self.frame(messages)

    def pipeline(self, calls: Sequence[Tuple[str, Params]]) -> Tuple[List[int], bytes]:
        """Separate requests framed back to back (one write; each its own cycle)."""
        ids: List[int] = []
        chunks: List[bytes] = []
        for method, params in calls:
            request_id, data = self.request(method, params)
            ids.append(request_id)
            chunks.append(data)
        return ids, b"".join(chunks)

    def frame(self, message: Any) -> bytes:
        return framing_mod.encode(dumps(message), self.framing)

    def _request_object(self, method: str, params: Params) -> Tuple[int, Dict[str, Any]]:
        request_id = self._next_id
        self._next_id += 1
        message: Dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self._waiting.add(request_id)
        return request_id, message

    # -- incoming -----------------------------------------------------------------------
    def bodies(self, data: bytes) -> List[bytes]:
        """The complete message bodies in ``data`` (plus what earlier reads left), undecoded."""
        return self._decoder.feed(data)

    def feed(self, data: bytes) -> List[Incoming]:
        """Decode bytes read from the server into responses and notifications, in order."""
        return self.decode(self.bodies(data))

    def decode(self, bodies: Iterable[bytes]) -> List[Incoming]:
        out: List[Incoming] = []
        for body in bodies:
            try:
                # fetchd writes UTF-8: decoded directly, not through json.loads' sniffing.
                message = _decode(body.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as error:
                raise ProtocolViolation(f"server sent invalid JSON: {error}: {body[:200]!r}") from None
            if isinstance(message, list):
                if not message:
                    raise ProtocolViolation("server sent an empty batch")
                for element in message:
                    out.append(self._classify(element))
            else:
                out.append(self._classify(message))
        return out

    def receive(self, data: bytes) -> List[Any]:
        """Feed bytes read from the server: notifications are dispatched (a handler's
        exception is kept for ``take_handler_error``), responses to awaited ids are kept for
        ``take``. Returns the ids answered by these bytes, in order."""
        return self.receive_bodies(self.bodies(data))

    def receive_bodies(self, bodies: Iterable[bytes]) -> List[Any]:
        """``receive`` for bodies already split from the stream (``bodies``)."""
        answered: List[Any] = []
        for message in self.decode(bodies):
            if isinstance(message, Notification):
                try:
                    self.dispatch(message)
                except Exception as error:  # noqa: BLE001 - handed to the caller with the response
                    self._handler_error = self._handler_error or error
            elif message.id in self._waiting:
                self._waiting.discard(message.id)
                self._answered[message.id] = message
                answered.append(message.id)
            # A response nobody waits for (an id-null error) has no caller to go to.
        return answered

    def is_answered(self, request_id: Any) -> bool:
        return request_id in self._answered

    def take(self, request_id: Any) -> Response:
        return self._answered.pop(request_id)

    def take_handler_error(self) -> Optional[BaseException]:
        """The first exception a delegate or listener raised since the last call: the caller
        whose response closed that cycle re-raises it, so the stream stays in step."""
        error, self._handler_error = self._handler_error, None
        return error

    def forget(self, ids: Iterable[Any]) -> None:
        """Stop awaiting ``ids`` (their answers, if any come, are dropped)."""
        for request_id in ids:
            self._waiting.discard(request_id)
            self._answered.pop(request_id, None)

    def abandon(self) -> None:
        """The connection ended: nothing is awaited any more."""
        self._waiting.clear()

    @staticmethod
    def _classify(message: Any) -> Incoming:
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            raise ProtocolViolation(f"not a JSON-RPC 2.0 message: {message!r}")
        if "method" in message:
            if "id" in message:
                raise ProtocolViolation(f"fetchd sends no requests to clients: {message!r}")
            params = message.get("params")
            if params is None:
                params = {}
            if not isinstance(params, dict):
                raise ProtocolViolation(f"notification params must be an object: {message!r}")
            return Notification(message["method"], params)
        if "id" not in message:
            raise ProtocolViolation(f"response without an id: {message!r}")
        has_result, has_error = "result" in message, "error" in message
        if has_result == has_error:
            raise ProtocolViolation(f"a response needs exactly one of result/error: {message!r}")
        if has_error:
            error = message["error"]
            if not isinstance(error, dict):
                raise ProtocolViolation(f"error must be an object: {message!r}")
            return Response(message["id"], error=FetchdError.from_object(error))
        return Response(message["id"], result=message["result"])

    # -- notification routing -------------------------------------------------------------
    def register(self, name: str, target: NotificationTarget) -> Optional[NotificationTarget]:
        """Route ``name``'s notifications to ``target``; returns the target it replaces."""
        previous = self._targets.get(name)
        self._targets[name] = target
        return previous

    def unregister(self, name: str, restore: Optional[NotificationTarget] = None) -> None:
        """Stop routing ``name`` (or route it back to ``restore``, e.g. after a failed create
        whose name was already taken)."""
        if restore is not None:
            self._targets[name] = restore
        else:
            self._targets.pop(name, None)

    def add_listener(self, listener: NotificationListener) -> None:
        self._listeners.append(listener)

    def remove_listener(self, listener: NotificationListener) -> None:
        self._listeners.remove(listener)

    def dispatch(self, notification: Notification) -> None:
        """Listeners first (they see the raw stream), then the controller it belongs to."""
        for listener in list(self._listeners):
            listener(notification.method, notification.params)
        name = notification.params.get("controller")
        if notification.method.startswith("controller/") and isinstance(name, str):
            target = self._targets.get(name)
            if target is not None:
                target.handle_notification(notification.method, notification.params)


def result_of(call: Call[T], response: Response) -> T:
    """The call's decoded result, or its error raised."""
    if response.error is not None:
        raise response.error
    return call.decode(response.result)


class BatchCall(Generic[T]):
    """One call of a batch; its outcome is known once the batch is sent."""

    def __init__(self, call: Call[T]) -> None:
        self.call = call
        self.response: Optional[Response] = None

    @property
    def method(self) -> str:
        return self.call.method

    @property
    def params(self) -> Params:
        return self.call.params

    @property
    def done(self) -> bool:
        return self.response is not None

    @property
    def error(self) -> Optional[FetchdError]:
        return None if self.response is None else self.response.error

    @property
    def result(self) -> T:
        """The call's (decoded) result, or raises its FetchdError."""
        if self.response is None:
            raise RuntimeError("the batch has not been sent yet")
        return result_of(self.call, self.response)


class BatchCollector:
    """The calls of one JSON-RPC batch (one change cycle) and, once answered, their outcomes;
    the sync and asyncio batches differ only in how they send it."""

    def __init__(self, context: Optional[str]) -> None:
        self.context = context
        self.calls: List[BatchCall[Any]] = []
        self.sent = False

    def add(self, call: Call[T]) -> BatchCall[T]:
        if self.sent:
            raise RuntimeError("the batch was already sent")
        item = BatchCall(call)
        self.calls.append(item)
        return item

    def call(self, method: str, params: Params = None, pick: Optional[str] = None) -> BatchCall[Any]:
        """A raw call; ``pick`` names the member of its result object to return."""
        raw: Call[Any] = Call(method, params)
        return self.add(raw if pick is None else raw.then(lambda value: _pick(value, pick)))

    def _context(self, context: Optional[str]) -> str:
        name = context or self.context
        if name is None:
            raise ValueError("this batch has no default context; pass context=")
        return name

    def start_sending(self) -> List[Tuple[str, Params]]:
        """Marks the batch sent; the (method, params) to send (none: nothing to send)."""
        if self.sent:
            raise RuntimeError("the batch was already sent")
        self.sent = True
        return [(item.method, item.params) for item in self.calls]

    def resolve(self, responses: Sequence[Response], raise_on_error: bool) -> List[BatchCall[Any]]:
        for item, response in zip(self.calls, responses):
            item.response = response
        if raise_on_error:
            for item in self.calls:
                if item.error is not None:
                    raise item.error
        return self.calls


def _pick(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else value
