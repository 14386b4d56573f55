"""The synchronous fetched-results controller handle."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence

from . import calls
from .changes import IndexPath, SectionInfo, WireObject
from .delegate import LiveController

if TYPE_CHECKING:
    from .client import Client


class Controller(LiveController):
    """A named controller on the server. Its notifications reach ``delegate`` (see
    ControllerDelegate) and, when enabled, keep ``mirror`` (a TableMirror) equal to the
    controller's sections and rows."""

    client: "Client"

    def _created(self, sections: List[SectionInfo]) -> None:
        self.sections_at_create = sections
        self._reload_mirror(sections)

    def _reload_mirror(self, sections: List[SectionInfo]) -> None:
        if self.mirror is None:
            return
        keys, with_values = calls.mirror_keys(self.notify)
        rows = []
        for index, info in enumerate(sections):
            objects = self.rows(index, keys=keys) if info.number_of_objects else []
            rows.append(objects if with_values else [{"id": o["id"]} for o in objects])
        self.mirror.load(sections, rows)

    # -- server calls ---------------------------------------------------------------------
    def sections(self) -> List[SectionInfo]:
        result = self.client.request(*calls.controller_only("sections", self.name))
        return [SectionInfo.from_wire(s) for s in result["sections"]]

    def rows(
        self, section: int, offset: int = 0, limit: Optional[int] = None, keys: Optional[Sequence[str]] = None
    ) -> List[WireObject]:
        return self.client.request(*calls.rows(self.name, section, offset, limit, keys))["objects"]

    def fetched(self, keys: Optional[Sequence[str]] = None) -> List[List[WireObject]]:
        """Every section's rows, fresh from the server."""
        return [self.rows(i, keys=keys) if s.number_of_objects else [] for i, s in enumerate(self.sections())]

    def object_at(self, index_path: IndexPath) -> WireObject:
        return self.client.request(*calls.object_at(self.name, index_path))["object"]

    def index_path(self, object_id: str) -> Optional[IndexPath]:
        found = self.client.request(*calls.index_path(self.name, object_id))["indexPath"]
        return None if found is None else (found[0], found[1])

    def section_index_titles(self) -> List[str]:
        return self.client.request(*calls.controller_only("sectionIndexTitles", self.name))["titles"]

    def section_for_index_title(self, title: str, index: int) -> int:
        return self.client.request(*calls.section_for_index_title(self.name, title, index))["section"]

    def perform_fetch(self) -> List[SectionInfo]:
        """Fetch again (no notifications); the mirror is reloaded."""
        result = self.client.request(*calls.controller_only("performFetch", self.name))
        sections = [SectionInfo.from_wire(s) for s in result["sections"]]
        self._reload_mirror(sections)
        return sections

    def close(self) -> None:
        self.client.request(*calls.controller_only("close", self.name))
        self.client.core.unregister(self.name)

    def __repr__(self) -> str:
        return f"Controller({self.name!r}, context={self.context!r})"
