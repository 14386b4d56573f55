"""The synchronous client: the sans-IO core (protocol.py) plus blocking reads and writes, and
its handles (``Context``, ``Batch``, ``Controller``) sending what the call builders make
(context.py, controller.py). One request at a time; notifications that arrive before a
response (all of a cycle's, by the wire contract, protocol.md §10) are dispatched before the
call that caused them returns."""
from __future__ import annotations

import os
import select
import subprocess
import time
from typing import IO, Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union, cast

from .call import BatchCall, Call, Step, result_of
from .changes import IndexPath, SectionInfo, WireObject
from .context import BatchBase, ContextCalls
from .controller import KEEP, LiveController, _Keep, with_mode
from .errors import ConnectionClosed
from .framing import LSP, Params, Response
from .gcpause import PAUSE_FROM_BYTES, Pause
from .handshake import check_initialize_result, default_client_info
from .locate import find_fetchd
from .progress import ProgressArg, ProgressRoute, attached
from .protocol import NotificationListener, ProtocolCore
from .wire_calls import Calls
from .wire_methods import SyncMethods
from .wire_types import InitializeParamsClientInfo, InitializeResult, ContextChangesResult, ContextFetchParamsPropertiesToFetchItemOption2, ContextSaveResult, ContextUndoResult, FetchRequest, ContextCreateParamsMergePolicy, ContextCreateParamsUndo, Model, ControllerCreateParamsNotify, ControllerCreateParamsNotifyMode, ObjectID, StoreBatchDeleteResult, StoreBatchInsertResult, StoreBatchUpdateObjectsResult, StoreBatchUpdateResult, StoreOpenResult

READ_SIZE = 1 << 20
T = TypeVar("T")


