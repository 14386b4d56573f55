"""Makes the tools importable from the tests (they live one folder up, run as scripts)."""

import os
import sys

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAKE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_fetchd.py")
if TOOLS not in sys.path:
    sys.path.insert(0, TOOLS)
