"""The client's version, in a module of its own so the handshake can name it without importing
the package (whose __init__ imports the clients: a circle)."""

__version__ = "0.1.0"
