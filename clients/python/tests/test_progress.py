"""Progress without a server: TerminalBar draws only on a terminal, and ProgressRoute turns what
fetchd sends (or fails to send) into one coherent begin ... end sequence per call."""
import io

import pytest

from fetchd import Progress, TerminalBar
from fetchd.call import Call
from fetchd.progress import ProgressRoute, attached, resolve
from fetchd.protocol import ProtocolCore


class FakeTTY(io.StringIO):
    def isatty(self):
        return True


def run_bar(stream, width=100, **options):
    bar = TerminalBar(stream, width=width, **options)
    bar(Progress("t", "begin", "store/batchInsert", "started", 0))
    bar(Progress("t", "report", None, "writing rows: 118784 of 300000", 39))
    bar(Progress("t", "report", None, "rebuilding indexes"))
    bar(Progress("t", "end", None, "done in 812 ms"))
    return stream.getvalue()


def test_the_bar_redraws_in_place_and_ends_with_a_newline_on_a_terminal():
    out = run_bar(FakeTTY(), interval=0)
    assert out.endswith("\n") and out.count("\n") == 1
    assert out.count("\r") == 4
    assert "writing rows: 118784 of 300000 [" in out and " 39%" in out
    # Every line fits the width, and a shorter line covers the longer one before it.
    lines = out.rstrip("\n").split("\r")[1:]
    assert len(lines[2]) == len(lines[1])
    assert lines[-1].startswith("store/batchInsert: done in 812 ms")


def test_the_bar_never_wraps_a_narrow_terminal():
    out = run_bar(FakeTTY(), width=40, interval=0)
    assert all(len(line) <= 39 for line in out.rstrip("\n").split("\r"))


def test_the_bar_draws_nothing_on_a_stream_that_is_no_terminal():
    assert run_bar(io.StringIO(), interval=0) == ""


def test_the_bar_skips_reports_within_its_interval_but_never_a_new_step_or_the_end():
    stream = FakeTTY()
    bar = TerminalBar(stream, width=80, interval=3600)
    bar(Progress("t", "begin", "store/batchInsert", "started", 0))
    for done in range(1, 50):
        bar(Progress("t", "report", None, f"sending rows: {done} of 100", done))
    bar(Progress("t", "report", None, "checking 100 rows"))
    bar(Progress("t", "end", None, "done in 1 ms"))
    out = stream.getvalue()
    assert out.count("\r") == 4  # begin, the first sending report, checking, end
    assert "sending rows: 1 of 100" in out and "sending rows: 2 of 100" not in out
    assert out.endswith("\n")


def test_resolve_draws_a_bar_only_when_stderr_is_a_terminal(monkeypatch):
    def callback(_progress):
        pass

    monkeypatch.setattr("sys.stderr", io.StringIO())
    assert resolve(None, default_bar=True) is None and resolve(True) is None
    monkeypatch.setattr("sys.stderr", FakeTTY())
    assert isinstance(resolve(None, default_bar=True), TerminalBar) and isinstance(resolve(True), TerminalBar)
    assert resolve(None) is None and resolve(False, default_bar=True) is None
    assert resolve(callback, default_bar=True) is callback


def wire(token, kind, message=None, percentage=None, title=None):
    value = {"kind": kind}
    for key, item in (("title", title), ("message", message), ("percentage", percentage)):
        if item is not None:
            value[key] = item
    return "$/progress", {"token": token, "value": value}


def test_a_route_passes_its_own_token_only_and_nothing_after_the_end():
    seen = []
    route = ProgressRoute(seen.append, token="mine")
    route.listen(*wire("other", "begin", title="store/open"))
    route.listen("controller/didChangeContent", {"controller": "c"})
    route.listen(*wire("mine", "begin", "started", 0, title="store/batchDelete"))
    route.listen(*wire("mine", "begin", "started", 0, title="again"))
    route.listen(*wire("mine", "report", "deleting the matching rows"))
    route.listen(*wire("mine", "end", "done in 3 ms"))
    route.listen(*wire("mine", "report", "late"))
    route.close(failed=False)
    assert [(p.kind, p.title, p.message) for p in seen] == [
        ("begin", "store/batchDelete", "started"), ("report", None, "deleting the matching rows"),
        ("end", None, "done in 3 ms")]


def test_a_route_that_owns_the_sequence_drops_fetchds_begin_and_times_the_end_itself():
    seen = []
    route = ProgressRoute(seen.append, token=7)
    route.begin("store/batchInsert", "sending 10 rows")
    route.report("sending rows: 10 of 10", 100)
    route.listen(*wire(7, "begin", "started", 0, title="store/batchInsert"))
    route.listen(*wire(7, "report", "checking 10 rows"))
    route.listen(*wire(7, "end", "failed after 0 ms"))
    assert [p.kind for p in seen] == ["begin", "report", "report", "end"]
    assert seen[0].title == "store/batchInsert" and seen[-1].message.startswith("failed after ")


def test_attached_ends_a_begun_sequence_when_the_call_fails_and_always_removes_the_listener():
    core = ProtocolCore()
    seen = []
    route = ProgressRoute(seen.append)
    with pytest.raises(ConnectionError):
        with attached(core, route):
            assert core._listeners == [route.listen]
            route.listen(*wire(route.token, "begin", "started", 0, title="store/open"))
            raise ConnectionError("fetchd went away")
    assert core._listeners == []
    assert [p.kind for p in seen] == ["begin", "end"] and seen[-1].message.startswith("failed after ")

    quiet = []
    with pytest.raises(ValueError):
        with attached(core, ProgressRoute(quiet.append)):
            raise ValueError("refused before anything began")
    assert quiet == [] and core._listeners == []


def test_tag_adds_the_token_and_keeps_the_decoding():
    route = ProgressRoute(lambda _p: None, token="py-x")
    call = Call("store/batchDelete", {"entity": "N"}, lambda raw: raw["count"])
    tagged = route.tag(call)
    assert tagged.params == {"entity": "N", "workDoneToken": "py-x"} and call.params == {"entity": "N"}
    assert tagged.decode({"count": 3}) == 3
