"""Fetched-results controller handles without I/O: ``LiveController`` holds what a
controller remembers and builds its calls and multi-call steps once; ``Controller``
(client.py) runs them synchronously, ``AsyncController`` (aio.py) awaits them."""
from __future__ import annotations

from typing import Any, Generic, List, Optional, Sequence, Tuple, TypeVar, Union

from .call import Call, Step
from .changes import IndexPath, SectionInfo, WireObject
from .delegate import ControllerCore
from .mirror import TableMirror
from .protocol import ProtocolCore
from .wire_calls import Calls
from .wire_types import ControllerCreateParamsNotify, ControllerCreateParamsNotifyMode, FetchRequest


def _sections(result: Any) -> List[SectionInfo]:
    return [SectionInfo.from_wire(s) for s in result["sections"]]


def _index_path(result: Any) -> Optional[IndexPath]:
    found = result["indexPath"]
    return None if found is None else (int(found[0]), int(found[1]))


def mirror_keys(notify: Optional[ControllerCreateParamsNotify]) -> Tuple[Optional[List[str]], bool]:
    """The keys a controller's mirror rows carry, matching what its notifications carry:
    (keys for controller/rows, whether rows keep values at all)."""
    if not notify:
        return None, True
    if notify.get("objects") is False:
        return None, False
    keys = notify.get("keys")
    return (None if keys is None else list(keys)), True


def with_mode(
    notify: Optional[ControllerCreateParamsNotify], mode: Optional[ControllerCreateParamsNotifyMode]
) -> Optional[ControllerCreateParamsNotify]:
    """``notify`` with ``mode`` set ("rows", or "difference": one controller/didChange per
    cycle, protocol.md §10.8); unchanged when ``mode`` is None."""
    if mode is None:
        return notify
    merged: ControllerCreateParamsNotify = dict(notify or {})  # type: ignore[assignment]
    merged["mode"] = mode
    return merged


ClientT = TypeVar("ClientT")


class _Keep:
    """The default of ``set_request``'s section key path: keep the current one."""

    def __repr__(self) -> str:
        return "KEEP"


KEEP = _Keep()


class LiveController(ControllerCore, Generic[ClientT]):
    """A controller created on a context: its notifications reach ``delegate`` (see
    ControllerDelegate) and, when enabled, keep ``mirror`` (a TableMirror) equal to the
    controller's sections and rows (protocol.md §11)."""

    def __init__(
        self,
        client: ClientT,
        context: str,
        name: str,
        request: FetchRequest,
        section_name_key_path: Optional[str],
        notify: Optional[ControllerCreateParamsNotify],
        delegate: Any,
        mirror: bool,
    ) -> None:
        super().__init__(name, delegate, TableMirror() if mirror else None)
        self.client = client
        self.context = context
        self.request = request
        self.section_name_key_path = section_name_key_path
        self.notify = notify
        self.sections_at_create: List[SectionInfo] = []

    # -- one call each ---------------------------------------------------------------------
    def sections_call(self) -> Call[List[SectionInfo]]:
        return Calls.controller_sections(self.name).then(_sections)

    def rows_call(
        self, section: int, offset: int = 0, limit: Optional[int] = None, keys: Optional[Sequence[str]] = None
    ) -> Call[List[WireObject]]:
        keys_list = None if keys is None else list(keys)
        return Calls.controller_rows(
            self.name, section, offset=offset or None, limit=limit, keys=keys_list
        ).then(
            lambda result: [dict(o) for o in result["objects"]]
        )

    def object_at_call(self, index_path: IndexPath) -> Call[WireObject]:
        return Calls.controller_object(self.name, list(index_path)).then(lambda result: dict(result["object"]))

    def index_path_call(self, object_id: str) -> Call[Optional[IndexPath]]:
        return Calls.controller_index_path(self.name, object_id).then(_index_path)

    def section_index_titles_call(self) -> Call[List[str]]:
        return Calls.controller_section_index_titles(self.name).then(lambda result: list(result["titles"]))

    def section_for_index_title_call(self, title: str, index: int) -> Call[int]:
        return Calls.controller_section_for_index_title(self.name, title, index).then(
            lambda result: int(result["section"])
        )

    # -- steps (several calls) -------------------------------------------------------------
    def create_step(self, core: ProtocolCore, work_done_token: Optional[Union[str, int]] = None) -> Step[None]:
        """controller/create, then the mirror's rows; the name routes to this controller from
        before the create (no notification can be missed) and back to the one it replaced
        when the create fails (a taken name). ``work_done_token``: the create reports its
        progress (the client routes it)."""
        previous = core.register(self.name, self)
        try:
            sections = yield Calls.controller_create(
                self.context,
                self.name,
                self.request,
                section_name_key_path=self.section_name_key_path,
                notify=self.notify,
                work_done_token=work_done_token,
            ).then(_sections)
            self.sections_at_create = sections
            yield from self.reload_step(sections)
        except BaseException:
            core.unregister(self.name, restore=previous)
            raise

    def reload_step(self, sections: List[SectionInfo]) -> Step[None]:
        """Loads the mirror with controller/rows. A cycle that arrives meanwhile (another
        process's commit merged between two requests) is in the rows read after it but not
        in those read before: the load starts over from fresh sections until none arrives."""
        if self.mirror is None:
            return
        keys, with_values = mirror_keys(self.notify)
        self.loading = True
        try:
            while True:
                seen = self.cycles
                rows: List[List[WireObject]] = []
                for index, info in enumerate(sections):
                    objects = (yield self.rows_call(index, keys=keys)) if info.number_of_objects else []
                    rows.append(objects if with_values else [{"id": o["id"]} for o in objects])
                if self.cycles == seen:
                    self.mirror.load(sections, rows)
                    return
                sections = yield self.sections_call()
        finally:
            self.loading = False

    def perform_fetch_step(self) -> Step[List[SectionInfo]]:
        sections: List[SectionInfo] = yield Calls.controller_perform_fetch(self.name).then(_sections)
        yield from self.reload_step(sections)
        return sections

    def fetched_step(self, keys: Optional[Sequence[str]]) -> Step[List[List[WireObject]]]:
        sections: List[SectionInfo] = yield self.sections_call()
        out: List[List[WireObject]] = []
        for index, info in enumerate(sections):
            out.append((yield self.rows_call(index, keys=keys)) if info.number_of_objects else [])
        return out

    def set_request_call(
        self, request: Optional[FetchRequest], section_name_key_path: "Optional[str] | _Keep"
    ) -> Call[List[SectionInfo]]:
        """controller/setRequest: ``request`` None keeps the request; the section key path
        KEEP keeps it, None removes the sections (sent as null)."""
        section = section_name_key_path if isinstance(section_name_key_path, str) else None
        call = Calls.controller_set_request(self.name, request=request, section_name_key_path=section)
        if section_name_key_path is None and isinstance(call.params, dict):
            call.params["sectionNameKeyPath"] = None

        def adopt(result: Any) -> List[SectionInfo]:
            if request is not None:
                self.request = request
            if not isinstance(section_name_key_path, _Keep):
                self.section_name_key_path = section_name_key_path
            return _sections(result)

        return call.then(adopt)

    def close_step(self, core: ProtocolCore) -> Step[None]:
        yield Calls.controller_close(self.name)
        core.unregister(self.name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, context={self.context!r})"
