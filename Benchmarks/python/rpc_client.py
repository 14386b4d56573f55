"""The benchmark's view of the real Python client (clients/python, imported from the source
tree so the tools stay stdlib only): NDJSON over a child process's stdio, results with the
notifications that came before them, and the failures the driver reports as
"unavailable" (ServerGone) or as errors (RpcError).

Timed calls use the client's fast path: the message is encoded before the clock starts, the
bodies are read undecoded until the response arrives, and decoding happens after it stops.
"""

import json
import os
import sys
import time

CLIENT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                      "clients", "python")
if CLIENT not in sys.path:
    sys.path.insert(0, CLIENT)

from fetchd import Client, ConnectionClosed, FetchdError, ProtocolViolation  # noqa: E402

METHOD_NOT_FOUND = -32601


class ServerGone(Exception):
    """The server exited, closed stdout, wrote something that is not JSON-RPC, or timed out."""


class RpcError(Exception):
    def __init__(self, method, error):
        self.method = method
        self.code = error.code
        self.error = error
        data = "" if error.data is None else " " + json.dumps(error.data)
        super().__init__("%s: %s %s%s" % (method, error.code, error.message, data))


def is_batch_response(body):
    """fetchd writes compact JSON: a batch's response is the only body that is an array."""
    return body[:1] == b"["


class RpcClient:
    def __init__(self, argv, stderr_path, timeout=300.0):
        self.stderr_path = stderr_path
        self.stderr_file = open(stderr_path, "wb")
        self.client = Client.attach(argv, framing="ndjson", stderr=self.stderr_file, timeout=timeout)
        self.notes = []
        self.client.add_listener(lambda method, params: self.notes.append({"method": method, "params": params}))

    @property
    def pid(self):
        return self.client.process.pid

    def request(self, method, params=None):
        """Sends one request; returns (result, notifications before it). Raises RpcError."""
        with self._failures(method):
            result = self.client.request(method, params)
        return result, self._take_notes()

    def batch(self, calls):
        """Sends [(method, params)] as one JSON-RPC batch; returns (results in call order,
        notifications). Raises RpcError for the first call that failed."""
        with self._failures(calls[0][0]):
            responses = self.client.send_batch(calls)
        return self._results(calls, responses), self._take_notes()

    def batch_timed(self, calls):
        """Like batch(), timing only the write and the reads: from writing the batch to having
        read its response, every notification before it; encoding and decoding stay outside.
        Returns (elapsed µs, results, notifications)."""
        with self._failures(calls[0][0]):
            ids, data = self.client.core.batch(calls)
            start = time.perf_counter_ns()
            self.client.write(data)
            bodies = self.client.read_bodies(is_batch_response)
            elapsed = (time.perf_counter_ns() - start) / 1000.0
            responses = self.client.settle(bodies, ids)
        return elapsed, self._results(calls, responses), self._take_notes()

    def echo_timed(self, calls):
        """batch_timed against a peer that echoes the batch back (`cat`): elapsed µs only,
        since what comes back is the request itself."""
        with self._failures(calls[0][0]):
            ids, data = self.client.core.batch(calls)
            start = time.perf_counter_ns()
            self.client.write(data)
            self.client.read_bodies(is_batch_response)
            elapsed = (time.perf_counter_ns() - start) / 1000.0
            self.client.core.forget(ids)
        return elapsed

    def pipelined_timed(self, calls):
        """Separate requests in one write, then every response: (elapsed µs, results)."""
        with self._failures(calls[0][0]):
            ids, data = self.client.core.pipeline(calls)
            start = time.perf_counter_ns()
            self.client.write(data)
            responses = self.client.wait(ids)
            elapsed = (time.perf_counter_ns() - start) / 1000.0
        self.notes.clear()
        return elapsed, self._results(calls, responses)

    def notify(self, method, params=None):
        with self._failures(method):
            self.client.notify(method, params)

    def close(self, wait=10.0):
        """Polite shutdown (shutdown request, exit notification, EOF); kills on timeout."""
        try:
            if self.client.process.poll() is None:
                try:
                    self.request("shutdown")
                    self.notify("exit")
                except (ServerGone, RpcError):
                    pass
            self.client.close(timeout=wait)
        finally:
            self.stderr_file.close()

    def stderr_tail(self, limit=300):
        try:
            with open(self.stderr_path, "rb") as f:
                text = f.read().decode(errors="replace").strip()
        except OSError:
            return ""
        return "; stderr: " + text[-limit:] if text else ""

    def _take_notes(self):
        notes, self.notes = self.notes, []
        return notes

    @staticmethod
    def _results(calls, responses):
        """The results of a batch's calls in call order; an error raises."""
        for (method, _), response in zip(calls, responses):
            if response.error is not None:
                raise RpcError(method, response.error)
        return [response.result for response in responses]

    def _failures(self, method):
        return _Failures(self, method)


class _Failures:
    """Turns the client's exceptions into the driver's: FetchdError -> RpcError, the rest of
    a broken conversation -> ServerGone (saying what the server wrote or why it is gone)."""

    def __init__(self, owner, method):
        self.owner, self.method = owner, method

    def __enter__(self):
        return self

    def __exit__(self, kind, error, trace):
        if error is None:
            return False
        owner = self.owner
        if isinstance(error, FetchdError):
            raise RpcError(self.method, error) from None
        if isinstance(error, ProtocolViolation):
            raise ServerGone("server wrote non-JSON output: %s" % str(error)[:160]) from None
        if isinstance(error, TimeoutError):
            raise ServerGone("no reply within %.0f s" % owner.client.timeout) from None
        if isinstance(error, ConnectionClosed):
            # A closed input: what the server wrote before leaving says more than the pipe.
            owner.client.timeout = 2.0
            try:
                owner.client.core.decode(owner.client.read_bodies(lambda body: True))
            except ProtocolViolation as violation:
                raise ServerGone("server wrote non-JSON output: %s" % str(violation)[:160]) from None
            except (ConnectionClosed, TimeoutError, OSError):
                pass
            try:
                code = owner.client.process.wait(5)
            except Exception:  # noqa: BLE001 - still running with its input closed
                owner.client.process.kill()
                code = owner.client.process.wait()
            raise ServerGone("server exited (code %s) without replying%s" % (code, owner.stderr_tail())) from None
        return False
