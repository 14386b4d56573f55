#!/usr/bin/env python3
"""Runs every fenced code block of the README (or of the Markdown files named) against one fetchd
binary (scripts/test-readme.sh).

Blocks run in the README's order, each language in its own folder of one scratch directory
(removed in every outcome), so a block may use the files an earlier block of its language
made, as a reader following along would:
  sh/bash   bash, with the binary first on the PATH as `fetchd` and in $FETCHD
            (`.build/release/fetchd` in a block is replaced by the binary);
  python    a venv's python with the checkout's clients/python importable;
  js        node, the block saved as a .mjs beside node_modules/fetchd-client -> clients/js;
  lua       nvim --headless: the block as init.lua, then the README's first `:FetchdOpen ...`
            on a seeded store (Tests/Readme/nvim_harness.lua);
  json      parsed; a model (it has "entities") is opened with `fetchd exec /dev/null --model`.
A ```text (or unlabelled) block right after a runnable block is that block's expected stdout
and is compared, not run. A block passes when it exits 0, prints its expected output (when it
has one) and writes no stderr line containing "warning" or "error".
An HTML comment right before a block changes that:
  <!-- readme-test: skip (REASON) -->   not run; reported by name with the reason
  <!-- readme-test: exit N -->          must exit N; stderr may hold warnings and errors
"""

import difflib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HARNESS = os.path.join(REPO, "Tests", "Readme", "nvim_harness.lua")
TIMEOUT = 60  # seconds per block; a hung block is killed with its whole process group
SHELLS = {"sh", "bash", "shell"}
OUTPUT = {"", "text", "console", "output"}
DIRECTIVE = re.compile(r"^<!--\s*readme-test:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(```+|~~~+)\s*([\w+-]*)")


class Block:
    def __init__(self, line, lang, text, directive, section, source="README.md"):
        self.source = source
        self.line, self.lang, self.text, self.directive, self.section = line, lang, text, directive, section
        self.expected = None  # the stdout a following output block shows

    def name(self):
        return "%s:%d (%s, %s)" % (self.source, self.line, self.lang or "text", self.section)


def parse(markdown, source="README.md"):
    """The fenced blocks, each with the directive right before it and its expected output."""
    lines = markdown.splitlines()
    blocks, section, directive, i = [], "top", None, 0
    last_end = None  # (block, line index of its closing fence)
    while i < len(lines):
        text = lines[i]
        if text.startswith("#"):
            section = text.lstrip("#").strip()
        m = DIRECTIVE.match(text)
        if m:
            directive = m.group(1)
            i += 1
            continue
        fence = FENCE.match(text)
        if not fence:
            if text.strip():
                directive = None  # a directive applies to the very next block only
            i += 1
            continue
        marker, lang = fence.group(1), fence.group(2).lower()
        start, body = i, []
        i += 1
        while i < len(lines) and not lines[i].startswith(marker):
            body.append(lines[i])
            i += 1
        block = Block(start + 1, lang, "\n".join(body) + "\n", directive, section, source)
        directive = None
        previous = last_end[0] if last_end and last_end[1] == start - 1 else None
        if lang in OUTPUT and previous is not None and previous.lang not in OUTPUT:
            previous.expected = block.text
        else:
            blocks.append(block)
        last_end = (block, i)
        i += 1
    return blocks


