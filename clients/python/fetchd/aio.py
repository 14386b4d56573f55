"""The asyncio client: the sans-IO core (protocol.py) plus asyncio streams. Many requests may
be in flight; one reader task feeds the core what it reads, so notifications reach controllers
in wire order (a cycle's delegate calls all happen before the response that closed it
resolves, protocol.md §10) and responses resolve their futures. Its handles await the calls
and steps built once in context.py and controller.py, which the synchronous handles send."""
from __future__ import annotations

import asyncio
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union, cast

from .call import BatchCall, Call, Step, result_of
from .changes import IndexPath, SectionInfo, WireObject
from .context import BatchBase, ContextCalls
from .controller import KEEP, LiveController, _Keep, with_mode
from .errors import ConnectionClosed
from .framing import LSP, Params, Response
from .handshake import check_initialize_result, default_client_info
from .locate import find_fetchd
from .progress import ProgressArg, ProgressRoute, attached
from .protocol import NotificationListener, ProtocolCore
from .wire_calls import Calls
from .wire_methods import AsyncMethods
from .wire_types import InitializeParamsClientInfo, InitializeResult, ContextChangesResult, ContextFetchParamsPropertiesToFetchItemOption2, ContextUndoResult, ContextSaveResult, FetchRequest, ContextCreateParamsMergePolicy, ContextCreateParamsUndo, Model, ControllerCreateParamsNotify, ControllerCreateParamsNotifyMode, ObjectID, StoreBatchDeleteResult, StoreBatchInsertResult, StoreBatchUpdateObjectsResult, StoreBatchUpdateResult, StoreOpenResult

READ_SIZE = 1 << 20
T = TypeVar("T")


