"""Where Client.spawn() finds fetchd (fetchd.locate) and the wheel's ``fetchd`` command
(fetchd.__main__), with a stand-in for the bundled binary: no real server needed."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fetchd.locate as locate
from fetchd import find_fetchd


def executable(path: Path, body: str = "exit 0") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def outside(tmp_path, monkeypatch):
    """No FETCHD, no repository build (the installed package may sit inside the checkout), a
    PATH holding only tmp_path/path, and no bundled binary until a test makes one."""
    monkeypatch.delenv("FETCHD", raising=False)
    monkeypatch.setattr(locate, "build_outputs", lambda starts=None: [])
    monkeypatch.setattr(locate, "BUNDLED", tmp_path / "pkg" / "bin" / "fetchd")
    (tmp_path / "path").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "path"))
    return tmp_path


def test_the_bundled_binary_comes_before_the_path(outside):
    executable(outside / "path" / "fetchd")
    bundled = executable(outside / "pkg" / "bin" / "fetchd")
    assert find_fetchd() == str(bundled)


def test_explicit_fetchd_variable_and_repository_build_come_before_the_bundled_binary(outside, monkeypatch):
    executable(outside / "pkg" / "bin" / "fetchd")
    assert find_fetchd("/some/fetchd") == "/some/fetchd"
    monkeypatch.setenv("FETCHD", "/env/fetchd")
    assert find_fetchd() == "/env/fetchd"
    monkeypatch.delenv("FETCHD")
    built = executable(outside / "repo" / ".build" / "debug" / "fetchd")
    monkeypatch.setattr(locate, "build_outputs", lambda starts=None: [built])
    assert find_fetchd() == str(built)


def test_without_bundled_binary_the_path_and_then_a_helpful_error(outside):
    on_path = executable(outside / "path" / "fetchd")
    assert find_fetchd() == str(on_path)
    on_path.unlink()
    with pytest.raises(FileNotFoundError, match="pip install the fetchd wheel"):
        find_fetchd()


def run_command(bundled: Path, *args: str) -> subprocess.CompletedProcess:
    """The console command's main() with BUNDLED pointing at ``bundled``."""
    code = ("import pathlib, sys; import fetchd.locate as l; l.BUNDLED = pathlib.Path(sys.argv[1]); "
            "sys.argv[1:2] = []; from fetchd.__main__ import main; main()")
    return subprocess.run([sys.executable, "-c", code, str(bundled), *args], capture_output=True, text=True,
                          env={**os.environ, "PATH": "/nonexistent"})


def test_the_fetchd_command_execs_the_bundled_binary_with_its_arguments(tmp_path):
    bundled = executable(tmp_path / "bin" / "fetchd", 'echo "bundled $*"; exit 3')
    done = run_command(bundled, "--version", "x y")
    assert (done.returncode, done.stdout) == (3, "bundled --version x y\n")


def test_the_fetchd_command_of_a_pure_install_says_what_to_install(tmp_path):
    done = run_command(tmp_path / "missing" / "fetchd", "--version")
    assert done.returncode == 127 and "install the fetchd wheel" in done.stderr
