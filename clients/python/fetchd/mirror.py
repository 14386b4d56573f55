"""TableMirror: the sections and rows of a controller, kept in sync by applying each cycle's
batch exactly as protocol.md §11 (UITableView's beginUpdates/endUpdates) says.

A UI renders straight from ``mirror.sections``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from operator import itemgetter
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple, TypeVar

from .changes import DELETE, INSERT, MOVE, UPDATE, ChangeBatch, Difference, IndexPath, SectionInfo, WireObject
from .errors import MirrorError
from .gcpause import collector_paused

# The row of a (row, ...) run: what runs are sorted by.
_first = itemgetter(0)

_C = TypeVar("_C")  # what one cycle's step applies: a ChangeBatch or a Difference


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

    # -- the batch rule (protocol.md §11) --------------------------------------------------
    def apply(self, batch: ChangeBatch) -> None:
        """Apply one cycle. On error the mirror is left unchanged and MirrorError is raised.

        Changes are made in place and undone from a log on error, so a cycle costs its own
        size (plus list shifts), not a copy of the table."""
        self._all_or_nothing(self._apply, batch)

    @staticmethod
    def _apply(work: "_Undoable", batch: ChangeBatch) -> None:
        sections = work.sections
        # Removals name OLD positions: each is checked against the row it names, then a
        # section's rows go in runs (one pass over a section that loses many, not a shift
        # of its tail per row).
        removals: Dict[int, List[int]] = {}
        for change in batch.objects:
            if change.type in (DELETE, MOVE):
                section, row = _checked(change.index_path, sections, allow_end=False)
                _expect_id(sections, section, row, change.id, "removes")
                removals.setdefault(section, []).append(row)
        for section in sorted(removals):
            work.remove_runs(section, _removal_runs(section, removals[section]))
        deleted = [c for c in batch.sections if c.type == DELETE]
        for gone in sorted(deleted, key=lambda c: c.section_index, reverse=True):
            work.delete_section(gone.section_index)
        inserted = [c for c in batch.sections if c.type == INSERT]
        for new in sorted(inserted, key=lambda c: c.section_index):
            work.insert_section(new.section_index, MirrorSection(new.section.name, new.section.index_title))
        # Additions name NEW positions, inserted as if one after another from the lowest:
        # consecutive ones are one run, and a section's runs go in one pass.
        additions: Dict[int, List[Tuple[int, List[WireObject]]]] = {}
        for change in sorted((c for c in batch.objects if c.type in (INSERT, MOVE)),
                             key=lambda c: c.new_index_path or (0, 0)):
            section, row = _section_of(change.new_index_path, sections)
            runs = additions.setdefault(section, [])
            last = runs[-1] if runs else None
            if last is not None and last[0] + len(last[1]) == row:
                last[1].append(change.row)
            else:
                runs.append((row, [change.row]))
        for section in sorted(additions):
            work.insert_runs(section, additions[section])
        # Updates replace their rows in place; one undo entry puts back all that were
        # replaced (a closure per row cost more than the replacement).
        replaced: List[Tuple[List[WireObject], int, WireObject]] = []
        work.log(lambda: _put_back_replaced(replaced))
        count = len(sections)
        for change in batch.objects:
            if change.type != UPDATE:
                continue
            path = change.new_index_path
            if path is None:
                raise MirrorError("missing index path")
            section, row = path
            if not 0 <= section < count or not 0 <= row < len(sections[section].rows):
                _checked(path, sections, allow_end=False)  # raises, saying what is wrong
            rows = sections[section].rows
            old = rows[row]
            if old.get("id") != change.id:
                _expect_id(sections, section, row, change.id, "updates")
            replaced.append((rows, row, old))
            rows[row] = change.row

    # -- one message per cycle (protocol.md §10.8, §11.4) -------------------------------------
    def apply_difference(self, diff: Difference) -> None:
        """Apply one ``controller/didChange``: the five steps of §11.1 a run at a time, each
        run one slice. On error the mirror is left unchanged and MirrorError is raised."""
        self._all_or_nothing(self._apply_difference, diff)

    def _all_or_nothing(self, step: "Callable[[_Undoable, _C], None]", change: "_C") -> None:
        """Runs one cycle's step in place, undoing it from its log when it fails. The rows it
        makes hold no cycle: the collector waits (a million rows: 0.27 -> 0.21 s)."""
        work = _Undoable(self.sections)
        with collector_paused():
            try:
                step(work, change)
            except MirrorError:
                work.undo()
                raise

    @staticmethod
    def _apply_difference(work: "_Undoable", diff: Difference) -> None:
        sections = work.sections
        # The columns hold inserted rows, then moved, then updated.
        at = 0
        additions: Dict[int, List[Tuple[int, List[WireObject]]]] = {}
        for section, row, count in diff.inserted:
            additions.setdefault(section, []).append((row, diff.rows(at, count)))
            at += count
        removals: Dict[int, List[Tuple[int, int]]] = {}
        for section, row, count in diff.deleted:
            removals.setdefault(section, []).append((row, count))
        # The moved rows' objects made in one call, not one call each.
        moved, objects = diff.moved, diff.rows(at, len(diff.moved))
        within = {m[0] for m in moved} | {m[2] for m in moved}
        if len(within) == 1:
            # All in one section (a table without sections): two lists, no look-up per move.
            (only,) = within
            removals.setdefault(only, []).extend([(m[1], 1) for m in moved])
            additions.setdefault(only, []).extend([(m[3], [obj]) for m, obj in zip(moved, objects)])
        else:
            for (old_section, old_row, new_section, new_row), obj in zip(moved, objects):
                removals.setdefault(old_section, []).append((old_row, 1))
                additions.setdefault(new_section, []).append((new_row, [obj]))
        at += len(moved)
        if not diff.sections_deleted and not diff.sections_inserted:
            # Sections keep their indexes: each one's rows are rebuilt once, not twice.
            for section in sorted(set(removals) | set(additions)):
                if not 0 <= section < len(sections):
                    raise MirrorError(f"rows changed in section {section}, but there are {len(sections)} sections")
                work.replace_runs(
                    section, sorted(removals.get(section, [])), sorted(additions.get(section, []), key=_first))
            removals, additions = {}, {}
        for section in sorted(removals, reverse=True):
            if not 0 <= section < len(sections):
                raise MirrorError(f"rows removed from section {section}, but there are {len(sections)} sections")
            work.remove_runs(section, sorted(removals[section]))
        for index in sorted(diff.sections_deleted, reverse=True):
            work.delete_section(index)
        for index, info in sorted(diff.sections_inserted, key=lambda s: s[0]):
            work.insert_section(index, MirrorSection(info.name, info.index_title))
        for section in sorted(additions):
            if not 0 <= section < len(sections):
                raise MirrorError(f"rows inserted into section {section}, but there are {len(sections)} sections")
            work.insert_runs(section, sorted(additions[section], key=_first))
        for section, row, count in diff.updated:
            ids = diff.ids[at:at + count]
            if not 0 <= section < len(sections) or not 0 <= row or row + count > len(sections[section].rows):
                raise MirrorError(f"update run {[section, row, count]} is outside the table")
            held = sections[section].rows[row : row + count]
            # The run's ids compared as one list (a batch updates 100k rows in one run).
            if [r.get("id") for r in held] != ids:
                k = next(k for k, object_id in enumerate(ids) if held[k].get("id") != object_id)
                raise MirrorError(f"row {[section, row + k]} holds {held[k].get('id')!r}, the cycle updates {ids[k]!r}")
            # Without values (objects: false) a row that is just its id stays as it is.
            if diff.values is not None or set(map(len, held)) != {1}:
                work.replace_rows(section, row, diff.rows(at, count))
            at += count
        for index, info in diff.sections_inserted:
            if info.number_of_objects != len(sections[index].rows):
                raise MirrorError(f"inserted section {info.name!r} has {len(sections[index].rows)} rows, not {info.number_of_objects}")

    # -- reading ------------------------------------------------------------------------
    @property
    def count(self) -> int:
        return sum(len(s.rows) for s in self.sections)

    def section_infos(self) -> List[SectionInfo]:
        return [s.info for s in self.sections]

    def section_index_titles(self) -> List[str]:
        """Index titles in section order without repeats (protocol.md §9)."""
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


def _kept(rows: List[WireObject], removed: List[Tuple[int, int]]) -> List[WireObject]:
    """A new list of ``rows`` without the ``(row, count)`` runs (sorted, checked), by slices."""
    kept: List[WireObject] = []
    start = 0
    for row, count in removed:
        kept += rows[start:row]
        start = row + count
    kept += rows[start:]
    return kept


def _inserted(section: int, rows: List[WireObject], runs: List[Tuple[int, List[WireObject]]]) -> List[WireObject]:
    """A new list of ``rows`` with the ``(row, objects)`` runs at NEW positions (sorted by row)."""
    out: List[WireObject] = []
    taken = 0
    for row, objects in runs:
        take = row - len(out)
        if take < 0 or taken + take > len(rows):
            raise MirrorError(f"insert at {[section, row]}: section {section} has {len(rows)} rows")
        out += rows[taken : taken + take]
        taken += take
        out += objects
    out += rows[taken:]
    return out


class _Undoable:
    """In-place edits of a mirror's sections with a log to undo them in reverse order."""

    def __init__(self, sections: List[MirrorSection]) -> None:
        self.sections = sections
        self._log: List[Callable[[], object]] = []

    def log(self, undo: Callable[[], object]) -> None:
        """An undo step made by the caller."""
        self._log.append(undo)

    # A section that many runs touch is rebuilt from slices in one pass (each splice would
    # shift the whole tail); a few runs are spliced in place.
    SPLICE_LIMIT = 8

    def remove_runs(self, section: int, runs: List[Tuple[int, int]]) -> None:
        """Remove ``(row, count)`` runs of OLD rows (sorted by row, not overlapping)."""
        target = self.sections[section]
        rows = target.rows
        self._check_removed(section, rows, runs)
        if len(runs) <= self.SPLICE_LIMIT:
            for row, count in reversed(runs):
                removed = rows[row : row + count]
                del rows[row : row + count]
                self._log.append(_put_back(rows, row, removed))
            return
        self._swap(target, _kept(rows, runs))

    @staticmethod
    def _check_removed(section: int, rows: List[WireObject], runs: List[Tuple[int, int]]) -> None:
        """Runs of existing rows, sorted and not overlapping."""
        end = 0
        for row, count in runs:
            if row < end or count < 1 or row + count > len(rows):
                raise MirrorError(f"remove {count} rows at {[section, row]}: section {section} has {len(rows)} rows")
            end = row + count

    def replace_runs(
        self, section: int, removed: List[Tuple[int, int]], added: List[Tuple[int, List[WireObject]]]
    ) -> None:
        """``remove_runs`` then ``insert_runs``; with many runs of both, the new list is made
        from the kept rows in one more pass of slices and swapped in once."""
        if len(removed) <= self.SPLICE_LIMIT or len(added) <= self.SPLICE_LIMIT:
            if removed:
                self.remove_runs(section, removed)
            if added:
                self.insert_runs(section, added)
            return
        target = self.sections[section]
        self._check_removed(section, target.rows, removed)
        self._swap(target, _inserted(section, _kept(target.rows, removed), added))

    def insert_runs(self, section: int, runs: List[Tuple[int, List[WireObject]]]) -> None:
        """Insert ``(row, objects)`` runs at NEW positions (sorted by row), as if one after the
        other from the lowest."""
        target = self.sections[section]
        rows = target.rows
        if len(runs) <= self.SPLICE_LIMIT:
            for row, objects in runs:
                if not 0 <= row <= len(rows):
                    raise MirrorError(f"insert at {[section, row]}: section {section} has {len(rows)} rows")
                rows[row:row] = objects
                count = len(objects)
                self._log.append(_take_out(rows, row, count))
            return
        self._swap(target, _inserted(section, rows, runs))

    def replace_rows(self, section: int, row: int, values: List[WireObject]) -> None:
        rows = self.sections[section].rows
        old = rows[row : row + len(values)]
        rows[row : row + len(values)] = values
        self._log.append(lambda: rows.__setitem__(slice(row, row + len(old)), old))

    def _swap(self, target: MirrorSection, rows: List[WireObject]) -> None:
        old = target.rows
        target.rows = rows
        self._log.append(lambda: setattr(target, "rows", old))

    def delete_section(self, index: int) -> None:
        """Removes an existing section that no row is left in (the cycle reported them all)."""
        if not 0 <= index < len(self.sections):
            raise MirrorError(f"section delete at {index}, but there are {len(self.sections)} sections")
        if self.sections[index].rows:
            left = self.sections[index]
            raise MirrorError(f"section delete at {index} ({left.name!r}) leaves {len(left.rows)} rows unreported")
        gone = self.sections.pop(index)
        self._log.append(lambda: self.sections.insert(index, gone))

    def insert_section(self, index: int, section: MirrorSection) -> None:
        if not 0 <= index <= len(self.sections):
            raise MirrorError(f"section insert at {index}, but there are {len(self.sections)} sections")
        self.sections.insert(index, section)
        self._log.append(lambda: self.sections.pop(index))

    def undo(self) -> None:
        while self._log:
            self._log.pop()()


