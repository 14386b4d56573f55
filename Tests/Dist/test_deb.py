"""The Debian package: what it holds, lintian's verdict, and a real install on this machine
(dpkg -i or apt-get install ./file), used as a user would, then removed."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import unittest
from pathlib import Path

from distsupport import DIST, check_session, is_root, run, scratch, session_messages, version, without_toolchain

SHIPPED = [
    "./usr/bin/fetchd",
    "./usr/share/man/man1/fetchd.1.gz",
    "./usr/share/bash-completion/completions/fetchd",
    "./usr/share/zsh/vendor-completions/_fetchd",
    "./usr/share/fish/vendor_completions.d/fetchd.fish",
    "./usr/share/nvim/site/pack/fetchd/start/fetchd/lua/fetchd/init.lua",
    "./usr/share/doc/fetchd/protocol.md",
    "./usr/share/doc/fetchd/openrpc.json",
    "./usr/share/doc/fetchd/copyright",
    "./usr/share/doc/fetchd/changelog.gz",
]


def package() -> Path:
    found = sorted(DIST.glob(f"fetchd_{version()}_*.deb"))
    assert len(found) == 1, f"expected one fetchd_{version()}_*.deb in {DIST}, found {found}"
    return found[0]


def installed() -> bool:
    return run(["dpkg-query", "-W", "-f=${Status}", "fetchd"]).stdout.endswith(b"installed")


class DebContentsTests(unittest.TestCase):
    def test_lists_the_files_make_install_installs(self) -> None:
        listing = run(["dpkg-deb", "--contents", str(package())]).stdout.decode()
        paths = [line.split()[-1] for line in listing.splitlines()]
        for path in SHIPPED:
            self.assertIn(path, paths)
        self.assertFalse([p for p in paths if "/test" in p or p.endswith(".swift")], paths)

    def test_control_depends_on_the_binary_libraries(self) -> None:
        field = run(["dpkg-deb", "--field", str(package()), "Depends"]).stdout.decode()
        for name in ("libc6", "libsqlite3-0", "libjansson4", "libpq5", "libstdc++6"):
            self.assertIn(name, field)
        self.assertNotIn("swift", field)
        self.assertEqual(run(["dpkg-deb", "--field", str(package()), "Version"]).stdout.decode().strip(), version())

    def test_lintian_reports_no_errors(self) -> None:
        if not shutil.which("lintian"):
            self.skipTest("no lintian")
        verdict = run(["lintian", "--fail-on", "error", str(package())], timeout=300)
        report = verdict.stdout.decode()
        sys.stderr.write(f"\nlintian: {report.strip() or 'nothing to report'}\n")
        self.assertEqual(verdict.returncode, 0, report)
        self.assertNotRegex(report, r"(?m)^E: ")

    def test_download_is_at_most_25_mb(self) -> None:
        self.assertLessEqual(package().stat().st_size, 25 * 1024 * 1024)


@unittest.skipUnless(is_root() and shutil.which("apt-get"), "installing a package needs root and apt")
class DebInstallTests(unittest.TestCase):
    def setUp(self) -> None:
        if installed():
            self.skipTest("a fetchd package is installed already; not replacing it")
        self.addCleanup(self.remove)

    def remove(self) -> None:
        if installed():
            run(["dpkg", "-r", "fetchd"], timeout=120)

    def test_dpkg_install_use_and_remove(self) -> None:
        done = run(["dpkg", "-i", str(package())], timeout=300)
        if done.returncode != 0:  # Depends not there yet: apt brings them, as a user would do
            done = run(["apt-get", "-f", "install", "-y", "-q"], timeout=600)
        self.assertEqual(done.returncode, 0, done.stderr.decode())
        self.assertTrue(installed())
        self.assertEqual(shutil.which("fetchd"), "/usr/bin/fetchd")
        self.assertEqual(run(["fetchd", "--version"]).stdout.decode().strip(), version())
        self.assertEqual(run(["man", "-w", "fetchd"]).stdout.decode().strip(), "/usr/share/man/man1/fetchd.1.gz")
        with scratch() as tmp:
            store = f"{tmp}/notes.sqlite"
            served = run(["fetchd"], input=session_messages(store))
            check_session(served.stdout, store)
            # The plugin loads from the system's packpath, with no configuration at all.
            if shutil.which("nvim"):
                probe = run(["nvim", "--headless", "-u", "NORC", "-i", "NONE", "-n", "-c",
                             "lua io.stdout:write(tostring(pcall(require, 'fetchd')), ' ',"
                             " vim.fn.exists(':FetchdOpen'), ' ', tostring(pcall(vim.cmd, 'help fetchd')))",
                             "-c", "qa!"], env={**os.environ, "HOME": tmp})
                self.assertEqual(probe.stdout.decode().strip(), "true 2 true", probe.stderr.decode())
        removed = run(["dpkg", "-r", "fetchd"], timeout=120)
        self.assertEqual(removed.returncode, 0, removed.stderr.decode())
        self.assertFalse(installed())
        self.assertFalse(Path("/usr/bin/fetchd").exists())

    def test_apt_install_to_a_watch_line(self) -> None:
        # As on a machine that never had Swift: every step runs with the toolchain hidden.
        with scratch() as tmp:
            store = f"{tmp}/notes.sqlite"
            start = time.monotonic()
            done = run(without_toolchain(["apt-get", "install", "-y", "-q", str(package())]), timeout=600,
                       env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
            self.assertEqual(done.returncode, 0, done.stderr.decode())
            check_session(run(without_toolchain(["fetchd"]), input=session_messages(store)).stdout, store)
            # watch runs like tail -f: its first line is the goal, then SIGTERM ends it (143).
            watch = subprocess.Popen(without_toolchain(["fetchd", "watch", "--store", store, "--entity", "Note",
                                                        "--sort", "title"]),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            try:
                line = watch.stdout.readline() if watch.stdout else b""
                elapsed = time.monotonic() - start
            finally:
                watch.terminate()
                _, err = watch.communicate(timeout=30)
            self.assertEqual(watch.returncode, 143, err.decode())
            first = json.loads(line)
            self.assertEqual(first["cycle"], 0)
            self.assertEqual(first["sections"][0]["objects"][0]["title"], "hello")
            sys.stderr.write(f"\napt-get install ./{package().name} to the first watch line: {elapsed:.2f} s\n")
            self.assertLess(elapsed, 60, "far over the 10 s goal")


if __name__ == "__main__":
    unittest.main()
