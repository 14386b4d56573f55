"""Every sample (and the live view) runs, checks its mirror against the server after each
step (show.verify), and prints what the seed describes, against the real fetchd."""
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import fetchd_binary

pytestmark = pytest.mark.server


@pytest.fixture
def binary():
    return fetchd_binary()

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
sys.path.insert(0, str(SAMPLES))


def run_sample(module_name, binary):
    module = __import__(module_name)
    out = io.StringIO()
    module.run(binary, out)
    return out.getvalue()


def test_contacts_sections_index_bar_and_cross_section_move(binary):
    text = run_sample("contacts", binary)
    assert "index: A B C" in text
    assert "didChangeObject move" in text
    assert "didChangeSection delete #0 'A'" in text
    assert "didChangeSection insert" in text and "'Z'" in text
    assert text.rstrip().endswith("index bar tap 'Z' -> section 1")
    assert "index: B Z" in text


def test_notes_move_to_top_and_empty_state_after_the_last_delete(binary):
    text = run_sample("notes", binary)
    assert "didChangeObject move" in text
    tail = text.split("== delete")[-1]
    assert "You don't have any notes yet." in tail
    assert "message label shown" in tail


def test_conversations_message_moves_conversation_to_top_in_one_cycle(binary):
    text = run_sample("conversations", binary)
    step = text.split("== Carol: 'Hi all'")[1].split("==")[0]
    assert step.count("willChangeContent") == 1
    assert "didChangeObject move" in step
    assert step.strip().splitlines()[-3].strip().startswith("Carol")


def test_messages_gain_rows(binary):
    text = run_sample("messages", binary)
    assert text.count("tableView.insertRows") == 5
    assert "tableView.reloadRows(at: [0,0])" in text


@pytest.mark.parametrize("name", ["contacts", "notes", "conversations", "messages"])
def test_samples_run_as_scripts(name, binary):
    result = subprocess.run(
        [sys.executable, str(SAMPLES / f"{name}.py"), "--fetchd", binary],
        capture_output=True, text=True, timeout=60, env={**os.environ},
    )
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr, result.stderr
    assert "==" in result.stdout


def test_live_view_without_a_terminal_prints_frames_and_exits_by_itself(binary):
    result = subprocess.run(
        [sys.executable, str(SAMPLES / "live_contacts.py"), "--fetchd", binary],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # `make run` shows no warning (nothing left unsaved at the end)
    text = result.stdout
    assert "\x1b[" not in text  # no terminal: plain frames, no ANSI codes
    assert text.count("fetchd live: contacts by initial") >= 15
    assert "+ Ana" in text and "> Zoe" in text and "~ Bob" in text
    assert "- removed: Carla" in text
    assert "section-insert" in text and "section-delete" in text
    assert text.rstrip().splitlines()[-1].startswith("done: ")
    assert "the mirror equals controller/rows" in text


def test_live_view_ansi_mode_redraws_in_place(binary):
    result = subprocess.run(
        [sys.executable, str(SAMPLES / "live_contacts.py"), "--fetchd", binary, "--ansi", "--delay", "0"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("\x1b[H\x1b[2J") >= 20
    assert "\x1b[32m" in result.stdout and "\x1b[31;9m" in result.stdout


def test_live_viewer_follows_a_plain_sqlite3_editor(binary, tmp_path):
    store = tmp_path / "items.sqlite"
    viewer = subprocess.Popen(
        [sys.executable, str(SAMPLES / "live_viewer.py"), str(store), "--fetchd", binary, "--seconds", "4"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
    )
    try:
        editor = subprocess.run(
            [sys.executable, str(SAMPLES / "edit_with_sqlite3.py"), str(store), "--edits", "25", "--interval", "0.04"],
            capture_output=True, text=True, timeout=30,
        )
        assert editor.returncode == 0, editor.stderr
        assert len(editor.stdout.splitlines()) == 25
        out, err = viewer.communicate(timeout=30)
    finally:
        if viewer.poll() is None:
            viewer.kill()
            viewer.wait()
    assert viewer.returncode == 0, err
    assert "\x1b[" not in out  # not a terminal: plain lines
    assert out.count("== cycle") >= 2  # it redrew as the edits arrived, not only at the end
    final = out.split("final:\n")[1].split("end\n")[0].splitlines()
    import sqlite3
    db = sqlite3.connect(str(store))
    expected = [f"{'Item/%d' % pk:<10} {name:<8} {qty:>3}" for pk, name, qty in
                db.execute("SELECT _pk, name, qty FROM Item ORDER BY name, qty, _pk")]
    db.close()
    assert final == expected
    assert expected  # the editor left rows
