"""uvicorn's h11 HTTP protocol with a deadline for the request headers (against slowloris), and
a shutdown that answers the requests already on the wire.

uvicorn closes a keep-alive connection that stays idle between requests, but a client that has
started a request and sends its headers a byte at a time holds the connection, and a slot of the
server, for as long as it likes: 200 such sockets stayed open past 40 s. Here the headers of every
request must be complete within :attr:`HeaderTimeoutH11Protocol.header_timeout_s` of the
connection being opened or of the request's first byte; otherwise the connection is closed.
``sitar serve`` always uses this protocol (``--header-timeout``, default 10 s), whether or not
``httptools`` is installed.

On shutdown (SIGTERM), uvicorn closes every idle keep-alive connection at once; a request the
client had just sent on one was then reset without an answer (11-18 under a 16-client load). Here
an idle connection keeps reading for :data:`SHUTDOWN_LINGER_S`: a request that arrives is answered
(the batcher still runs until every connection is closed) and the connection closed after it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["HEADER_TIMEOUT_S", "SHUTDOWN_LINGER_S", "HeaderTimeoutH11Protocol"]

#: Default seconds a client has to send a request's headers.
HEADER_TIMEOUT_S = 10.0
#: Seconds an idle connection keeps reading after shutdown began, for a request already sent.
SHUTDOWN_LINGER_S = 0.5


class HeaderTimeoutH11Protocol(H11Protocol):
    """:class:`H11Protocol` that closes a connection whose request headers are late."""

    #: Set by ``sitar serve`` from ``ServeConfig.header_timeout_s`` (per process).
    header_timeout_s: float = HEADER_TIMEOUT_S

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._header_timer: asyncio.TimerHandle | None = None
        self._linger: asyncio.TimerHandle | None = None
        self._draining = False
        super().connection_made(transport)
        self._arm_header_timer()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._draining and self.cycle is not None and not self.cycle.response_complete:
            # A request that was on the wire when shutdown began: answer it, then close.
            self.cycle.keep_alive = False
            if self._linger is not None:
                self._linger.cancel()
                self._linger = None
        if self.conn.their_state is h11.IDLE:
            self._arm_header_timer()  # a request has started and its headers are not complete
        else:
            self._cancel_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        if self._linger is not None:
            self._linger.cancel()
            self._linger = None
        super().connection_lost(exc)

    def shutdown(self) -> None:
        if self.cycle is None or self.cycle.response_complete:
            self._draining = True
            self._linger = self.loop.call_later(SHUTDOWN_LINGER_S, self._close_idle)
        else:
            self.cycle.keep_alive = False

    def _close_idle(self) -> None:
        self._linger = None
        if (self.cycle is None or self.cycle.response_complete) and not self.transport.is_closing():
            super().shutdown()  # uvicorn's: ConnectionClosed, then close the transport

    def _arm_header_timer(self) -> None:
        # The deadline runs from the request's start, not from the last byte: a new byte does
        # not extend it.
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(self.header_timeout_s, self._headers_late)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_late(self, *_: Any) -> None:
        self._header_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()
