import pytest

from fetchd import ControllerDelegate, ProtocolViolation, SectionInfo, TableMirror
from fetchd.delegate import ControllerCore

from reference_cycle import cycle


class Recording(ControllerDelegate):
    def __init__(self):
        self.calls = []

    def will_change_content(self, controller):
        self.calls.append(("will",))

    def did_change_section(self, controller, section_info, section_index, change_type):
        self.calls.append(("section", change_type, section_index, section_info.name))

    def did_change_object(self, controller, obj, index_path, change_type, new_index_path):
        self.calls.append(("object", change_type, obj["id"], index_path, new_index_path))

    def did_change_content(self, controller):
        # The mirror has already applied the cycle when the delegate hears the end of it.
        self.calls.append(("did", controller.mirror.ids()))


def contacts(*pairs):
    return [{"id": f"Contact/{n}", "name": name} for n, name in pairs]


def test_delegate_sees_every_notification_in_order_and_renders_from_the_applied_mirror():
    old = [("A", contacts((1, "Ana"))), ("B", contacts((2, "Bo")))]
    new = [("B", contacts((2, "Bo"), (1, "Bea")))]
    mirror = TableMirror()
    mirror.load([SectionInfo(n, n, len(r)) for n, r in old], [r for _, r in old])
    delegate = Recording()
    core = ControllerCore("contacts", delegate, mirror)
    for method, params in cycle("contacts", old, new, {"Contact/1"}):
        core.handle_notification(method, params)
    assert delegate.calls == [
        ("will",),
        ("section", "delete", 0, "A"),
        ("object", "move", "Contact/1", (0, 0), (0, 1)),
        ("did", [["Contact/2", "Contact/1"]]),
    ]
    assert core.cycles == 1
    assert core.last_batch.counts() == {"section-delete": 1, "move": 1}


def test_a_delegate_with_only_some_methods_works():
    class OnlyDid:
        def __init__(self):
            self.count = 0

        def did_change_content(self, controller):
            self.count += 1

    delegate = OnlyDid()
    core = ControllerCore("c", delegate)
    core.handle_notification("controller/willChangeContent", {"controller": "c"})
    core.handle_notification(
        "controller/didChangeObject",
        {"controller": "c", "type": "insert", "id": "Note/1", "newIndexPath": [0, 0], "object": {"id": "Note/1"}},
    )
    core.handle_notification("controller/didChangeContent", {"controller": "c"})
    assert delegate.count == 1


def test_cycle_hooks_receive_the_batch():
    seen = []
    core = ControllerCore("c")
    core.cycle_hooks.append(lambda controller, batch: seen.append((controller.name, len(batch.objects))))
    core.handle_notification("controller/willChangeContent", {"controller": "c"})
    core.handle_notification("controller/didChangeContent", {"controller": "c"})
    assert seen == [("c", 0)]


@pytest.mark.parametrize(
    "sequence",
    [
        ["controller/didChangeContent"],
        ["controller/willChangeContent", "controller/willChangeContent"],
        ["controller/didChangeSection"],
    ],
)
def test_unpaired_notifications_are_protocol_violations(sequence):
    core = ControllerCore("c")
    params = {"controller": "c", "type": "insert", "sectionIndex": 0, "section": {"name": "", "indexTitle": "", "numberOfObjects": 0}}
    with pytest.raises(ProtocolViolation):
        for method in sequence:
            core.handle_notification(method, params)


@pytest.mark.parametrize(
    "params",
    [
        {"type": "insert", "id": "N/1"},
        {"type": "delete", "id": "N/1", "newIndexPath": [0, 0]},
        {"type": "move", "id": "N/1", "indexPath": [0, 0]},
        {"type": "rename", "id": "N/1", "indexPath": [0, 0]},
        {"type": "update", "id": 7, "indexPath": [0, 0], "newIndexPath": [0, 0]},
        {"type": "update", "id": "N/1", "indexPath": [0], "newIndexPath": [0, 0]},
        {"type": "insert", "id": "N/1", "newIndexPath": [True, 0]},
        {"type": "insert", "id": "N/1", "newIndexPath": [0, 1.0]},
        {"type": "insert", "id": "N/1", "newIndexPath": (0, 1)},
    ],
)
def test_malformed_object_changes_are_refused(params):
    core = ControllerCore("c")
    core.handle_notification("controller/willChangeContent", {"controller": "c"})
    with pytest.raises(ProtocolViolation):
        core.handle_notification("controller/didChangeObject", {"controller": "c", **params})
