"""The synchronous client: one request at a time; notifications that arrive before a
response (all of a cycle's, by the wire contract) are dispatched before the call returns."""
from __future__ import annotations

import os
import subprocess
from typing import IO, Any, Dict, List, Optional, Sequence, Set, Tuple, Union

from . import calls
from .changes import SectionInfo
from .context import Batch, Context
from .controller import Controller
from .errors import ConnectionClosed, FetchdError
from .framing import LSP
from .locate import find_fetchd
from .protocol import Notification, NotificationListener, Params, ProtocolCore, Response

READ_SIZE = 1 << 16


class Client:
    def __init__(
        self,
        reader: IO[bytes],
        writer: IO[bytes],
        *,
        framing: str = LSP,
        process: "Optional[subprocess.Popen[bytes]]" = None,
    ) -> None:
        """Attach to streams: ``reader`` carries the server's output, ``writer`` its input."""
        self.core = ProtocolCore(framing)
        self.process = process
        self._reader = reader
        self._writer = writer
        self._stash: Dict[Any, Response] = {}
        self._closed = False

    @classmethod
    def spawn(
        cls,
        binary: "Union[str, os.PathLike[str], None]" = None,
        *,
        framing: str = LSP,
        args: Sequence[str] = (),
        stderr: Any = None,
        env: Optional[Dict[str, str]] = None,
    ) -> "Client":
        """Start fetchd (see ``find_fetchd`` for where it is looked up) and attach to it.
        ``stderr`` is passed to subprocess (None: inherit, so its logs show)."""
        path = find_fetchd(binary)
        process = subprocess.Popen(
            [path, "--framing", framing, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=env,
        )
        assert process.stdin is not None and process.stdout is not None
        return cls(process.stdout, process.stdin, framing=framing, process=process)

    # -- raw JSON-RPC ---------------------------------------------------------------------
    def request(self, method: str, params: Params = None) -> Any:
        """Send one request; return its result or raise FetchdError."""
        request_id, data = self.core.request(method, params)
        self._write(data)
        response = self._wait({request_id})[request_id]
        if response.error is not None:
            raise response.error
        return response.result

    def notify(self, method: str, params: Params = None) -> None:
        self._write(self.core.notification(method, params))

    def send_batch(self, batch_calls: Sequence[Tuple[str, Params]]) -> List[Response]:
        """Send a JSON-RPC batch (one change cycle); the responses in call order."""
        ids, data = self.core.batch(batch_calls)
        self._write(data)
        got = self._wait(set(ids))
        return [got[i] for i in ids]

    def add_listener(self, listener: NotificationListener) -> None:
        """Call ``listener(method, params)`` for every notification, before its controller."""
        self.core.add_listener(listener)

    def remove_listener(self, listener: NotificationListener) -> None:
        self.core.remove_listener(listener)

    # -- lifecycle ------------------------------------------------------------------------
    def initialize(self, client_name: str = "fetchd-python", version: Optional[str] = None) -> Dict[str, Any]:
        return self.request(*calls.initialize(client_name, version))

    def shutdown(self) -> Optional[int]:
        """``shutdown`` then ``exit``; returns the process's exit code when we spawned it."""
        self.request("shutdown")
        self.notify("exit")
        return self.close()

    def close(self, timeout: float = 10.0) -> Optional[int]:
        """Close the server's input (EOF: it finishes and exits 0) and wait for it."""
        if not self._closed:
            self._closed = True
            try:
                self._writer.close()
            except (BrokenPipeError, OSError):
                pass
        if self.process is None:
            return None
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        return code

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- store, contexts, controllers -----------------------------------------------------
    def open_store(self, model: Dict[str, Any], path: Optional[str] = None) -> Dict[str, Any]:
        """``store/open``; the context "main" exists afterwards (``client.context()``)."""
        return self.request(*calls.open_store(model, path))

    def context(self, name: str = "main") -> Context:
        """A handle on an existing context (no request is sent)."""
        return Context(self, name)

    def create_context(
        self,
        name: str,
        parent: Optional[str] = None,
        merges_changes_from_parent: Optional[bool] = None,
        merge_policy: Optional[str] = None,
    ) -> Context:
        result = self.request(*calls.create_context(name, parent, merges_changes_from_parent, merge_policy))
        return Context(self, result.get("context", name) if isinstance(result, dict) else name)

    def controller(
        self,
        context: Union[str, Context],
        name: str,
        request: Dict[str, Any],
        section_name_key_path: Optional[str] = None,
        notify: Optional[Dict[str, Any]] = None,
        delegate: Any = None,
        mirror: bool = True,
    ) -> Controller:
        """``controller/create``; with ``mirror`` the controller keeps a TableMirror, loaded
        from controller/rows now and kept in sync by every cycle's notifications."""
        context_name = context.name if isinstance(context, Context) else context
        controller = Controller(self, context_name, name, request, section_name_key_path, notify, delegate, mirror)
        previous = self.core.register(name, controller)
        try:
            result = self.request(*calls.create_controller(context_name, name, request, section_name_key_path, notify))
            controller._created([SectionInfo.from_wire(s) for s in result["sections"]])
        except BaseException:
            self.core.unregister(name, restore=previous)
            raise
        return controller

    def batch(self, context: Union[str, Context, None] = "main") -> Batch:
        """A JSON-RPC batch (one change cycle); see ``Context.batch``."""
        name = context.name if isinstance(context, Context) else context
        return Batch(self, name)

    # -- reading --------------------------------------------------------------------------
    def _write(self, data: bytes) -> None:
        if self._closed:
            raise ConnectionClosed("the client is closed")
        try:
            self._writer.write(data)
            self._writer.flush()
        except (BrokenPipeError, ValueError) as error:
            raise ConnectionClosed(f"fetchd's input is closed: {error}") from None

    def _read(self) -> bytes:
        read1 = getattr(self._reader, "read1", None)
        if read1 is not None:
            return read1(READ_SIZE)
        return os.read(self._reader.fileno(), READ_SIZE)

    def _wait(self, ids: Set[Any]) -> Dict[Any, Response]:
        """Read until every id in ``ids`` is answered, dispatching notifications on the way.
        A delegate's exception is re-raised only once the responses are in, so the stream
        stays in step."""
        got: Dict[Any, Response] = {i: self._stash.pop(i) for i in list(ids) if i in self._stash}
        handler_error: Optional[BaseException] = None
        while len(got) < len(ids):
            data = self._read()
            if not data:
                code = self.process.poll() if self.process is not None else None
                raise ConnectionClosed(f"fetchd closed its output before answering (exit code {code})")
            for message in self.core.feed(data):
                if isinstance(message, Notification):
                    try:
                        self.core.dispatch(message)
                    except Exception as error:  # noqa: BLE001 - re-raised below
                        handler_error = handler_error or error
                elif message.id in ids:
                    got[message.id] = message
                else:
                    self._stash[message.id] = message
        if handler_error is not None:
            raise handler_error
        return got


def raise_first_error(responses: Sequence[Response]) -> None:
    for response in responses:
        if response.error is not None:
            raise response.error


__all__ = ["Client", "FetchdError", "raise_first_error"]
