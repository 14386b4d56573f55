"""The controller delegate (NSFetchedResultsControllerDelegate) and the notification handling
shared by the synchronous and the asyncio controller."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Union

from .changes import ChangeBatch, Difference, IndexPath, ObjectChange, SectionChange, SectionInfo, WireObject
from .errors import ProtocolViolation
from .mirror import TableMirror
from .protocol import NotificationTarget
from .wire_types import ObjectChangeType, SectionChangeType

WILL_CHANGE_CONTENT = "controller/willChangeContent"
DID_CHANGE_SECTION = "controller/didChangeSection"
DID_CHANGE_OBJECT = "controller/didChangeObject"
DID_CHANGE_CONTENT = "controller/didChangeContent"
DID_CHANGE = "controller/didChange"


class ControllerDelegate:
    """Override the methods you need; each mirrors NSFetchedResultsControllerDelegate.

    Any object with some of these methods works as a delegate as well (missing ones are
    skipped). ``did_change_content`` runs after the controller's TableMirror applied the
    cycle, so it can render the table straight from ``controller.mirror``.
    """

    def will_change_content(self, controller: Any) -> None:
        pass

    def did_change_section(
        self, controller: Any, section_info: SectionInfo, section_index: int, change_type: SectionChangeType
    ) -> None:
        pass

    def did_change_object(
        self,
        controller: Any,
        obj: WireObject,
        index_path: Optional[IndexPath],
        change_type: ObjectChangeType,
        new_index_path: Optional[IndexPath],
    ) -> None:
        pass

    def did_change(self, controller: Any, difference: Difference) -> None:
        """A whole cycle in one message (notify mode "difference"): called between
        will_change_content and did_change_content instead of the per-row methods."""
        pass

    def did_change_content(self, controller: Any) -> None:
        pass


# A hook gets the cycle as it came: a ChangeBatch (mode "rows") or a Difference ("difference").
CycleHook = Callable[[Any, Union[ChangeBatch, Difference]], None]


class ControllerCore(NotificationTarget):
    """Receives a controller's notifications, collects the cycle's batch, applies it to the
    mirror on didChangeContent and calls the delegate."""

    def __init__(self, name: str, delegate: Any = None, mirror: Optional[TableMirror] = None) -> None:
        self.name = name
        self.delegate = delegate
        self.mirror = mirror
        self.cycles = 0
        self.last_batch: Optional[ChangeBatch] = None
        # The last controller/didChange (notify mode "difference"; last_batch stays None).
        self.last_difference: Optional[Difference] = None
        self.cycle_hooks: List[CycleHook] = []
        self._batch: Optional[ChangeBatch] = None
        # While the mirror loads its rows, cycles are already in what the rows answer.
        self.loading = False

    @property
    def in_cycle(self) -> bool:
        return self._batch is not None

    def handle_notification(self, method: str, params: Dict[str, Any]) -> None:
        # The row notifications first: a cycle has one per changed row.
        if method == DID_CHANGE_OBJECT:
            obj_change = ObjectChange.from_wire(params)
            (self._batch or self._open_batch(method)).objects.append(obj_change)
            # Looked up first: the row (a copy of the values) is built only for a delegate.
            handler = getattr(self.delegate, "did_change_object", None)
            if handler is not None:
                handler(self, obj_change.row, obj_change.index_path, obj_change.type, obj_change.new_index_path)
        elif method == WILL_CHANGE_CONTENT:
            if self._batch is not None:
                raise ProtocolViolation(f"{self.name}: willChangeContent inside an open cycle")
            self._batch = ChangeBatch()
            self._call("will_change_content", self)
        elif method == DID_CHANGE_SECTION:
            change = SectionChange.from_wire(params)
            self._open_batch(method).sections.append(change)
            self._call("did_change_section", self, change.section, change.section_index, change.type)
        elif method == DID_CHANGE_CONTENT:
            batch = self._open_batch(method)
            self._batch = None
            if self.mirror is not None and not self.loading:
                self.mirror.apply(batch)
            self.cycles += 1
            self.last_batch = batch
            for hook in list(self.cycle_hooks):
                hook(self, batch)
            self._call("did_change_content", self)
        elif method == DID_CHANGE:
            if self._batch is not None:
                raise ProtocolViolation(f"{self.name}: didChange inside an open cycle")
            difference = Difference.from_wire(params)
            self._call("will_change_content", self)
            self._call("did_change", self, difference)
            if self.mirror is not None and not self.loading:
                self.mirror.apply_difference(difference)
            self.cycles += 1
            self.last_difference = difference
            for hook in list(self.cycle_hooks):
                hook(self, difference)
            self._call("did_change_content", self)
        # Other controller/* notifications (future protocol additions) are ignored.

    def _open_batch(self, method: str) -> ChangeBatch:
        if self._batch is None:
            raise ProtocolViolation(f"{self.name}: {method} outside willChangeContent/didChangeContent")
        return self._batch

    def _handler(self, name: str) -> Optional[Callable[..., Any]]:
        """The delegate's method `name`, when it has one."""
        return getattr(self.delegate, name, None)

    def _call(self, name: str, *args: Any) -> None:
        handler = self._handler(name)
        if handler is not None:
            handler(*args)
