"""TableMirror: the sections and rows of a controller, kept in sync by applying each cycle's
batch exactly as SEMANTICS.md §3 (UITableView's beginUpdates/endUpdates) says.

A UI renders straight from ``mirror.sections``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, List, Optional, Sequence, Tuple

from .changes import DELETE, INSERT, MOVE, UPDATE, ChangeBatch, IndexPath, SectionInfo, WireObject
from .errors import MirrorError


@dataclass
class MirrorSection:
    name: str
    index_title: str
    rows: List[WireObject] = field(default_factory=list)

    @property
    def number_of_objects(self) -> int:
        return len(self.rows)

    @property
    def info(self) -> SectionInfo:
        return SectionInfo(self.name, self.index_title, len(self.rows))


class TableMirror:
    def __init__(self) -> None:
        self.sections: List[MirrorSection] = []

    # -- loading ------------------------------------------------------------------------
    def load(self, infos: Sequence[SectionInfo], rows: Sequence[Sequence[WireObject]]) -> None:
        """Start from a full fetch: section infos and each section's rows."""
        if len(infos) != len(rows):
            raise MirrorError(f"{len(infos)} sections but {len(rows)} row lists")
        sections = []
        for info, section_rows in zip(infos, rows):
            if info.number_of_objects != len(section_rows):
                raise MirrorError(
                    f"section {info.name!r} says {info.number_of_objects} objects, got {len(section_rows)} rows"
                )
            sections.append(MirrorSection(info.name, info.index_title, [dict(r) for r in section_rows]))
        self.sections = sections

    # -- the batch rule (SEMANTICS.md §3) -------------------------------------------------
    def apply(self, batch: ChangeBatch) -> None:
        """Apply one cycle. On error the mirror is left unchanged and MirrorError is raised."""
        work = [MirrorSection(s.name, s.index_title, list(s.rows)) for s in self.sections]
        removals = [c for c in batch.objects if c.type in (DELETE, MOVE)]
        for change in sorted(removals, key=lambda c: c.index_path or (0, 0), reverse=True):
            self._remove_row(work, change.index_path, change.id)
        deleted = [c for c in batch.sections if c.type == DELETE]
        for gone in sorted(deleted, key=lambda c: c.section_index, reverse=True):
            index = gone.section_index
            if not 0 <= index < len(work):
                raise MirrorError(f"section delete at {index}, but there are {len(work)} sections")
            if work[index].rows:
                raise MirrorError(
                    f"section delete at {index} ({work[index].name!r}) leaves {len(work[index].rows)} rows unreported"
                )
            del work[index]
        inserted = [c for c in batch.sections if c.type == INSERT]
        for new in sorted(inserted, key=lambda c: c.section_index):
            index = new.section_index
            if not 0 <= index <= len(work):
                raise MirrorError(f"section insert at {index}, but there are {len(work)} sections")
            work.insert(index, MirrorSection(new.section.name, new.section.index_title))
        additions = [c for c in batch.objects if c.type in (INSERT, MOVE)]
        for change in sorted(additions, key=lambda c: c.new_index_path or (0, 0)):
            self._insert_row(work, change.new_index_path, change.row)
        for change in batch.objects:
            if change.type == UPDATE:
                self._replace_row(work, change.new_index_path, change.id, change.row)
        self.sections = work

    @staticmethod
    def _remove_row(work: List[MirrorSection], path: Optional[IndexPath], object_id: str) -> None:
        section, row = _checked(path, work, allow_end=False)
        found = work[section].rows[row].get("id")
        if found != object_id:
            raise MirrorError(f"row {list(path or ())} holds {found!r}, the batch removes {object_id!r}")
        del work[section].rows[row]

    @staticmethod
    def _insert_row(work: List[MirrorSection], path: Optional[IndexPath], row_value: WireObject) -> None:
        section, row = _checked(path, work, allow_end=True)
        work[section].rows.insert(row, row_value)

    @staticmethod
    def _replace_row(work: List[MirrorSection], path: Optional[IndexPath], object_id: str, row_value: WireObject) -> None:
        section, row = _checked(path, work, allow_end=False)
        found = work[section].rows[row].get("id")
        if found != object_id:
            raise MirrorError(f"row {list(path or ())} holds {found!r}, the batch updates {object_id!r}")
        work[section].rows[row] = row_value

    # -- reading ------------------------------------------------------------------------
    @property
    def count(self) -> int:
        return sum(len(s.rows) for s in self.sections)

    def section_infos(self) -> List[SectionInfo]:
        return [s.info for s in self.sections]

    def section_index_titles(self) -> List[str]:
        """Index titles in section order without repeats (SEMANTICS.md §1)."""
        titles: List[str] = []
        for section in self.sections:
            if section.index_title not in titles:
                titles.append(section.index_title)
        return titles

    def object_at(self, index_path: IndexPath) -> WireObject:
        section, row = _checked(index_path, self.sections, allow_end=False)
        return self.sections[section].rows[row]

    def index_path_of(self, object_id: str) -> Optional[IndexPath]:
        for s, section in enumerate(self.sections):
            for r, row in enumerate(section.rows):
                if row.get("id") == object_id:
                    return (s, r)
        return None

    def ids(self) -> List[List[str]]:
        return [[row["id"] for row in section.rows] for section in self.sections]

    def snapshot(self) -> List[Tuple[SectionInfo, List[WireObject]]]:
        """Plain copy (section info, rows) for comparisons with a fresh fetch."""
        return [(s.info, [dict(r) for r in s.rows]) for s in self.sections]

    def __iter__(self) -> Iterator[MirrorSection]:
        return iter(self.sections)


def _checked(path: Optional[IndexPath], work: Sequence[MirrorSection], allow_end: bool) -> Tuple[int, int]:
    if path is None:
        raise MirrorError("missing index path")
    section, row = path
    if not 0 <= section < len(work):
        raise MirrorError(f"index path {list(path)}: no section {section} (there are {len(work)})")
    limit = len(work[section].rows) + (1 if allow_end else 0)
    if not 0 <= row < limit:
        raise MirrorError(f"index path {list(path)}: section {section} has {len(work[section].rows)} rows")
    return section, row
