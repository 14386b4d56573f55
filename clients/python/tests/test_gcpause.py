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