class Runner:
    def __init__(self, binary, scratch):
        self.binary, self.scratch = binary, scratch
        bindir = os.path.join(scratch, "bin")
        os.makedirs(bindir)
        os.symlink(binary, os.path.join(bindir, "fetchd"))
        self.env = dict(os.environ, FETCHD=binary, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
        self.env.pop("PYTHONPATH", None)
        self.interpreter = None
        self.open_args = None  # the README's :FetchdOpen arguments, for the lua blocks

    def folder(self, name):
        path = os.path.join(self.scratch, name)
        os.makedirs(path, exist_ok=True)
        return path

    def run(self, argv, cwd, env=None):
        """(exit code, stdout, stderr); the process group is ended afterwards in every case, so
        a background job a block left behind (a `watch &`) cannot outlive it."""
        try:
            proc = subprocess.Popen(argv, cwd=cwd, env=env or self.env, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        except FileNotFoundError:
            return 127, "", "readme-test: error: %s is not installed" % argv[0]
        try:
            out, err = proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            err += b"\nreadme-test: killed after %d s" % TIMEOUT
            return 124, out.decode(errors="replace"), err.decode(errors="replace")
        finally:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")

    def python_interpreter(self):
        """The venv scripts/test-python.sh makes, when there is one; else a venv of our own
        with clients/python installed. The checkout's client goes first on the path either way,
        so the README is checked against the client it documents, not an older install."""
        if self.interpreter:
            return self.interpreter
        shared = os.path.join(REPO, ".build", "python-venv", "bin", "python")
        if os.access(shared, os.X_OK):
            self.interpreter = shared
        else:
            venv = os.path.join(self.scratch, "venv")
            subprocess.run([sys.executable, "-m", "venv", venv], check=True)
            self.interpreter = os.path.join(venv, "bin", "python")
            subprocess.run([self.interpreter, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                            os.path.join(REPO, "clients", "python")], check=True)
        return self.interpreter

    def sh(self, block):
        cwd = self.folder("sh")
        script = block.text.replace(".build/release/fetchd", self.binary)
        return self.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd)

    def python(self, block):
        cwd = self.folder("python")
        path = os.path.join(cwd, "block%d.py" % block.line)
        with open(path, "w") as f:
            f.write(block.text)
        env = dict(self.env, PYTHONPATH=os.path.join(REPO, "clients", "python"))
        return self.run([self.python_interpreter(), path], cwd, env)

    def js(self, block):
        cwd = self.folder("js")
        modules = os.path.join(cwd, "node_modules")
        if not os.path.exists(modules):
            os.makedirs(modules)  # what `npm install ./clients/js` makes, without npm
            os.symlink(os.path.join(REPO, "clients", "js"), os.path.join(modules, "fetchd-client"))
        path = os.path.join(cwd, "block%d.mjs" % block.line)
        with open(path, "w") as f:
            f.write(block.text)
        return self.run(["node", path], cwd)

    def lua(self, block):
        if not shutil.which("nvim"):
            return None, "nvim is not installed"
        if not self.open_args:
            return 1, "", "readme-test: the README shows no `:FetchdOpen ...` for its lua block"
        cwd = self.folder("lua")
        # The store :FetchdOpen shows: the shell quick start's model and one note.
        with open(os.path.join(cwd, "model.json"), "w") as f:
            json.dump({"entities": [{"name": "Note", "attributes": {
                "title": {"type": "string"}, "updatedAt": {"type": "date", "indexed": True}}}]}, f)
        seed = ('{"jsonrpc":"2.0","id":1,"method":"context/insert","params":{"context":"main","entity":"Note",'
                '"values":{"title":"hello","updatedAt":"2026-11-23T09:00:00Z"}}}\n'
                '{"jsonrpc":"2.0","id":2,"method":"context/save","params":{"context":"main"}}\n')
        seeded = subprocess.run([self.binary, "exec", "-", "--store", "notes.db", "--model", "model.json"],
                                cwd=cwd, input=seed.encode(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if seeded.returncode != 0:
            return 1, "", "readme-test: seeding notes.db failed: " + seeded.stderr.decode(errors="replace")
        path = os.path.join(cwd, "init%d.lua" % block.line)
        with open(path, "w") as f:
            f.write(block.text)
        env = dict(self.env, READMETEST_INIT=path, READMETEST_OPEN=self.open_args, READMETEST_EXPECT="hello")
        return self.run(["nvim", "--headless", "-u", "NONE", "-i", "NONE", "-n",
                         "--cmd", "set runtimepath^=" + os.path.join(REPO, "clients", "nvim"),
                         # -u NONE loads no plugin files: load the plugin's as a user's nvim does.
                         "--cmd", "runtime! plugin/fetchd.lua",
                         "-c", "luafile " + HARNESS], cwd, env)

    def json(self, block):
        try:
            value = json.loads(block.text)
        except ValueError as error:
            return 1, "", "readme-test: not JSON: %s" % error
        if not (isinstance(value, dict) and "entities" in value):
            return 0, "", ""
        cwd = self.folder("json")
        path = os.path.join(cwd, "model%d.json" % block.line)
        with open(path, "w") as f:
            f.write(block.text)
        return self.run([self.binary, "exec", os.devnull, "--model", path], cwd)


def stderr_problems(err):
    return [line for line in err.splitlines() if re.search(r"warning|error", line, re.IGNORECASE)]


def check(runner, block):
    """None when the block passes, else what went wrong."""
    lang = "sh" if block.lang in SHELLS else block.lang
    handler = {"sh": runner.sh, "python": runner.python, "py": runner.python, "js": runner.js,
               "javascript": runner.js, "lua": runner.lua, "json": runner.json}.get(lang)
    if handler is None:
        return "no runner for ```%s blocks: mark it <!-- readme-test: skip (why) --> or use a known language" % lang
    want_exit = 0
    if block.directive and block.directive.startswith("exit"):
        want_exit = int(block.directive.split()[1])
    code, out, err = handler(block)
    if code is None:
        return "not run: %s" % out
    problems = []
    if code != want_exit:
        problems.append("exit %d, expected %d" % (code, want_exit))
    if want_exit == 0 and stderr_problems(err):
        problems.append("stderr has warnings or errors")
    if block.expected is not None and out.rstrip("\n") != block.expected.rstrip("\n"):
        diff = difflib.unified_diff(block.expected.rstrip("\n").splitlines(), out.rstrip("\n").splitlines(),
                                    "README (expected)", "actual", lineterm="")
        problems.append("stdout differs from the output shown:\n    " + "\n    ".join(diff))
    if code != want_exit and block.expected is None and out.strip():
        problems.append("stdout:\n    " + "\n    ".join(out.strip().splitlines()[-10:]))
    if problems and err.strip():
        problems.append("stderr:\n    " + "\n    ".join(err.strip().splitlines()[-15:]))
    return "; ".join(problems) if problems else None


def check_file(binary, path):
    """(passed, failed, skipped) for one Markdown file, in a scratch directory of its own."""
    with open(path, encoding="utf-8") as f:
        markdown = f.read()
    blocks = parse(markdown, os.path.relpath(path, REPO) if path.startswith(REPO) else path)
    scratch = tempfile.mkdtemp(prefix="fetchd-readme.")
    failed = skipped = passed = 0
    try:
        runner = Runner(binary, scratch)
        opened = re.search(r"`:FetchdOpen ([^`]+)`", markdown)
        runner.open_args = opened.group(1) if opened else None
        for block in blocks:
            if block.lang in OUTPUT:
                continue  # prose shown as a block, not after a command: nothing to run
            if block.directive and block.directive.startswith("skip"):
                skipped += 1
                print("SKIP %s: %s" % (block.name(), block.directive[4:].strip(" ()") or "marked skip"))
                continue
            problem = check(runner, block)
            if problem is None:
                passed += 1
                print("ok   %s" % block.name())
            elif problem.startswith("not run:"):
                skipped += 1
                print("SKIP %s: %s" % (block.name(), problem))
            else:
                failed += 1
                print("FAIL %s: %s" % (block.name(), problem))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return passed, failed, skipped


def main(argv):
    if len(argv) < 2:
        print("usage: readme_test.py FETCHD [FILE.md ...]  (default: README.md)", file=sys.stderr)
        return 64
    binary = os.path.abspath(argv[1])
    files = [os.path.abspath(p) for p in argv[2:]] or [os.path.join(REPO, "README.md")]
    if not os.access(binary, os.X_OK):
        print("readme-test: no fetchd binary at %s" % binary, file=sys.stderr)
        return 1
    # SIGTERM ends the run like Ctrl-C does, so the scratch directory goes in every outcome.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    totals = [0, 0, 0]
    for path in files:
        for i, n in enumerate(check_file(binary, path)):
            totals[i] += n
    print("readme-test: %d passed, %d failed, %d skipped (%s)" % (totals[0], totals[1], totals[2], binary))
    return 1 if totals[1] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
