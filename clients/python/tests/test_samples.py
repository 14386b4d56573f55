"""Every sample runs against the real fetchd, checks its mirror against the server after each
step (show.verify), and prints what the seed describes."""
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import fetchd_binary

pytestmark = pytest.mark.server

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
sys.path.insert(0, str(SAMPLES))


def run_sample(module_name):
    module = __import__(module_name)
    out = io.StringIO()
    module.run(fetchd_binary(), out)
    return out.getvalue()


def test_contacts_sections_index_bar_and_cross_section_move():
    text = run_sample("contacts")
    assert "index: A B C" in text
    assert "didChangeObject move" in text
    assert "didChangeSection delete #0 'A'" in text
    assert "didChangeSection insert" in text and "'Z'" in text
    assert text.rstrip().endswith("index bar tap 'Z' -> section 1")
    assert "index: B Z" in text


def test_notes_move_to_top_and_empty_state_after_the_last_delete():
    text = run_sample("notes")
    assert "didChangeObject move" in text
    tail = text.split("== delete")[-1]
    assert "You don't have any notes yet." in tail
    assert "message label shown" in tail


def test_conversations_message_moves_conversation_to_top_in_one_cycle():
    text = run_sample("conversations")
    step = text.split("== Carol: 'Hi all'")[1].split("==")[0]
    assert step.count("willChangeContent") == 1
    assert "didChangeObject move" in step
    assert step.strip().splitlines()[-3].strip().startswith("Carol")


def test_messages_gain_rows():
    text = run_sample("messages")
    assert text.count("tableView.insertRows") == 5
    assert "tableView.reloadRows(at: [0,0])" in text


@pytest.mark.parametrize("name", ["contacts", "notes", "conversations", "messages"])
def test_samples_run_as_scripts(name):
    result = subprocess.run(
        [sys.executable, str(SAMPLES / f"{name}.py"), "--fetchd", fetchd_binary()],
        capture_output=True, text=True, timeout=60, env={**os.environ},
    )
    assert result.returncode == 0, result.stderr
    assert "==" in result.stdout
