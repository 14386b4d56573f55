"""Models and helpers the server tests share."""
from typing import Any, Dict, List

CONTACTS = {
    "entities": [
        {
            "name": "Contact",
            "attributes": {
                "name": {"type": "string"},
                "initial": {"type": "string"},
                "phone": {"type": "string", "optional": True},
                "age": {"type": "integer", "default": 0},
                "score": {"type": "double", "default": 0},
                "favorite": {"type": "boolean", "default": False},
            },
        }
    ]
}

NOTES = {
    "entities": [
        {
            "name": "Note",
            "attributes": {
                "title": {"type": "string"},
                "contents": {"type": "string", "optional": True},
                "updatedAt": {"type": "date"},
            },
        }
    ]
}


def stamp(minute: int) -> str:
    """A deterministic ISO 8601 date: 2026-01-01T10:MM:00Z."""
    return f"2026-01-01T{10 + minute // 60:02d}:{minute % 60:02d}:00Z"


def events(controller) -> List[Any]:
    """The last cycle's object changes as plain tuples (type, id, indexPath, newIndexPath)."""
    batch = controller.last_batch
    return [(c.type, c.id, c.index_path, c.new_index_path) for c in batch.objects]


def section_events(controller) -> List[Any]:
    return [(c.type, c.section_index, c.section.name) for c in controller.last_batch.sections]


def check_mirror(controller) -> None:
    """The mirror must equal a fresh controller/rows (ids and values) and sections."""
    infos = controller.sections()
    keys = (controller.notify or {}).get("keys")
    fresh: List[List[Dict[str, Any]]] = [controller.rows(i, keys=keys) if s.number_of_objects else [] for i, s in enumerate(infos)]
    assert controller.mirror.section_infos() == infos
    assert [[dict(r) for r in s.rows] for s in controller.mirror.sections] == fresh
