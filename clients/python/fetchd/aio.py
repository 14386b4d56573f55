"""The asyncio client: many requests may be in flight; one reader task decodes the server's
output, dispatches notifications to controllers (in wire order, so a cycle's delegate calls
all happen before the response that closed it resolves) and resolves response futures."""
from __future__ import annotations

import asyncio
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import calls
from .changes import IndexPath, SectionInfo, WireObject
from .context import BatchBase, BatchCall
from .delegate import LiveController
from .errors import ConnectionClosed
from .framing import LSP
from .locate import find_fetchd
from .protocol import Notification, NotificationListener, Params, ProtocolCore, Response

READ_SIZE = 1 << 16


class AsyncClient:
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
        self._reader = reader
        self._writer = writer
        self._pending: Dict[Any, "asyncio.Future[Response]"] = {}
        self._handler_error: Optional[BaseException] = None
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
    ) -> "AsyncClient":
        path = find_fetchd(binary)
        process = await asyncio.create_subprocess_exec(
            path,
            "--framing",
            framing,
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            env=env,
            limit=1 << 20,
        )
        assert process.stdout is not None and process.stdin is not None
        return cls(process.stdout, process.stdin, framing=framing, process=process)

    # -- raw JSON-RPC ---------------------------------------------------------------------
    async def request(self, method: str, params: Params = None) -> Any:
        request_id, data = self.core.request(method, params)
        future = self._expect(request_id)
        await self._write(data)
        response = await future
        if response.error is not None:
            raise response.error
        return response.result

    async def notify(self, method: str, params: Params = None) -> None:
        await self._write(self.core.notification(method, params))

    async def send_batch(self, batch_calls: Sequence[Tuple[str, Params]]) -> List[Response]:
        ids, data = self.core.batch(batch_calls)
        futures = [self._expect(i) for i in ids]
        await self._write(data)
        return list(await asyncio.gather(*futures))

    def add_listener(self, listener: NotificationListener) -> None:
        self.core.add_listener(listener)

    def remove_listener(self, listener: NotificationListener) -> None:
        self.core.remove_listener(listener)

    # -- lifecycle ------------------------------------------------------------------------
    async def initialize(self, client_name: str = "fetchd-python", version: Optional[str] = None) -> Dict[str, Any]:
        return await self.request(*calls.initialize(client_name, version))

    async def shutdown(self) -> Optional[int]:
        await self.request("shutdown")
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

    # -- store, contexts, controllers -----------------------------------------------------
    async def open_store(self, model: Dict[str, Any], path: Optional[str] = None) -> Dict[str, Any]:
        return await self.request(*calls.open_store(model, path))

    def context(self, name: str = "main") -> "AsyncContext":
        return AsyncContext(self, name)

    async def create_context(
        self,
        name: str,
        parent: Optional[str] = None,
        merges_changes_from_parent: Optional[bool] = None,
        merge_policy: Optional[str] = None,
    ) -> "AsyncContext":
        result = await self.request(*calls.create_context(name, parent, merges_changes_from_parent, merge_policy))
        return AsyncContext(self, result.get("context", name) if isinstance(result, dict) else name)

    async def controller(
        self,
        context: "Union[str, AsyncContext]",
        name: str,
        request: Dict[str, Any],
        section_name_key_path: Optional[str] = None,
        notify: Optional[Dict[str, Any]] = None,
        delegate: Any = None,
        mirror: bool = True,
    ) -> "AsyncController":
        context_name = context.name if isinstance(context, AsyncContext) else context
        controller = AsyncController(self, context_name, name, request, section_name_key_path, notify, delegate, mirror)
        previous = self.core.register(name, controller)
        try:
            result = await self.request(
                *calls.create_controller(context_name, name, request, section_name_key_path, notify)
            )
            await controller._created([SectionInfo.from_wire(s) for s in result["sections"]])
        except BaseException:
            self.core.unregister(name, restore=previous)
            raise
        return controller

    def batch(self, context: "Union[str, AsyncContext, None]" = "main") -> "AsyncBatch":
        name = context.name if isinstance(context, AsyncContext) else context
        return AsyncBatch(self, name)

    # -- I/O ------------------------------------------------------------------------------
    def _expect(self, request_id: Any) -> "asyncio.Future[Response]":
        if self._eof is not None:
            raise self._eof
        future: "asyncio.Future[Response]" = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
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
                for message in self.core.feed(data):
                    if isinstance(message, Notification):
                        try:
                            self.core.dispatch(message)
                        except Exception as error:  # noqa: BLE001 - handed to the next response
                            self._handler_error = self._handler_error or error
                    else:
                        self._resolve(message)
        except Exception as error:  # noqa: BLE001 - protocol violations fail every pending call
            failure = error
        self._eof = failure
        for future in self._pending.values():
            if not future.done():
                future.set_exception(failure)
        self._pending.clear()

    def _resolve(self, response: Response) -> None:
        future = self._pending.pop(response.id, None)
        if future is None or future.done():
            return
        if self._handler_error is not None:
            # A delegate failed during this cycle: the caller that caused it hears about it.
            error, self._handler_error = self._handler_error, None
            future.set_exception(error)
        else:
            future.set_result(response)


