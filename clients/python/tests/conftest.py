import os

import pytest

from fetchd import Client
from fetchd.locate import find_fetchd


def fetchd_binary() -> str:
    """The real fetchd: FETCHD=/path/to/fetchd, else the repository's build output. A missing
    binary fails the server tests (they are never skipped)."""
    try:
        path = find_fetchd()
    except FileNotFoundError as error:
        pytest.fail(str(error))
    if not os.access(path, os.X_OK):
        pytest.fail(f"FETCHD={path} is not an executable")
    return path


@pytest.fixture(params=["lsp", "ndjson"])
def framing(request):
    return request.param


@pytest.fixture
def server():
    """A spawned fetchd (LSP framing), closed after the test with exit code 0 checked."""
    client = Client.spawn(fetchd_binary())
    yield client
    assert client.close() == 0
