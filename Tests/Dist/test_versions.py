"""One version everywhere: FetchdVersion.current (scripts/version.sh reads it) against every
other place a version is shown or shipped. Any disagreement fails here."""
from __future__ import annotations

import json
import re
import unittest
import zipfile

from distsupport import BINARY, DIST, REPO, run, version


class VersionTests(unittest.TestCase):
    def setUp(self) -> None:
        self.version = version()
        self.assertRegex(self.version, r"^\d+\.\d+\.\d+$")

    def test_binary_and_its_answers(self) -> None:
        self.assertEqual(run([str(BINARY), "--version"]).stdout.decode().strip(), self.version)
        described = json.loads(run([str(BINARY), "describe"]).stdout)
        self.assertEqual(described["info"]["version"], self.version)
        hello = b'{"jsonrpc":"2.0","method":"initialize","id":1}\n'
        answer = json.loads(run([str(BINARY)], input=hello).stdout.splitlines()[0])
        self.assertEqual(answer["result"]["serverInfo"]["version"], self.version)

    def test_checked_in_openrpc_document(self) -> None:
        document = json.loads((REPO / "clients" / "openrpc.json").read_text())
        self.assertEqual(document["info"]["version"], self.version)

    def test_python_client(self) -> None:
        source = (REPO / "clients" / "python" / "fetchd" / "version.py").read_text()
        self.assertEqual(re.findall(r'^__version__ = "([^"]+)"', source, re.M), [self.version])

    def test_js_client(self) -> None:
        package = json.loads((REPO / "clients" / "js" / "package.json").read_text())
        self.assertEqual(package["version"], self.version)

    def test_changelog_names_it_as_the_latest_release(self) -> None:
        releases = re.findall(r"^## \[(\d[^\]]*)\] - \d{4}-\d{2}-\d{2}$", (REPO / "CHANGELOG.md").read_text(), re.M)
        self.assertTrue(releases, "CHANGELOG.md has no release heading")
        self.assertEqual(releases[0], self.version)

    def test_debian_package(self) -> None:
        debs = list(DIST.glob("fetchd_*.deb"))
        self.assertEqual([d.name.split("_")[1] for d in debs], [self.version])
        field = run(["dpkg-deb", "--field", str(debs[0]), "Version"]).stdout.decode().strip()
        self.assertEqual(field, self.version)

    def test_wheel(self) -> None:
        wheels = list(DIST.glob("fetchd-*.whl"))
        self.assertEqual([w.name.split("-")[1] for w in wheels], [self.version])
        with zipfile.ZipFile(wheels[0]) as wheel:
            metadata = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
            self.assertIn(f"\nVersion: {self.version}\n", wheel.read(metadata).decode())


if __name__ == "__main__":
    unittest.main()
