#!/usr/bin/env python3
"""Seed 003: conversations ordered by last message time (newest first). Sending a message is
one JSON-RPC batch (insert the Message, bump the Conversation's lastMessageTime): one change
cycle, so the conversation moves to the top in a single batch of notifications."""
from __future__ import annotations

import os
import sys
from typing import Any, Dict, Optional, Sequence, TextIO

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.dirname(HERE))  # the package next to the samples, before any installed copy

from fetchd import Client, fetch_request  # noqa: E402

from show import Steps, arguments, out_or_stdout, render, stamp, verify  # noqa: E402

MODEL = {
    "entities": [
        {
            "name": "Conversation",
            "attributes": {"title": {"type": "string"}, "lastMessageTime": {"type": "date"}},
            "relationships": {
                "messages": {"destination": "Message", "toMany": True, "inverse": "conversation", "deleteRule": "cascade"}
            },
        },
        {
            "name": "Message",
            "attributes": {"text": {"type": "string"}, "time": {"type": "date"}},
            "relationships": {
                "conversation": {"destination": "Conversation", "toMany": False, "inverse": "messages", "deleteRule": "nullify"}
            },
        },
    ]
}

REQUEST = fetch_request("Conversation", sort_descriptors=["-lastMessageTime"])


def cell(row: Dict[str, Any]) -> str:
    return f"{row['title']:<10} last message {row['lastMessageTime']}"


def run(binary: Optional[str] = None, out: Optional[TextIO] = None) -> None:
    with Client.spawn(binary) as client:
        steps = Steps(client, out_or_stdout(out))
        client.open_store(MODEL)
        moc = client.context()
        conversations = moc.controller("conversations", REQUEST, notify={"keys": ["title", "lastMessageTime"]})

        def show() -> None:
            verify(conversations)
            steps.table(render(conversations, cell, empty="no conversations"))

        people = {}
        for minute, title in enumerate(["Alice", "Bob", "Carol"]):
            steps.step(f"start a conversation with {title}")
            people[title] = moc.insert("Conversation", {"title": title, "lastMessageTime": stamp(minute)})
            show()
        clock = 10
        for title, text in [("Alice", "Lunch?"), ("Bob", "Sure"), ("Alice", "12:30 then"), ("Carol", "Hi all")]:
            clock += 1
            steps.step(f"{title}: {text!r} (one batch: insert Message + update Conversation)")
            with moc.batch() as batch:
                batch.insert("Message", {"text": text, "time": stamp(clock), "conversation": people[title]["id"]})
                batch.update(people[title]["id"], {"lastMessageTime": stamp(clock)})
            show()
        steps.step("delete the conversation with Bob (its messages cascade)")
        moc.delete(people["Bob"]["id"])
        moc.save()
        show()


def main(argv: Optional[Sequence[str]] = None) -> None:
    run(arguments(__doc__ or "", argv).fetchd)


if __name__ == "__main__":
    main()