def _put_back_replaced(replaced: List[Tuple[List[WireObject], int, WireObject]]) -> None:
    for rows, row, old in reversed(replaced):
        rows[row] = old


def _put_back(rows: List[WireObject], row: int, removed: List[WireObject]) -> Callable[[], object]:
    return lambda: rows.__setitem__(slice(row, row), removed)


def _take_out(rows: List[WireObject], row: int, count: int) -> Callable[[], object]:
    return lambda: rows.__delitem__(slice(row, row + count))


def _expect_id(sections: Sequence[MirrorSection], section: int, row: int, object_id: str, verb: str) -> None:
    found = sections[section].rows[row].get("id")
    if found != object_id:
        raise MirrorError(f"row {[section, row]} holds {found!r}, the batch {verb} {object_id!r}")


def _removal_runs(section: int, rows: List[int]) -> List[Tuple[int, int]]:
    """Old rows (checked, any order) as sorted ``(row, count)`` runs of consecutive rows."""
    runs: List[Tuple[int, int]] = []
    for row in sorted(rows):
        if runs and runs[-1][0] + runs[-1][1] > row:
            raise MirrorError(f"row {[section, row]} is removed twice in one cycle")
        if runs and runs[-1][0] + runs[-1][1] == row:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((row, 1))
    return runs


def _section_of(path: Optional[IndexPath], work: Sequence[MirrorSection]) -> Tuple[int, int]:
    """An insertion's new index path, its section checked (its row is checked as it goes in)."""
    if path is None:
        raise MirrorError("missing index path")
    section, row = path
    if not 0 <= section < len(work):
        raise MirrorError(f"index path {list(path)}: no section {section} (there are {len(work)})")
    return section, row


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
