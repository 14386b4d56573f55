"""The collector pauses for big decodes and mirror applies and always comes back as it was."""
import gc
import json

import pytest

from fetchd.framing import decode_body
from fetchd.gcpause import PAUSE_FROM_BYTES, collector_paused


def test_the_collector_is_off_inside_and_back_on_after_even_on_error():
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(KeyError):
        with collector_paused():
            raise KeyError("x")
    assert gc.isenabled()
    with collector_paused(pause=False):
        assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off():
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_big_body_decodes_with_the_collector_paused(monkeypatch):
    seen = []
    import fetchd.framing as framing

    real = framing._scan
    monkeypatch.setattr(framing, "_scan", lambda text, at: (seen.append(gc.isenabled()), real(text, at))[1])
    big = json.dumps({"ids": ["Msg/%d" % i for i in range(PAUSE_FROM_BYTES // 8)]}).encode()
    assert len(big) >= PAUSE_FROM_BYTES
    assert decode_body(big) == json.loads(big)
    assert decode_body(b'{"small": 1}') == {"small": 1}
    assert seen == [False, True] and gc.isenabled()


def test_many_small_bodies_of_one_read_decode_with_the_collector_paused(monkeypatch):
    import fetchd.framing as framing

    seen = []
    real = framing.decode_body
    monkeypatch.setattr(framing, "decode_body", lambda body: (seen.append(gc.isenabled()), real(body))[1])
    one = json.dumps({"jsonrpc": "2.0", "method": "controller/didChangeObject", "params": {"id": "x" * 100}}).encode()
    many = [one] * (PAUSE_FROM_BYTES // len(one) + 1)
    assert len(framing.parse(many)) == len(many)
    assert not any(seen) and gc.isenabled()
    seen.clear()
    framing.parse([one, one])
    assert seen == [True, True]


def test_a_pause_held_across_a_loop_ends_once_and_only_if_it_began():
    from fetchd.gcpause import Pause

    pause = Pause()
    pause.begin(False)
    assert gc.isenabled()
    pause.begin(True)
    pause.begin(True)
    assert not gc.isenabled()
    pause.end()
    assert gc.isenabled()
    pause.end()
    assert gc.isenabled()
    gc.disable()
    try:
        pause.begin(True)
        pause.end()
        assert not gc.isenabled(), "a collector the caller turned off stays off"
    finally:
        gc.enable()