class AsyncContext:
    def __init__(self, client: AsyncClient, name: str) -> None:
        self.client = client
        self.name = name

    async def insert(self, entity: str, values: Optional[Dict[str, Any]] = None) -> WireObject:
        return (await self.client.request(*calls.insert(self.name, entity, values)))["object"]

    async def update(self, object_id: str, values: Dict[str, Any]) -> WireObject:
        return (await self.client.request(*calls.update(self.name, object_id, values)))["object"]

    async def delete(self, object_id: str) -> None:
        await self.client.request(*calls.delete(self.name, object_id))

    async def get(self, ids: Sequence[str], keys: Optional[Sequence[str]] = None) -> List[WireObject]:
        return (await self.client.request(*calls.get(self.name, ids, keys)))["objects"]

    async def fetch(self, request: Dict[str, Any]) -> List[WireObject]:
        return (await self.client.request(*calls.fetch(self.name, request)))["objects"]

    async def count(self, request: Dict[str, Any]) -> int:
        return (await self.client.request(*calls.count(self.name, request)))["count"]

    async def save(self) -> Dict[str, int]:
        return await self.client.request(*calls.context_only("save", self.name))

    async def rollback(self) -> None:
        await self.client.request(*calls.context_only("rollback", self.name))

    async def process_pending_changes(self) -> None:
        await self.client.request(*calls.context_only("processPendingChanges", self.name))

    async def close(self) -> None:
        await self.client.request(*calls.context_only("close", self.name))

    def batch(self) -> "AsyncBatch":
        return AsyncBatch(self.client, self.name)

    async def controller(self, name: str, request: Dict[str, Any], **options: Any) -> "AsyncController":
        return await self.client.controller(self.name, name, request, **options)

    def __repr__(self) -> str:
        return f"AsyncContext({self.name!r})"


class AsyncBatch(BatchBase):
    def __init__(self, client: AsyncClient, context: Optional[str]) -> None:
        super().__init__(context)
        self.client = client

    async def send(self, raise_on_error: bool = True) -> List[BatchCall]:
        if self.sent:
            raise RuntimeError("the batch was already sent")
        self.sent = True
        if not self.calls:
            return []
        responses = await self.client.send_batch([(c.method, c.params) for c in self.calls])
        return self._resolve(responses, raise_on_error)

    async def __aenter__(self) -> "AsyncBatch":
        return self

    async def __aexit__(self, exc_type: Any, *rest: Any) -> None:
        if exc_type is None and not self.sent:
            await self.send()


class AsyncController(LiveController):
    client: AsyncClient

    async def _created(self, sections: List[SectionInfo]) -> None:
        self.sections_at_create = sections
        await self._reload_mirror(sections)

    async def _reload_mirror(self, sections: List[SectionInfo]) -> None:
        if self.mirror is None:
            return
        keys, with_values = calls.mirror_keys(self.notify)
        rows = []
        for index, info in enumerate(sections):
            objects = await self.rows(index, keys=keys) if info.number_of_objects else []
            rows.append(objects if with_values else [{"id": o["id"]} for o in objects])
        self.mirror.load(sections, rows)

    async def sections(self) -> List[SectionInfo]:
        result = await self.client.request(*calls.controller_only("sections", self.name))
        return [SectionInfo.from_wire(s) for s in result["sections"]]

    async def rows(
        self, section: int, offset: int = 0, limit: Optional[int] = None, keys: Optional[Sequence[str]] = None
    ) -> List[WireObject]:
        return (await self.client.request(*calls.rows(self.name, section, offset, limit, keys)))["objects"]

    async def fetched(self, keys: Optional[Sequence[str]] = None) -> List[List[WireObject]]:
        sections = await self.sections()
        return [await self.rows(i, keys=keys) if s.number_of_objects else [] for i, s in enumerate(sections)]

    async def object_at(self, index_path: IndexPath) -> WireObject:
        return (await self.client.request(*calls.object_at(self.name, index_path)))["object"]

    async def index_path(self, object_id: str) -> Optional[IndexPath]:
        found = (await self.client.request(*calls.index_path(self.name, object_id)))["indexPath"]
        return None if found is None else (found[0], found[1])

    async def section_index_titles(self) -> List[str]:
        return (await self.client.request(*calls.controller_only("sectionIndexTitles", self.name)))["titles"]

    async def section_for_index_title(self, title: str, index: int) -> int:
        return (await self.client.request(*calls.section_for_index_title(self.name, title, index)))["section"]

    async def perform_fetch(self) -> List[SectionInfo]:
        result = await self.client.request(*calls.controller_only("performFetch", self.name))
        sections = [SectionInfo.from_wire(s) for s in result["sections"]]
        await self._reload_mirror(sections)
        return sections

    async def close(self) -> None:
        await self.client.request(*calls.controller_only("close", self.name))
        self.client.core.unregister(self.name)

    def __repr__(self) -> str:
        return f"AsyncController({self.name!r}, context={self.context!r})"
