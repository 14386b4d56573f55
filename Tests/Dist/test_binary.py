"""The dist binary is self-contained: only Debian's libraries, no RUNPATH, and it serves a
whole session where the Swift toolchain does not exist."""
from __future__ import annotations

import json
import re
import unittest
from pathlib import Path

from distsupport import BINARY, REPO, check_session, is_root, run, scratch, session_messages, version, \
    without_toolchain


class DistBinaryTests(unittest.TestCase):
    def test_links_only_libraries_from_debian_packages(self) -> None:
        out = run(["ldd", str(BINARY)]).stdout.decode()
        self.assertNotIn("not found", out)
        self.assertNotRegex(out, r"libswift|libFoundation|libdispatch|libicu")
        libraries = re.findall(r"=> (/\S+)", out)
        self.assertGreater(len(libraries), 4, out)
        for library in libraries:
            owner = run(["dpkg", "-S", str(Path(library).resolve())])
            if owner.returncode != 0:  # usrmerge: dpkg knows /lib/... where ldd says /usr/lib/...
                owner = run(["dpkg", "-S", re.sub(r"^/usr/lib/", "/lib/", library)])
            self.assertEqual(owner.returncode, 0, f"{library} belongs to no Debian package")

    def test_has_no_runpath_and_is_stripped(self) -> None:
        dynamic = run(["readelf", "-d", str(BINARY)]).stdout.decode()
        self.assertNotRegex(dynamic, r"\((RPATH|RUNPATH)\)")
        sections = run(["readelf", "-S", "-W", str(BINARY)]).stdout.decode()
        self.assertNotIn(".symtab", sections)

    @unittest.skipUnless(is_root(), "hiding the toolchain needs a mount namespace (root)")
    def test_runs_with_the_toolchain_hidden(self) -> None:
        answered = run(without_toolchain([str(BINARY), "--version"]))
        self.assertEqual(answered.returncode, 0, answered.stderr)
        self.assertEqual(answered.stdout.decode().strip(), version())
        described = run(without_toolchain([str(BINARY), "describe"]))
        self.assertEqual(described.returncode, 0, described.stderr)
        self.assertEqual(json.loads(described.stdout)["info"]["version"], version())
        with scratch() as tmp:
            store = f"{tmp}/notes.sqlite"
            served = run(without_toolchain([str(BINARY)]), input=session_messages(store))
            self.assertEqual(served.returncode, 0, served.stderr)
            self.assertEqual(served.stderr, b"")
            check_session(served.stdout, store)

    @unittest.skipUnless(is_root(), "hiding the toolchain needs a mount namespace (root)")
    def test_the_hidden_toolchain_is_really_missing(self) -> None:
        # The control: a binary built the ordinary way links the toolchain's runtime and fails
        # in the same namespace, so the test above proves something.
        ordinary = REPO / ".build" / "debug" / "fetchd"
        if not ordinary.exists():
            self.skipTest("no .build/debug/fetchd to compare with")
        failed = run(without_toolchain([str(ordinary), "--version"]))
        self.assertNotEqual(failed.returncode, 0)
        self.assertIn(b"libswift", failed.stderr)


if __name__ == "__main__":
    unittest.main()