class AsyncClient(AsyncMethods):
    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        framing: str = LSP,
        process: "Optional[asyncio.subprocess.Process]" = None,
    ) -> None:
        """Attach to streams (call from a running event loop)."""
        self.core = ProtocolCore(framing)
        self.process = process
        self.binary: Optional[str] = None  # as Client.binary
        self.server_info: Optional[InitializeResult] = None  # as Client.server_info
        self._reader = reader
        self._writer = writer
        self._futures: Dict[Any, "asyncio.Future[Response]"] = {}
        self._closed = False
        self._eof: Optional[BaseException] = None
        self._task = asyncio.get_running_loop().create_task(self._read_loop())

    @classmethod
    async def spawn(
        cls,
        binary: "Union[str, os.PathLike[str], None]" = None,
        *,
        framing: str = LSP,
        args: Sequence[str] = (),
        stderr: Any = None,
        env: Optional[Dict[str, str]] = None,
        initialize: bool = True,
        client_info: Optional[InitializeParamsClientInfo] = None,
    ) -> "AsyncClient":
        """As ``Client.spawn``: by default ``initialize`` is the first request and its
        ``protocolVersion`` is checked."""
        path = find_fetchd(binary)
        process = await asyncio.create_subprocess_exec(
            path, "--framing", framing, *args,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=stderr, env=env, limit=READ_SIZE,
        )
        assert process.stdout is not None and process.stdin is not None
        client = cls(process.stdout, process.stdin, framing=framing, process=process)
        client.binary = path
        if initialize:
            try:
                await client.initialize(client_info=client_info)
            except BaseException:
                await client.close()
                raise
        return client

    async def initialize(self, *, client_info: Optional[InitializeParamsClientInfo] = None) -> InitializeResult:
        """As ``Client.initialize``: raises ProtocolVersionMismatch on another protocol version."""
        result = await super().initialize(
            client_info=client_info if client_info is not None else default_client_info())
        check_initialize_result(result, self.binary)
        self.server_info = result
        return result

    # -- JSON-RPC -------------------------------------------------------------------------
    async def call(self, call: Call[T], *, progress: ProgressArg = None) -> T:
        """As ``Client.call``: ``progress`` gets the call's ``fetchd.Progress`` (from the reader
        task, in wire order) before the call returns; other calls in flight have their own."""
        route = None if progress is None else ProgressRoute.for_arg(progress)
        if route is None:
            return await self._call(call)
        with attached(self.core, route):
            return await self._call(route.tag(call))

    async def _call(self, call: Call[T]) -> T:
        request_id, data = self.core.request(call.method, call.params)
        future = self._expect(request_id)
        await self._write(data)
        return result_of(call, await future)

    async def run(self, step: Step[T]) -> T:
        """Drive a multi-call step (see call.Step) to its end."""
        try:
            call = next(step)
            while True:
                try:
                    result = await self.call(call)
                except BaseException as error:  # handed to the step, which may handle it
                    call = step.throw(error)
                else:
                    call = step.send(result)
        except StopIteration as stop:
            return cast(T, stop.value)

    async def request(self, method: str, params: Params = None) -> Any:
        return await self.call(Call(method, params))

    async def notify(self, method: str, params: Params = None) -> None:
        await self._write(self.core.notification(method, params))

    async def send_batch(self, calls: Sequence[Tuple[str, Params]]) -> List[Response]:
        ids, data = self.core.batch(calls)
        futures = [self._expect(i) for i in ids]
        await self._write(data)
        return list(await asyncio.gather(*futures))

    async def pipeline(self, calls: Sequence[Tuple[str, Params]]) -> List[Response]:
        """Separate requests in one write; every response, in call order."""
        ids, data = self.core.pipeline(calls)
        futures = [self._expect(i) for i in ids]
        await self._write(data)
        return list(await asyncio.gather(*futures))

    def add_listener(self, listener: NotificationListener) -> None:
        self.core.add_listener(listener)

    def remove_listener(self, listener: NotificationListener) -> None:
        self.core.remove_listener(listener)

    # -- lifecycle ------------------------------------------------------------------------
    async def stop(self) -> Optional[int]:
        """``shutdown`` then ``exit``; returns the process's exit code when we spawned it."""
        await self.shutdown()
        await self.notify("exit")
        return await self.close()

    async def close(self, timeout: float = 10.0) -> Optional[int]:
        if not self._closed:
            self._closed = True
            try:
                self._writer.close()
                await self._writer.wait_closed()
            except (BrokenPipeError, ConnectionResetError, OSError):
                pass
        code: Optional[int] = None
        if self.process is not None:
            try:
                code = await asyncio.wait_for(self.process.wait(), timeout)
            except asyncio.TimeoutError:
                self.process.kill()
                code = await self.process.wait()
        try:
            await asyncio.wait_for(self._task, timeout)
        except asyncio.TimeoutError:
            self._task.cancel()
        return code

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    async def wait_for_notifications(self, timeout: float, until: str = "store/didChangeExternally") -> int:
        """The reader task dispatches what fetchd sends on its own (a watching fetchd merging
        another process's commits, protocol.md §1.5) as it arrives; this waits until an
        ``until`` notification was dispatched or ``timeout`` seconds passed, and returns how
        many notifications were dispatched meanwhile."""
        done = asyncio.Event()
        seen = [0]

        def count(method: str, _params: Any) -> None:
            seen[0] += 1
            if method == until:
                done.set()

        self.core.add_listener(count)
        try:
            await asyncio.wait_for(done.wait(), timeout)
        except asyncio.TimeoutError:
            pass
        finally:
            self.core.remove_listener(count)
        return seen[0]

    # -- handles --------------------------------------------------------------------------
    async def open_store(self, model: Optional[Model] = None, path: Optional[str] = None,
                         history_token: Optional[int] = None, url: Optional[str] = None,
                         schema: Optional[str] = None, *, progress: ProgressArg = None) -> StoreOpenResult:
        return await self.call(
            Calls.store_open(model=model, path=path, url=url, schema=schema, history_token=history_token),
            progress=progress)

    # As Client's: the batch requests with ``progress=``.
    async def batch_insert(self, entity: str, *, objects: Optional[List[Dict[str, Any]]] = None,
                           keys: Optional[List[str]] = None, rows: Optional[List[List[Any]]] = None,
                           return_ids: Optional[bool] = None, progress: ProgressArg = None) -> StoreBatchInsertResult:
        return await self.call(
            Calls.store_batch_insert(entity, objects=objects, keys=keys, rows=rows, return_ids=return_ids),
            progress=progress)

    async def batch_update(self, entity: str, values: Dict[str, Any], *, predicate: Optional[str] = None,
                           variables: Optional[Dict[str, Any]] = None,
                           progress: ProgressArg = None) -> StoreBatchUpdateResult:
        return await self.call(Calls.store_batch_update(entity, values, predicate=predicate, variables=variables),
                               progress=progress)

    async def batch_update_objects(self, entity: str, *, objects: Optional[List[Dict[str, Any]]] = None,
                                   ids: Optional[List[ObjectID]] = None, keys: Optional[List[str]] = None,
                                   rows: Optional[List[List[Any]]] = None,
                                   progress: ProgressArg = None) -> StoreBatchUpdateObjectsResult:
        return await self.call(
            Calls.store_batch_update_objects(entity, objects=objects, ids=ids, keys=keys, rows=rows),
            progress=progress)

    async def batch_delete(self, entity: str, *, ids: Optional[List[ObjectID]] = None,
                           predicate: Optional[str] = None, variables: Optional[Dict[str, Any]] = None,
                           progress: ProgressArg = None) -> StoreBatchDeleteResult:
        return await self.call(Calls.store_batch_delete(entity, ids=ids, predicate=predicate, variables=variables),
                               progress=progress)

    def context(self, name: str = "main") -> "AsyncContext":
        return AsyncContext(self, name)

    async def create_context(
        self,
        name: str,
        parent: Optional[str] = None,
        merges_changes_from_parent: Optional[bool] = None,
        merge_policy: Optional[ContextCreateParamsMergePolicy] = None,
        transaction_author: Optional[str] = None,
        undo: Optional[ContextCreateParamsUndo] = None,
    ) -> "AsyncContext":
        created = await self.context_create(
            name, parent=parent, merges_changes_from_parent=merges_changes_from_parent, merge_policy=merge_policy,
            transaction_author=transaction_author, undo=undo,
        )
        return AsyncContext(self, created["context"])

    async def controller(
        self,
        context: "Union[str, AsyncContext]",
        name: str,
        request: FetchRequest,
        section_name_key_path: Optional[str] = None,
        notify: Optional[ControllerCreateParamsNotify] = None,
        delegate: Any = None,
        mirror: bool = True,
        mode: Optional[ControllerCreateParamsNotifyMode] = None,
        progress: ProgressArg = None,
    ) -> "AsyncController":
        context_name = context.name if isinstance(context, AsyncContext) else context
        notify = with_mode(notify, mode)
        controller = AsyncController(self, context_name, name, request, section_name_key_path, notify, delegate, mirror)
        route = ProgressRoute.for_arg(progress)
        with attached(self.core, route):
            await self.run(controller.create_step(self.core, work_done_token=None if route is None else route.token))
        return controller

    def batch(self, context: "Union[str, AsyncContext, None]" = "main") -> "AsyncBatch":
        return AsyncBatch(self, context.name if isinstance(context, AsyncContext) else context)

    # -- I/O ------------------------------------------------------------------------------
    def _expect(self, request_id: Any) -> "asyncio.Future[Response]":
        if self._eof is not None:
            raise self._eof
        future: "asyncio.Future[Response]" = asyncio.get_running_loop().create_future()
        self._futures[request_id] = future
        return future

    async def _write(self, data: bytes) -> None:
        if self._closed:
            raise ConnectionClosed("the client is closed")
        try:
            self._writer.write(data)
            await self._writer.drain()
        except (BrokenPipeError, ConnectionResetError) as error:
            raise ConnectionClosed(f"fetchd's input is closed: {error}") from None

    async def _read_loop(self) -> None:
        failure: BaseException = ConnectionClosed("fetchd closed its output")
        try:
            while True:
                data = await self._reader.read(READ_SIZE)
                if not data:
                    break
                for request_id in self.core.receive(data):
                    self._resolve(request_id, self.core.take(request_id))
        except Exception as error:  # noqa: BLE001 - protocol violations fail every pending call
            failure = error
        self._eof = failure
        self.core.abandon()
        for future in self._futures.values():
            if not future.done():
                future.set_exception(failure)
        self._futures.clear()

    def _resolve(self, request_id: Any, response: Response) -> None:
        future = self._futures.pop(request_id, None)
        if future is None or future.done():
            return
        error = self.core.take_handler_error()
        if error is not None:
            # A delegate failed during this cycle: the caller that caused it hears about it.
            future.set_exception(error)
        else:
            future.set_result(response)


