"""Calls: what the call builders make and the clients send, with no I/O.

A ``Call`` is one request (method, params) and how its raw result becomes a value. A ``Step``
is a multi-call operation (create a controller, then load its mirror's rows) written once as a
generator that yields ``Call``s and receives each result; each client drives it with its own
I/O (``Client.run``, ``AsyncClient.run``). ``BatchCollector`` gathers the calls of one
JSON-RPC batch and hands each its outcome.
"""
from __future__ import annotations

from typing import Any, Callable, Generator, Generic, List, Optional, Sequence, Tuple, TypeVar, cast

from .errors import FetchdError
from .framing import Params, Response

T = TypeVar("T")
U = TypeVar("U")


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