class Client(SyncMethods):
    """Every request of the protocol is a method (``context_insert``, ``controller_rows``...,
    see wire_methods.py); handles (``context()``, ``controller()``) add the friendly API."""

    def __init__(
        self,
        reader: IO[bytes],
        writer: IO[bytes],
        *,
        framing: str = LSP,
        process: "Optional[subprocess.Popen[bytes]]" = None,
        timeout: Optional[float] = None,
    ) -> None:
        """Attach to streams: ``reader`` carries the server's output, ``writer`` its input.
        ``timeout``: seconds to wait for each read (None: forever); TimeoutError after."""
        self.core = ProtocolCore(framing)
        self.process = process
        self.timeout = timeout
        # The spawned command (set by spawn/attach): named in a protocol version mismatch.
        self.binary: Optional[str] = None
        # initialize's result once the handshake ran (spawn does it by default).
        self.server_info: Optional[InitializeResult] = None
        self._reader = reader
        self._writer = writer
        self._backlog: List[bytes] = []
        self._closed = False
        # A buffered reader's read1 returns what one read(2) gives; a raw one reads directly.
        read1 = getattr(reader, "read1", None)
        self._read1: Callable[[int], bytes] = read1 if read1 is not None else reader.read

    @classmethod
    def spawn(
        cls,
        binary: "Union[str, os.PathLike[str], None]" = None,
        *,
        framing: str = LSP,
        args: Sequence[str] = (),
        stderr: Any = None,
        env: Optional[Dict[str, str]] = None,
        timeout: Optional[float] = None,
        initialize: bool = True,
        client_info: Optional[InitializeParamsClientInfo] = None,
    ) -> "Client":
        """Start fetchd (see ``find_fetchd`` for where it is looked up) and attach to it.
        ``stderr`` is passed to subprocess (None: inherit, so its logs show).
        ``initialize``: send ``initialize`` (with ``client_info``) first and check its
        ``protocolVersion`` (ProtocolVersionMismatch, the process closed); False leaves the
        session uninitialized, for a caller that sends its own."""
        client = cls.attach([find_fetchd(binary), "--framing", framing, *args], framing=framing,
                            stderr=stderr, env=env, timeout=timeout)
        if initialize:
            try:
                client.initialize(client_info=client_info)
            except BaseException:
                client.close()
                raise
        return client

    @classmethod
    def attach(
        cls,
        argv: Sequence[str],
        *,
        framing: str = LSP,
        stderr: Any = None,
        env: Optional[Dict[str, str]] = None,
        timeout: Optional[float] = None,
    ) -> "Client":
        """Start any command speaking the protocol on its stdio (no arguments added)."""
        process = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                   env=env, bufsize=0)
        assert process.stdin is not None and process.stdout is not None
        client = cls(process.stdout, process.stdin, framing=framing, process=process, timeout=timeout)
        client.binary = os.fspath(argv[0])
        return client

    def initialize(self, *, client_info: Optional[InitializeParamsClientInfo] = None) -> InitializeResult:
        """``initialize`` (the session's first request; ``spawn`` sends it unless told not to),
        with this client's name and version unless ``client_info`` names another. Raises
        ProtocolVersionMismatch when fetchd speaks another protocol version than
        ``fetchd.PROTOCOL_VERSION``; the result is kept as ``server_info``."""
        result = super().initialize(client_info=client_info if client_info is not None else default_client_info())
        check_initialize_result(result, self.binary)
        self.server_info = result
        return result

    # -- JSON-RPC -------------------------------------------------------------------------
    def call(self, call: Call[T], *, progress: ProgressArg = None) -> T:
        """Send one call; its decoded result, or its FetchdError raised. ``progress``: a
        callback given each ``fetchd.Progress`` of a long request (sent with a
        ``workDoneToken``, protocol.md §2) before the call returns; True draws a
        ``TerminalBar`` on stderr when it is a terminal."""
        route = None if progress is None else ProgressRoute.for_arg(progress)
        if route is None:  # the common path: nothing added
            return self._call(call)
        with attached(self.core, route):
            return self._call(route.tag(call))

    def _call(self, call: Call[T]) -> T:
        request_id, data = self.core.request(call.method, call.params)
        self.write(data)
        (response,) = self.wait([request_id])
        return result_of(call, response)

    def run(self, step: Step[T]) -> T:
        """Drive a multi-call step (see call.Step) to its end."""
        try:
            call = next(step)
            while True:
                try:
                    result = self.call(call)
                except BaseException as error:  # handed to the step, which may handle it
                    call = step.throw(error)
                else:
                    call = step.send(result)
        except StopIteration as stop:
            return cast(T, stop.value)

    def request(self, method: str, params: Params = None) -> Any:
        """Send one raw request; return its result or raise FetchdError."""
        return self.call(Call(method, params))

    def notify(self, method: str, params: Params = None) -> None:
        self.write(self.core.notification(method, params))

    def send_batch(self, calls: Sequence[Tuple[str, Params]]) -> List[Response]:
        """Send a JSON-RPC batch (one change cycle); the responses in call order."""
        ids, data = self.core.batch(calls)
        self.write(data)
        return self.wait(ids)

    def pipeline(self, calls: Sequence[Tuple[str, Params]]) -> List[Response]:
        """Send separate requests in one write, then read every response (in call order):
        many requests per round trip without making them one cycle."""
        ids, data = self.core.pipeline(calls)
        self.write(data)
        return self.wait(ids)

    def add_listener(self, listener: NotificationListener) -> None:
        """Call ``listener(method, params)`` for every notification, before its controller."""
        self.core.add_listener(listener)

    def remove_listener(self, listener: NotificationListener) -> None:
        self.core.remove_listener(listener)

    def held_back(self) -> int:
        """How many messages ``wait`` read past the responses it waited for and keeps for the
        next read (protocol.md §1.5); ``wait_for_notifications(0)`` dispatches just those."""
        return len(self._backlog)

    def wait_for_notifications(self, timeout: float, until: str = "store/didChangeExternally") -> int:
        """Read what fetchd sends on its own (a watching fetchd merging another process's
        commits, protocol.md §1.5) for up to ``timeout`` seconds, dispatching it like any
        notification (listeners, then controllers' delegates and mirrors). Returns as soon as
        an ``until`` notification (the last one of a merge) was dispatched, or at the timeout:
        how many notifications were dispatched."""
        seen = [0, 0]

        def count(method: str, _params: Any) -> None:
            seen[0] += 1
            if method == until:
                seen[1] += 1

        self.core.add_listener(count)
        try:
            if self._backlog:
                bodies, self._backlog = self._backlog, []
                self.core.receive_bodies(bodies)
            deadline = time.monotonic() + timeout
            while not seen[1]:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                ready, _, _ = select.select([self._reader], [], [], remaining)
                if not ready:
                    break
                data: bytes = self._read1(READ_SIZE)
                if not data:
                    self.core.abandon()
                    raise ConnectionClosed("fetchd closed its output")
                self.core.receive(data)
        finally:
            self.core.remove_listener(count)
        error = self.core.take_handler_error()
        if error is not None:
            raise error
        return seen[0]

    # -- lifecycle ------------------------------------------------------------------------
    def stop(self) -> Optional[int]:
        """``shutdown`` then ``exit``; returns the process's exit code when we spawned it."""
        self.shutdown()
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

    # -- handles --------------------------------------------------------------------------
    def open_store(self, model: Optional[Model] = None, path: Optional[str] = None,
                   history_token: Optional[int] = None, url: Optional[str] = None,
                   schema: Optional[str] = None, *, progress: ProgressArg = None) -> StoreOpenResult:
        """``store/open`` (as ``store_open``); the context "main" exists afterwards.
        ``history_token``: merging resumes after it (protocol.md §5); ``url`` and
        ``schema``: a PostgreSQL server instead of the file ``path``. Without ``model`` an existing
        store opens with the model it records. ``progress``: as ``call`` (a migration can take
        a while)."""
        return self.call(Calls.store_open(model=model, path=path, url=url, schema=schema, history_token=history_token),
                         progress=progress)

    # The batch requests with ``progress=`` (as ``call``); the generated ``store_batch_*``
    # methods keep exactly the document's parameters.
    def batch_insert(self, entity: str, *, objects: Optional[List[Dict[str, Any]]] = None,
                     keys: Optional[List[str]] = None, rows: Optional[List[List[Any]]] = None,
                     return_ids: Optional[bool] = None, progress: ProgressArg = None) -> StoreBatchInsertResult:
        """``store/batchInsert`` in one request (see ``batch_insert_in_parts`` for large ones)."""
        return self.call(Calls.store_batch_insert(entity, objects=objects, keys=keys, rows=rows, return_ids=return_ids),
                         progress=progress)

    def batch_update(self, entity: str, values: Dict[str, Any], *, predicate: Optional[str] = None,
                     variables: Optional[Dict[str, Any]] = None, progress: ProgressArg = None) -> StoreBatchUpdateResult:
        """``store/batchUpdate``: ``values`` set on every object ``predicate`` matches."""
        return self.call(Calls.store_batch_update(entity, values, predicate=predicate, variables=variables),
                         progress=progress)

    def batch_update_objects(self, entity: str, *, objects: Optional[List[Dict[str, Any]]] = None,
                             ids: Optional[List[ObjectID]] = None, keys: Optional[List[str]] = None,
                             rows: Optional[List[List[Any]]] = None,
                             progress: ProgressArg = None) -> StoreBatchUpdateObjectsResult:
        """``store/batchUpdateObjects``: each object its own values."""
        return self.call(Calls.store_batch_update_objects(entity, objects=objects, ids=ids, keys=keys, rows=rows),
                         progress=progress)

    def batch_delete(self, entity: str, *, ids: Optional[List[ObjectID]] = None, predicate: Optional[str] = None,
                     variables: Optional[Dict[str, Any]] = None, progress: ProgressArg = None) -> StoreBatchDeleteResult:
        """``store/batchDelete`` of ``ids`` or of what ``predicate`` matches."""
        return self.call(Calls.store_batch_delete(entity, ids=ids, predicate=predicate, variables=variables),
                         progress=progress)

    def context(self, name: str = "main") -> Context:
        """A handle on an existing context (no request is sent)."""
        return Context(self, name)

    def create_context(
        self,
        name: str,
        parent: Optional[str] = None,
        merges_changes_from_parent: Optional[bool] = None,
        merge_policy: Optional[ContextCreateParamsMergePolicy] = None,
        transaction_author: Optional[str] = None,
        undo: Optional[ContextCreateParamsUndo] = None,
    ) -> Context:
        """``context/create``; a handle on the new context."""
        created = self.context_create(
            name, parent=parent, merges_changes_from_parent=merges_changes_from_parent, merge_policy=merge_policy,
            transaction_author=transaction_author, undo=undo,
        )
        return Context(self, created["context"])

    def controller(
        self,
        context: Union[str, Context],
        name: str,
        request: FetchRequest,
        section_name_key_path: Optional[str] = None,
        notify: Optional[ControllerCreateParamsNotify] = None,
        delegate: Any = None,
        mirror: bool = True,
        mode: Optional[ControllerCreateParamsNotifyMode] = None,
        progress: ProgressArg = None,
    ) -> Controller:
        """``controller/create``; with ``mirror`` the controller keeps a TableMirror, loaded
        from controller/rows now and kept in sync by every cycle's notifications.
        ``progress``: as ``call``, for the create (the first fetch)."""
        context_name = context.name if isinstance(context, Context) else context
        notify = with_mode(notify, mode)
        controller = Controller(self, context_name, name, request, section_name_key_path, notify, delegate, mirror)
        route = ProgressRoute.for_arg(progress)
        with attached(self.core, route):
            self.run(controller.create_step(self.core, work_done_token=None if route is None else route.token))
        return controller

    def batch_insert_in_parts(
        self,
        entity: str,
        keys: List[str],
        rows: Sequence[List[Any]],
        *,
        part_bytes: int = 4 << 20,
        return_ids: Optional[bool] = None,
        progress: ProgressArg = None,
    ) -> StoreBatchInsertResult:
        """``store/batchInsert`` of ``rows`` (columnar, in ``keys`` order) sent in parts of about
        ``part_bytes`` encoded bytes (``more``, protocol.md §5): one transaction and one change
        cycle, as a single request would be, but no message has to hold every row, and each
        part is encoded while fetchd reads the one before (4 MiB by default: with 16 MiB a
        200,000-row insert was one part after the first, and nothing overlapped; 0.94-0.99 s
        -> 0.87-0.89 s). The first part (10,000 rows) sets how many rows the next ones take. A part fetchd refuses raises its FetchdError, and
        fetchd then holds nothing; any other exception may leave parts held, which
        ``store_cancel_batch_insert`` drops.

        ``progress``: a callback seeing the whole call as one sequence of ``fetchd.Progress``:
        a begin, "sending rows: N of M" reports as parts go out, fetchd's steps for the final
        part (the one that writes), an end timing the whole call. None (the default) draws a
        ``TerminalBar`` on stderr when it is a terminal, False nothing."""
        if part_bytes < 1:
            raise ValueError("part_bytes must be at least 1")
        route = ProgressRoute.for_arg(progress, default_bar=True)
        with attached(self.core, route):
            return self._insert_in_parts(entity, keys, rows, part_bytes, return_ids, route)

    def _insert_in_parts(self, entity: str, keys: List[str], rows: Sequence[List[Any]], part_bytes: int,
                         return_ids: Optional[bool], route: Optional[ProgressRoute]) -> StoreBatchInsertResult:
        total = len(rows)
        if route is not None:
            route.begin("store/batchInsert", f"sending {total} rows")
        size, start = 10_000, 0
        waiting: Optional[Tuple[Any, Call[StoreBatchInsertResult]]] = None
        while True:
            part = rows[start:start + size]
            start += len(part)
            more = start < len(rows)
            # Only the final part carries the token: a held part's begin/end would say nothing
            # the client does not know, and the final part's steps are the writing.
            call = Calls.store_batch_insert(
                entity, keys=keys, rows=part if isinstance(part, list) else list(part),
                return_ids=None if more else return_ids, more=True if more else None,
                work_done_token=None if more or route is None else route.token)
            request_id, data = self.core.request(call.method, call.params)
            if waiting is not None:  # the part before, answered while this one was encoded
                try:
                    result_of(waiting[1], self.wait([waiting[0]])[0])
                except BaseException:
                    self.core.forget([request_id])
                    raise
            self.write(data)
            waiting = (request_id, call)
            if route is not None:
                route.report(f"sending rows: {start} of {total}", start * 100 // total if total else 100)
            if not more:
                return result_of(call, self.wait([request_id])[0])
            size = max(1, len(part) * part_bytes // max(1, len(data)))

    def batch(self, context: Union[str, Context, None] = "main") -> Batch:
        """A JSON-RPC batch (one change cycle); see ``Context.batch``."""
        return Batch(self, context.name if isinstance(context, Context) else context)

    # -- I/O ------------------------------------------------------------------------------
    def write(self, data: bytes) -> None:
        """Write bytes the core framed (e.g. ``core.batch(...)``) to the server."""
        if self._closed:
            raise ConnectionClosed("the client is closed")
        try:
            written = self._writer.write(data)
            if written is not None and written < len(data):  # a raw pipe may take part of it
                view = memoryview(data)[written:]
                while view:
                    written = self._writer.write(view)
                    view = view[written or 0:]
            self._writer.flush()
        except (BrokenPipeError, ValueError) as error:
            raise ConnectionClosed(f"fetchd's input is closed: {error}") from None

    def wait(self, ids: Sequence[Any]) -> List[Response]:
        """Read until every id in ``ids`` is answered, dispatching the notifications that came
        before; the responses in the order of ``ids``. What came after the last of them (a
        watching fetchd's merge sent right after the answer, protocol.md §1.5) stays for the
        next read, so no mirror moves past the state the responses describe before the
        caller has them. A delegate's exception is raised only once the responses are in, so
        the stream stays in step."""
        pending, self._backlog = self._backlog, []
        index = 0
        is_answered, receive = self.core.is_answered, self.core.receive_body
        # A big read (a cycle in rows mode: thousands of notifications) is taken in with the
        # collector paused, as one big message is (gcpause).
        pause = Pause()
        try:
            for request_id in ids:
                while not is_answered(request_id):
                    if index == len(pending):
                        pause.end()
                        pending, index = self.core.bodies(self._read()), 0
                        pause.begin(sum(map(len, pending)) >= PAUSE_FROM_BYTES)
                        continue
                    receive(pending[index])
                    index += 1
        finally:
            pause.end()
        self._backlog = pending[index:]
        responses = [self.core.take(i) for i in ids]
        error = self.core.take_handler_error()
        if error is not None:
            raise error
        return responses

    def read_bodies(self, until: Callable[[bytes], bool]) -> List[bytes]:
        """The fast path for timing: read message bodies without decoding or dispatching
        anything until one satisfies ``until``; returns them, that one last. Hand them to
        ``settle`` afterwards (or ``core.forget`` the ids when they are not responses)."""
        out: List[bytes] = []
        pending, self._backlog = self._backlog, []
        while True:
            for index, body in enumerate(pending):
                out.append(body)
                if until(body):
                    self._backlog = pending[index + 1:]
                    return out
            pending = self.core.bodies(self._read())

    def settle(self, bodies: Sequence[bytes], ids: Sequence[Any]) -> List[Response]:
        """Decode bodies from ``read_bodies`` as if just read (notifications dispatched),
        then wait for ``ids``: their responses in order."""
        self.core.receive_bodies(bodies)
        return self.wait(ids)

    def _read(self) -> bytes:
        if self.timeout is not None:
            ready, _, _ = select.select([self._reader], [], [], self.timeout)
            if not ready:
                raise TimeoutError(f"fetchd sent no reply within {self.timeout:g} s")
        data: bytes = self._read1(READ_SIZE)
        if not data:
            self.core.abandon()
            code = self.process.poll() if self.process is not None else None
            raise ConnectionClosed(f"fetchd closed its output before answering (exit code {code})")
        return data


class Context(ContextCalls):
    """A named managed-object context on the server ("main" after store/open)."""

    def __init__(self, client: Client, name: str) -> None:
        super().__init__(name)
        self.client = client

    def insert(self, entity: str, values: Optional[Mapping[str, Any]] = None) -> WireObject:
        return self.client.call(self.insert_call(entity, values))

    def update(self, object_id: str, values: Mapping[str, Any]) -> WireObject:
        return self.client.call(self.update_call(object_id, values))

    def delete(self, object_id: str) -> None:
        self.client.call(self.delete_call(object_id))

    def get(self, ids: Sequence[str], keys: Optional[Sequence[str]] = None) -> List[WireObject]:
        return self.client.call(self.get_call(ids, keys))

    def fetch(self, request: FetchRequest, keys: Optional[Sequence[str]] = None) -> List[WireObject]:
        return self.client.call(self.fetch_call(request, keys))

    def count(self, request: FetchRequest) -> int:
        return self.client.call(self.count_call(request))

    def fetch_dictionaries(
        self,
        request: FetchRequest,
        properties: Optional[Sequence[Union[str, ContextFetchParamsPropertiesToFetchItemOption2]]] = None,
        group_by: Optional[Sequence[str]] = None,
        having: Optional[str] = None,
        distinct: Optional[bool] = None,
    ) -> List[Dict[str, Any]]:
        """context/fetch with resultType "dictionary": rows of key paths and expressions
        ({"name", "function", "keyPath"}), grouped by ``group_by``, filtered by ``having``."""
        return self.client.call(self.fetch_dictionaries_call(request, properties, group_by, having, distinct))

    def fetch_ids(self, request: FetchRequest) -> List[str]:
        return self.client.call(self.fetch_ids_call(request))

    def save(self) -> ContextSaveResult:
        """Returns the counts {inserted, updated, deleted}."""
        return self.client.call(self.save_call())

    def rollback(self) -> None:
        self.client.call(self.rollback_call())

    def process_pending_changes(self) -> None:
        self.client.call(self.process_pending_changes_call())

    def close(self) -> None:
        self.client.call(self.close_call())

    def has_changes(self) -> bool:
        return self.client.call(self.has_changes_call())

    def changes(self) -> ContextChangesResult:
        """The ids of the unsaved changes: {inserted, updated, deleted}."""
        return self.client.call(self.changes_call())

    def changed_values(self, object_id: str) -> Dict[str, Any]:
        """The keys of the object that differ from the committed values, with the values here."""
        return self.client.call(self.changed_values_call(object_id))

    def committed_values(self, object_id: str, keys: Optional[Sequence[str]] = None) -> Dict[str, Any]:
        """The object's values as the parent (the store for a root) shows them."""
        return self.client.call(self.committed_values_call(object_id, keys))

    def refresh(self, object_id: str, merge_changes: bool) -> None:
        """Re-bases (merge_changes True) or drops (False) the unsaved change to the object."""
        self.client.call(self.refresh_call(object_id, merge_changes))

    def reset(self) -> None:
        self.client.call(self.reset_call())

    def undo(self) -> ContextUndoResult:
        """Undo the last group of edits (a change cycle); answers the undo state."""
        return self.client.call(self.undo_call())

    def redo(self) -> ContextUndoResult:
        return self.client.call(self.redo_call())

    def undo_state(self) -> ContextUndoResult:
        """{canUndo, canRedo, undoActionName, redoActionName, undoCount, redoCount, groupingLevel}."""
        return self.client.call(self.undo_state_call())

    def begin_undo_grouping(self, action_name: Optional[str] = None) -> ContextUndoResult:
        return self.client.call(self.begin_undo_grouping_call(action_name))

    def end_undo_grouping(self) -> ContextUndoResult:
        return self.client.call(self.end_undo_grouping_call())

    def batch(self) -> "Batch":
        """Collect calls, send them as one JSON-RPC batch (one change cycle) on ``send()`` or
        at the end of a ``with`` block."""
        return Batch(self.client, self.name)

    def controller(self, name: str, request: FetchRequest, **options: Any) -> "Controller":
        return self.client.controller(self.name, name, request, **options)


class Batch(BatchBase):
    def __init__(self, client: Client, context: Optional[str]) -> None:
        super().__init__(context)
        self.client = client

    def send(self, raise_on_error: bool = True) -> List[BatchCall[Any]]:
        """Send the batch; with ``raise_on_error`` the first failed call's error is raised
        (every call still has its outcome)."""
        calls = self.start_sending()
        if not calls:
            return []
        return self.resolve(self.client.send_batch(calls), raise_on_error)

    def __enter__(self) -> "Batch":
        return self

    def __exit__(self, exc_type: Any, *rest: Any) -> None:
        if exc_type is None and not self.sent:
            self.send()


class Controller(LiveController[Client]):
    """A named controller on the server, used synchronously."""

    def sections(self) -> List[SectionInfo]:
        return self.client.call(self.sections_call())

    def rows(
        self, section: int, offset: int = 0, limit: Optional[int] = None, keys: Optional[Sequence[str]] = None
    ) -> List[WireObject]:
        return self.client.call(self.rows_call(section, offset, limit, keys))

    def fetched(self, keys: Optional[Sequence[str]] = None) -> List[List[WireObject]]:
        """Every section's rows, fresh from the server."""
        return self.client.run(self.fetched_step(keys))

    def object_at(self, index_path: IndexPath) -> WireObject:
        return self.client.call(self.object_at_call(index_path))

    def index_path(self, object_id: str) -> Optional[IndexPath]:
        return self.client.call(self.index_path_call(object_id))

    def section_index_titles(self) -> List[str]:
        return self.client.call(self.section_index_titles_call())

    def section_for_index_title(self, title: str, index: int) -> int:
        return self.client.call(self.section_for_index_title_call(title, index))

    def perform_fetch(self) -> List[SectionInfo]:
        """Fetch again (no notifications); the mirror is reloaded."""
        return self.client.run(self.perform_fetch_step())

    def set_request(
        self, request: Optional[FetchRequest] = None, section_name_key_path: "Optional[str] | _Keep" = KEEP
    ) -> List[SectionInfo]:
        """Change the request (and sections) live: one change cycle reaches the delegate and
        the mirror before this returns; returns the new sections."""
        return self.client.call(self.set_request_call(request, section_name_key_path))

    def close(self) -> None:
        self.client.run(self.close_step(self.client.core))


__all__ = ["Batch", "Client", "Context", "Controller"]