class AsyncContext(ContextCalls):
    def __init__(self, client: AsyncClient, name: str) -> None:
        super().__init__(name)
        self.client = client

    async def insert(self, entity: str, values: Optional[Mapping[str, Any]] = None) -> WireObject:
        return await self.client.call(self.insert_call(entity, values))

    async def update(self, object_id: str, values: Mapping[str, Any]) -> WireObject:
        return await self.client.call(self.update_call(object_id, values))

    async def delete(self, object_id: str) -> None:
        await self.client.call(self.delete_call(object_id))

    async def get(self, ids: Sequence[str], keys: Optional[Sequence[str]] = None) -> List[WireObject]:
        return await self.client.call(self.get_call(ids, keys))

    async def fetch(self, request: FetchRequest, keys: Optional[Sequence[str]] = None) -> List[WireObject]:
        return await self.client.call(self.fetch_call(request, keys))

    async def count(self, request: FetchRequest) -> int:
        return await self.client.call(self.count_call(request))

    async def fetch_dictionaries(
        self,
        request: FetchRequest,
        properties: Optional[Sequence[Union[str, ContextFetchParamsPropertiesToFetchItemOption2]]] = None,
        group_by: Optional[Sequence[str]] = None,
        having: Optional[str] = None,
        distinct: Optional[bool] = None,
    ) -> List[Dict[str, Any]]:
        return await self.client.call(self.fetch_dictionaries_call(request, properties, group_by, having, distinct))

    async def fetch_ids(self, request: FetchRequest) -> List[str]:
        return await self.client.call(self.fetch_ids_call(request))

    async def save(self) -> ContextSaveResult:
        return await self.client.call(self.save_call())

    async def rollback(self) -> None:
        await self.client.call(self.rollback_call())

    async def process_pending_changes(self) -> None:
        await self.client.call(self.process_pending_changes_call())

    async def close(self) -> None:
        await self.client.call(self.close_call())

    async def has_changes(self) -> bool:
        return await self.client.call(self.has_changes_call())

    async def changes(self) -> ContextChangesResult:
        return await self.client.call(self.changes_call())

    async def changed_values(self, object_id: str) -> Dict[str, Any]:
        return await self.client.call(self.changed_values_call(object_id))

    async def committed_values(self, object_id: str, keys: Optional[Sequence[str]] = None) -> Dict[str, Any]:
        return await self.client.call(self.committed_values_call(object_id, keys))

    async def refresh(self, object_id: str, merge_changes: bool) -> None:
        await self.client.call(self.refresh_call(object_id, merge_changes))

    async def reset(self) -> None:
        await self.client.call(self.reset_call())

    async def undo(self) -> ContextUndoResult:
        return await self.client.call(self.undo_call())

    async def redo(self) -> ContextUndoResult:
        return await self.client.call(self.redo_call())

    async def undo_state(self) -> ContextUndoResult:
        return await self.client.call(self.undo_state_call())

    async def begin_undo_grouping(self, action_name: Optional[str] = None) -> ContextUndoResult:
        return await self.client.call(self.begin_undo_grouping_call(action_name))

    async def end_undo_grouping(self) -> ContextUndoResult:
        return await self.client.call(self.end_undo_grouping_call())

    def batch(self) -> "AsyncBatch":
        return AsyncBatch(self.client, self.name)

    async def controller(self, name: str, request: FetchRequest, **options: Any) -> "AsyncController":
        return await self.client.controller(self.name, name, request, **options)


