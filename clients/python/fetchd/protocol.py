"""The transport-free JSON-RPC core shared by the synchronous and the asyncio client.

It numbers requests, frames outgoing messages, decodes incoming bytes into responses and
notifications, and routes notifications: a ``controller/*`` notification goes to the
controller registered under its ``controller`` name, every notification also goes to the
general listeners (logging, status lines).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from . import framing as framing_mod
from .errors import FetchdError, ProtocolViolation

JSONValue = Any
Params = Optional[Dict[str, Any]]
NotificationListener = Callable[[str, Dict[str, Any]], None]


@dataclass(frozen=True)
class Response:
    id: Any
    result: Any = None
    error: Optional[FetchdError] = None


@dataclass(frozen=True)
class Notification:
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

    # -- outgoing -----------------------------------------------------------------------
    def request(self, method: str, params: Params = None) -> Tuple[int, bytes]:
        """A framed request and the id its response will carry."""
        request_id, message = self.request_object(method, params)
        return request_id, self.frame(message)

    def request_object(self, method: str, params: Params = None) -> Tuple[int, Dict[str, Any]]:
        request_id = self._next_id
        self._next_id += 1
        message: Dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        return request_id, message

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
            request_id, message = self.request_object(method, params)
            ids.append(request_id)
            messages.append(message)
        return ids, self.frame(messages)

    def frame(self, message: Any) -> bytes:
        return framing_mod.encode(dumps(message), self.framing)

    # -- incoming -----------------------------------------------------------------------
    def feed(self, data: bytes) -> List[Incoming]:
        """Decode bytes read from the server into responses and notifications, in order."""
        out: List[Incoming] = []
        for body in self._decoder.feed(data):
            try:
                message = json.loads(body.decode("utf-8"))
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
