"""Progress of the long requests (protocol.md §2, "Progress."): a request sent with a
``workDoneToken`` makes fetchd write ``$/progress`` notifications (begin, reports, end) before
its answer. ``ProgressRoute`` hands the ones carrying its token to a callback as ``Progress``
values for the length of one call; ``TerminalBar`` is a callback drawing them on a terminal."""
from __future__ import annotations

import itertools
import shutil
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any, Callable, Dict, Iterator, Optional, TypeVar, Union

from .call import Call
from .protocol import ProtocolCore

T = TypeVar("T")

Token = Union[str, int]


@dataclass(frozen=True)
class Progress:
    """One step of a long call: ``kind`` is "begin" (once, first; ``title`` names the method),
    "report" (``message`` names the step; ``percentage`` 0-100 when the step can tell), or
    "end" (once, last; ``message`` "done in N ms" or "failed after N ms")."""

    token: Token
    kind: str
    title: Optional[str] = None
    message: Optional[str] = None
    percentage: Optional[int] = None

    @classmethod
    def from_wire(cls, token: Token, value: Dict[str, Any]) -> "Progress":
        percentage = value.get("percentage")
        return cls(token, str(value.get("kind")), value.get("title"), value.get("message"),
                   int(percentage) if isinstance(percentage, (int, float)) else None)


ProgressCallback = Callable[[Progress], None]
# What the client methods take as ``progress=``: a callback, True (a TerminalBar on stderr when
# it is a terminal), False (nothing) or None (the method's default).
ProgressArg = Union[ProgressCallback, bool, None]

# One sequence across the process, so no two calls in flight on any connection share a token.
_tokens = itertools.count(1)


def new_token() -> str:
    return f"py-{next(_tokens)}"


def _elapsed_ms(since: float) -> int:
    return int((time.monotonic() - since) * 1000)


class ProgressRoute:
    """Routes the ``$/progress`` notifications of one token to ``callback``, keeping the
    sequence coherent: at most one begin, nothing after the end, and an end even when the call
    fails without one (the connection closed, a part refused before the writing started).

    A call made of several requests (``batch_insert_in_parts``) calls ``begin`` itself: the
    server's begin is then dropped, the client adds its own reports with ``report``, and the
    server's end is re-timed to cover the whole call."""

    def __init__(self, callback: ProgressCallback, token: Optional[Token] = None) -> None:
        self.callback = callback
        self.token: Token = token if token is not None else new_token()
        self.began = False
        self.ended = False
        self._owned = False
        self._started = time.monotonic()

    @classmethod
    def for_arg(cls, progress: ProgressArg, default_bar: bool = False) -> "Optional[ProgressRoute]":
        """A route for a method's ``progress=`` argument, or None when there is nothing to
        report to (then no token is sent and fetchd times nothing)."""
        callback = resolve(progress, default_bar)
        return None if callback is None else cls(callback)

    def tag(self, call: "Call[T]") -> "Call[T]":
        """``call`` carrying this route's token as its ``workDoneToken`` (replacing any)."""
        return Call(call.method, {**(call.params or {}), "workDoneToken": self.token}, call.decode)

    # -- what the client itself reports ----------------------------------------------------
    def begin(self, title: str, message: Optional[str] = None) -> None:
        self._owned = True
        self._started = time.monotonic()
        self._emit(Progress(self.token, "begin", title, message, 0))

    def report(self, message: str, percentage: Optional[int] = None) -> None:
        self._emit(Progress(self.token, "report", None, message, percentage))

    def close(self, failed: bool) -> None:
        """After the call: an end it has not had yet (only once something began)."""
        if self.began and not self.ended:
            verb = "failed after" if failed else "done in"
            self._emit(Progress(self.token, "end", None, f"{verb} {_elapsed_ms(self._started)} ms"))

    # -- what fetchd reports ---------------------------------------------------------------
    def listen(self, method: str, params: Dict[str, Any]) -> None:
        """A notification listener (``ProtocolCore.add_listener``)."""
        if method != "$/progress" or params.get("token") != self.token:
            return
        value = params.get("value")
        if not isinstance(value, dict):
            return
        progress = Progress.from_wire(self.token, value)
        if progress.kind == "end" and self._owned:
            # fetchd timed its last request; the caller waited for the whole call.
            failed = (progress.message or "").startswith("failed")
            verb = "failed after" if failed else "done in"
            progress = Progress(self.token, "end", None, f"{verb} {_elapsed_ms(self._started)} ms")
        self._emit(progress)

    def _emit(self, progress: Progress) -> None:
        if self.ended or (progress.kind == "begin" and self.began):
            return
        if progress.kind != "begin" and not self.began:
            self._emit(Progress(self.token, "begin", None, None, 0))  # never a report before a begin
        self.began = True
        self.ended = progress.kind == "end"
        self.callback(progress)