class AsyncBatch(BatchBase):
    def __init__(self, client: AsyncClient, context: Optional[str]) -> None:
        super().__init__(context)
        self.client = client

    async def send(self, raise_on_error: bool = True) -> List[BatchCall[Any]]:
        calls = self.start_sending()
        if not calls:
            return []
        return self.resolve(await self.client.send_batch(calls), raise_on_error)

    async def __aenter__(self) -> "AsyncBatch":
        return self

    async def __aexit__(self, exc_type: Any, *rest: Any) -> None:
        if exc_type is None and not self.sent:
            await self.send()


class AsyncController(LiveController[AsyncClient]):
    """A named controller on the server, used with await."""

    async def sections(self) -> List[SectionInfo]:
        return await self.client.call(self.sections_call())

    async def rows(
        self, section: int, offset: int = 0, limit: Optional[int] = None, keys: Optional[Sequence[str]] = None
    ) -> List[WireObject]:
        return await self.client.call(self.rows_call(section, offset, limit, keys))

    async def fetched(self, keys: Optional[Sequence[str]] = None) -> List[List[WireObject]]:
        return await self.client.run(self.fetched_step(keys))

    async def object_at(self, index_path: IndexPath) -> WireObject:
        return await self.client.call(self.object_at_call(index_path))

    async def index_path(self, object_id: str) -> Optional[IndexPath]:
        return await self.client.call(self.index_path_call(object_id))

    async def section_index_titles(self) -> List[str]:
        return await self.client.call(self.section_index_titles_call())

    async def section_for_index_title(self, title: str, index: int) -> int:
        return await self.client.call(self.section_for_index_title_call(title, index))

    async def perform_fetch(self) -> List[SectionInfo]:
        return await self.client.run(self.perform_fetch_step())

    async def set_request(
        self, request: Optional[FetchRequest] = None, section_name_key_path: "Optional[str] | _Keep" = KEEP
    ) -> List[SectionInfo]:
        return await self.client.call(self.set_request_call(request, section_name_key_path))

    async def close(self) -> None:
        await self.client.run(self.close_step(self.client.core))
