"""A minimal NDJSON JSON-RPC 2.0 client for a child process's stdio (stdlib only).

Responses are matched by id; notifications that arrive before a response are returned with it,
since fetchd writes a cycle's notifications before the response that closed it.
"""

import json
import os
import select
import subprocess
import time

METHOD_NOT_FOUND = -32601


class ServerGone(Exception):
    """The server exited, closed stdout, wrote something that is not JSON-RPC, or timed out."""


class RpcError(Exception):
    def __init__(self, method, error):
        self.method = method
        self.code = error.get("code")
        self.error = error
        super().__init__("%s: %s %s%s" % (method, self.code, error.get("message", ""),
                                         " " + json.dumps(error["data"]) if "data" in error else ""))


class RpcClient:
    def __init__(self, argv, stderr_path, timeout=300.0):
        self.stderr_file = open(stderr_path, "wb")
        self.stderr_path = stderr_path
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr_file, bufsize=0)
        self.out_fd = self.proc.stdout.fileno()
        self.buffer = bytearray()
        self.pos = 0
        self.next_id = 1
        self.timeout = timeout

    @property
    def pid(self):
        return self.proc.pid

    def request(self, method, params=None):
        """Sends one request; returns (result, notifications before it). Raises RpcError."""
        rid = self._take_id()
        self.send_line(self._message(rid, method, params))
        reply, notes = self.read_until(lambda m: isinstance(m, dict) and m.get("id") == rid)
        if "error" in reply:
            raise RpcError(method, reply["error"])
        return reply.get("result"), notes

    def batch(self, calls):
        """Sends [(method, params)] as one JSON-RPC batch; returns (results in call order,
        notifications). Raises RpcError for the first call that failed."""
        ids = [self._take_id() for _ in calls]
        self.send_line("[" + ",".join(self._message(i, m, p) for i, (m, p) in zip(ids, calls)) + "]")
        reply, notes = self.read_until(lambda m: isinstance(m, list))
        return self._results(ids, calls, reply), notes

    def batch_timed(self, calls):
        """Like batch(), timing only the write and the reads: from writing the batch to having
        read its response (the only line that is a JSON array), every notification before it;
        encoding and parsing stay outside. Returns (elapsed µs, results, notifications)."""
        ids = [self._take_id() for _ in calls]
        line = ("[" + ",".join(self._message(i, m, p) for i, (m, p) in zip(ids, calls)) + "]\n").encode()
        raw_notes = []
        start = time.perf_counter_ns()
        self._write(line)
        while True:
            raw = self._read_line()
            if raw.lstrip()[:1] == b"[":
                break
            raw_notes.append(raw)
        elapsed = (time.perf_counter_ns() - start) / 1000.0
        notes = [self._parse(r) for r in raw_notes]
        return elapsed, self._results(ids, calls, self._parse(raw)), notes

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send_line(json.dumps(msg, separators=(",", ":")))

    def send_line(self, text):
        self._write(text.encode() + b"\n")

    def _write(self, data):
        try:
            self.proc.stdin.write(data)
        except (BrokenPipeError, ValueError):
            # The server is gone; what it wrote before leaving says more than the broken pipe.
            saved, self.timeout = self.timeout, 2.0
            try:
                self._read_message()
            finally:
                self.timeout = saved
            raise ServerGone("server closed its stdin (exit code %s)%s" % (self.proc.poll(), self.stderr_tail()))

    def read_until(self, is_reply):
        notes = []
        while True:
            msg = self._read_message()
            if isinstance(msg, dict) and "method" in msg and "id" not in msg:
                notes.append(msg)
            elif is_reply(msg):
                return msg, notes
            else:
                raise ServerGone("unexpected message: %s" % json.dumps(msg)[:200])

    def close(self, wait=10.0):
        """Polite shutdown (shutdown request, exit notification, EOF); kills on timeout."""
        try:
            if self.proc.poll() is None:
                try:
                    self.request("shutdown")
                    self.notify("exit")
                except (ServerGone, RpcError):
                    pass
                self.proc.stdin.close()
                self.proc.wait(timeout=wait)
        except (subprocess.TimeoutExpired, BrokenPipeError, OSError):
            self.proc.kill()
            self.proc.wait()
        finally:
            self.proc.stdout.close()
            if not self.proc.stdin.closed:
                try:
                    self.proc.stdin.close()
                except BrokenPipeError:
                    pass
            self.stderr_file.close()

    def stderr_tail(self, limit=300):
        try:
            with open(self.stderr_path, "rb") as f:
                text = f.read().decode(errors="replace").strip()
        except OSError:
            return ""
        return "; stderr: " + text[-limit:] if text else ""

    def _take_id(self):
        rid = self.next_id
        self.next_id += 1
        return rid

    @staticmethod
    def _results(ids, calls, reply):
        """The results of a batch's calls in call order; a missing reply or an error raises."""
        by_id = {r.get("id"): r for r in reply}
        results = []
        for rid, (method, _) in zip(ids, calls):
            r = by_id.get(rid)
            if r is None:
                raise ServerGone("batch response has no reply for %s (id %d)" % (method, rid))
            if "error" in r:
                raise RpcError(method, r["error"])
            results.append(r.get("result"))
        return results

    @staticmethod
    def _message(rid, method, params):
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        return json.dumps(msg, separators=(",", ":"))

    def _read_message(self):
        return self._parse(self._read_line())

    def _read_line(self):
        # A read position instead of re-slicing: a 10k-change cycle is thousands of lines in
        # one buffer, and slicing per line would copy it quadratically.
        end = self.buffer.find(b"\n", self.pos)
        while end < 0:
            if self.pos:
                del self.buffer[:self.pos]
                self.pos = 0
            ready, _, _ = select.select([self.out_fd], [], [], self.timeout)
            if not ready:
                raise ServerGone("no reply within %.0f s" % self.timeout)
            chunk = os.read(self.out_fd, 1 << 20)
            if not chunk:
                self.proc.wait()
                raise ServerGone("server exited (code %s) without replying%s"
                                 % (self.proc.returncode, self.stderr_tail()))
            searched = len(self.buffer)
            self.buffer += chunk
            end = self.buffer.find(b"\n", searched)
        line = bytes(self.buffer[self.pos:end])
        self.pos = end + 1
        return line

    @staticmethod
    def _parse(line):
        try:
            return json.loads(line)
        except ValueError:
            raise ServerGone("server wrote non-JSON output: %r" % line[:120])
