"""The sans-IO protocol core shared by the synchronous and the asyncio client.

It keeps the state of one connection and does no I/O: it allocates ids and frames requests
(framing.py makes the bytes), remembers which requests await an answer, matches responses to
them, and routes notifications (a ``controller/*`` one to the controller registered under its
``controller`` name, every one to the general listeners). A client only writes the bytes the
core hands it and feeds the core what it reads.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from . import framing as framing_mod
from .framing import Incoming, Notification, Params, Response

NotificationListener = Callable[[str, Dict[str, Any]], None]


class NotificationTarget:
    """What a controller implements to receive its notifications."""

    def handle_notification(self, method: str, params: Dict[str, Any]) -> None:  # pragma: no cover
        raise NotImplementedError


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
        return framing_mod.frame_message(message, self.framing)

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
        return framing_mod.parse(bodies)

    def receive(self, data: bytes) -> List[Any]:
        """Feed bytes read from the server: notifications are dispatched (a handler's
        exception is kept for ``take_handler_error``), responses to awaited ids are kept for
        ``take``. Returns the ids answered by these bytes, in order."""
        return self.receive_bodies(self.bodies(data))

    def receive_bodies(self, bodies: Iterable[bytes]) -> List[Any]:
        """``receive`` for bodies already split from the stream (``bodies``)."""
        return self._receive_messages(self.decode(bodies))

    def _receive_messages(self, messages: List[Incoming]) -> List[Any]:
        answered: List[Any] = []
        for message in messages:
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

    def receive_body(self, body: bytes) -> None:
        """``receive_bodies`` for one body: a notification, the usual case, goes straight to
        its listeners and controller, with no message object or list in between."""
        message = framing_mod.decode_body(body)
        if type(message) is dict and "method" in message and "id" not in message and message.get("jsonrpc") == "2.0":
            params = message.get("params")
            if params is None:
                params = {}
            if type(params) is dict:
                try:
                    self._dispatch(message["method"], params)
                except Exception as error:  # noqa: BLE001 - as receive_bodies
                    self._handler_error = self._handler_error or error
                return
        self._receive_messages(framing_mod.parse_values([message]))

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
        self._dispatch(notification.method, notification.params)

    def _dispatch(self, method: str, params: Dict[str, Any]) -> None:
        # A copy: a listener may add or remove listeners. None, the usual case, makes none
        # (once per row of a rows-mode cycle).
        if self._listeners:
            for listener in tuple(self._listeners):
                listener(method, params)
        name = params.get("controller")
        if method.startswith("controller/") and isinstance(name, str):
            target = self._targets.get(name)
            if target is not None:
                target.handle_notification(method, params)