@contextmanager
def attached(core: ProtocolCore, route: Optional[ProgressRoute]) -> Iterator[None]:
    """Listen for ``route``'s notifications while the block runs; whatever the outcome, the
    listener is removed and the callback has seen the end."""
    if route is None:
        yield
        return
    core.add_listener(route.listen)
    try:
        yield
    except BaseException:
        try:
            route.close(failed=True)
        except Exception:  # noqa: BLE001 - the call's own error is the one to raise
            pass
        raise
    else:
        route.close(failed=False)
    finally:
        core.remove_listener(route.listen)


def resolve(progress: ProgressArg, default_bar: bool = False) -> Optional[ProgressCallback]:
    """The callback a ``progress=`` argument stands for (None: report nothing)."""
    if progress is None:
        progress = default_bar
    if isinstance(progress, bool):
        return TerminalBar() if progress and is_terminal(sys.stderr) else None
    return progress


def is_terminal(stream: Optional[IO[str]]) -> bool:
    if stream is None:  # sys.stderr under pythonw
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except (ValueError, OSError):  # a closed stream
        return False


class TerminalBar:
    """A progress callback drawing one line, redrawn in place (``\\r``) and ended with a newline
    at the end: ``store/batchInsert: writing rows: 118784 of 300000 [#####.......]  39%``.
    Draws only when ``stream`` is a terminal, so logs, pipes and CI never see it; redraws at
    most every ``interval`` seconds within a step."""

    def __init__(self, stream: Optional[IO[str]] = None, *, width: Optional[int] = None,
                 interval: float = 0.1) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = is_terminal(self.stream)
        self.width = width
        self.interval = interval
        self._title = ""
        self._step = ""
        self._drawn = 0.0
        self._length = 0

    def __call__(self, progress: Progress) -> None:
        if not self.enabled:
            return
        if progress.kind == "begin":
            self._title, self._step, self._length = progress.title or "", "", 0
        step = (progress.message or "").split(":")[0]
        now = time.monotonic()
        if (progress.kind == "report" and step == self._step and progress.percentage != 100
                and now - self._drawn < self.interval):
            return  # a redraw per report would cost more than the work it shows
        self._step, self._drawn = step, now
        self._draw(self._line(progress), end=progress.kind == "end")

    def _line(self, progress: Progress) -> str:
        width = self.width if self.width is not None else shutil.get_terminal_size((80, 24)).columns
        text = f"{self._title}: {progress.message or ''}" if self._title else progress.message or ""
        if progress.percentage is not None and progress.kind != "end":
            percent = max(0, min(100, progress.percentage))
            cells = max(0, min(30, width - 1 - len(text) - 8))  # " [", "]", " 100%"
            if cells >= 5:
                filled = cells * percent // 100
                text += f" [{'#' * filled}{'.' * (cells - filled)}]"
            text += f" {percent:3d}%"
        return text[:max(1, width - 1)]  # the last column would wrap on some terminals

    def _draw(self, line: str, end: bool) -> None:
        # Spaces over what the previous, longer line left; no escape codes needed.
        padding = " " * max(0, self._length - len(line))
        self._length = len(line)
        self.stream.write("\r" + line + padding + ("\n" if end else ""))
        self.stream.flush()
        if end:
            self._length = 0


__all__ = ["Progress", "ProgressArg", "ProgressCallback", "ProgressRoute", "TerminalBar", "attached", "new_token",
           "resolve"]
