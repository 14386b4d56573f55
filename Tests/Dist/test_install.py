"""make install / make uninstall into a DESTDIR: every file where a user's tools look for it,
the installed binary and plugin work, and uninstall leaves nothing behind."""
from __future__ import annotations

import os
import shutil
import unittest
from pathlib import Path

from distsupport import REPO, run, scratch, version

PREFIX = "/usr/local"
INSTALLED = [
    "bin/fetchd",
    "share/man/man1/fetchd.1",
    "share/bash-completion/completions/fetchd",
    "share/zsh/site-functions/_fetchd",
    "share/fish/vendor_completions.d/fetchd.fish",
    "share/nvim/site/pack/fetchd/start/fetchd/lua/fetchd/init.lua",
    "share/nvim/site/pack/fetchd/start/fetchd/plugin/fetchd.lua",
    "share/nvim/site/pack/fetchd/start/fetchd/doc/fetchd.txt",
    "share/nvim/site/pack/fetchd/start/fetchd/doc/tags",
    "share/doc/fetchd/protocol.md",
    "share/doc/fetchd/openrpc.json",
    "share/doc/fetchd/CHANGELOG.md",
    "share/doc/fetchd/LICENSE",
]


def make(target: str, destdir: str) -> None:
    done = run(["make", "--no-print-directory", "-C", str(REPO), target, f"DESTDIR={destdir}", f"PREFIX={PREFIX}"],
               timeout=900)
    assert done.returncode == 0, done.stderr.decode()


class InstallTests(unittest.TestCase):
    def test_install_then_uninstall(self) -> None:
        with scratch() as destdir:
            # Something of another package's in the same folders must survive uninstall.
            neighbour = Path(destdir + PREFIX) / "share/man/man1/other.1"
            neighbour.parent.mkdir(parents=True)
            neighbour.write_text(".TH OTHER 1\n")
            make("install", destdir)
            prefix = Path(destdir + PREFIX)
            for path in INSTALLED:
                self.assertTrue((prefix / path).is_file(), f"{path} not installed")
            binary = prefix / "bin/fetchd"
            self.assertTrue(os.access(binary, os.X_OK))
            self.assertEqual(run([str(binary), "--version"]).stdout.decode().strip(), version())
            self.assertIn("fetchd", (prefix / "share/bash-completion/completions/fetchd").read_text())
            page = run(["man", "-l", "-P", "cat", str(prefix / "share/man/man1/fetchd.1")],
                       env={**os.environ, "MANWIDTH": "80"})
            self.assertEqual(page.returncode, 0, page.stderr)
            self.assertIn(b"--store", page.stdout)
            self.assertIn("NSFetchedResultsController", (prefix / "share/doc/fetchd/openrpc.json").read_text())
            self.assertNvimFindsThePlugin(prefix)

            make("uninstall", destdir)
            left = sorted(str(p.relative_to(destdir)) for p in Path(destdir).rglob("*") if p.is_file())
            self.assertEqual(left, [f"{PREFIX[1:]}/share/man/man1/other.1"])
            self.assertFalse((prefix / "share/nvim").exists(), "uninstall left empty folders")

    def assertNvimFindsThePlugin(self, prefix: Path) -> None:
        if not shutil.which("nvim"):
            self.skipTest("no nvim")
        # Neovim's packpath has $XDG_DATA_DIRS/nvim/site: a start package there loads by itself.
        with scratch() as home:
            env = {**os.environ, "XDG_DATA_DIRS": str(prefix / "share"), "HOME": home}
            # Loaded by itself: its commands exist, and :help finds its page.
            probe = run(["nvim", "--headless", "-u", "NORC", "-i", "NONE", "-n", "-c",
                         "lua io.stdout:write(tostring(pcall(require, 'fetchd')), ' ', vim.fn.exists(':FetchdOpen'),"
                         " ' ', tostring(pcall(vim.cmd, 'help :FetchdOpen')))", "-c", "qa!"], env=env)
        self.assertEqual(probe.stdout.decode().strip(), "true 2 true", probe.stderr.decode())


if __name__ == "__main__":
    unittest.main()
