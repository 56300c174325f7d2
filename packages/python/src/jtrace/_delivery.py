"""Delivery through POST /v1/events/batch (event protocol 1.1, 8) on one background thread.

A queue bounded by events and characters drops the oldest; batches of at most 100; the client
retry rule of 8.4; a circuit breaker; flush and shutdown that never wait past their deadline.
Every recorded event ends in exactly one of sent, rejected or dropped. Responses are read up to
a byte cap and within the request deadline, and redirects are never followed (http.client).
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import threading
import time
import urllib.parse
import weakref
from collections import deque
from typing import Any, Callable, Deque, Dict, List, Optional, Tuple

from ._breaker import Breaker
from ._event import Built, Diagnostic

RESEND_WINDOW = 30.0
MAX_SENDS = 10
# A full batch's verdicts are a few tens of kilobytes; an answer past this is not a jtrace answer.
MAX_RESPONSE_BYTES = 1024 * 1024
DROP_CAUSES = ("queue_full", "retry_exhausted", "request_refused", "shutdown", "disabled", "capture_failed")


def empty_counters() -> Dict[str, Any]:
    return {
        "recorded": 0, "sent": 0, "rejected": 0, "dropped": 0,
        "dropped_by_cause": {cause: 0 for cause in DROP_CAUSES},
        "unconfirmed": 0, "queued": 0, "in_flight": 0, "requests": 0, "request_failures": 0,
        "resent": 0, "breaker_opens": 0,
    }


class _Pending:
    __slots__ = ("built", "sends", "first_refusal", "not_before")

    def __init__(self, built: Built) -> None:
        self.built = built
        self.sends = 0
        self.first_refusal: Optional[float] = None
        self.not_before = 0.0


class Delivery:
    def __init__(self, settings: Dict[str, Any], counters: Dict[str, Any], report: Callable[[Diagnostic], None]) -> None:
        self.s = settings
        self.counters = counters
        self.report = report
        # Re-entrant: diagnostics are reported under it, and a callback may read counters or record.
        self.lock = threading.RLock()
        self.wake = threading.Condition(self.lock)
        self.queue: Deque[_Pending] = deque()
        self.queued_chars = 0
        self.in_flight_chars = 0
        self.in_flight: List[_Pending] = []
        self.closed = False
        self.stopping = False
        self.flushing = 0
        self.sock: Optional[socket.socket] = None
        url = urllib.parse.urlsplit(settings["url"])
        self.https = url.scheme == "https"
        self.host = url.hostname or ""
        self.port = url.port or (443 if self.https else 80)
        self.path = url.path + ("?" + url.query if url.query else "")
        self.breaker = Breaker(settings["breaker_threshold"], settings["breaker_cooldown"], self._opened)
        self._start_thread()
        if hasattr(os, "register_at_fork"):
            me = weakref.ref(self)
            os.register_at_fork(after_in_child=lambda: _after_fork(me))

    def _start_thread(self) -> None:
        self.thread = threading.Thread(target=self._run, name="jtrace-sender", daemon=True)
        self.thread.start()

    def restart_in_child(self) -> None:
        """A forked worker (gunicorn --preload, multiprocessing) has no sender thread: it gets one,
        and starts from empty counters, since the parent's queued events stay the parent's to send."""
        # Re-entrant: diagnostics are reported under it, and a callback may read counters or record.
        self.lock = threading.RLock()
        self.wake = threading.Condition(self.lock)
        self.queue.clear()
        self.queued_chars = 0
        self.in_flight = []
        self.in_flight_chars = 0
        self.flushing = 0
        self.sock = None
        fresh = empty_counters()
        self.counters.clear()
        self.counters.update(fresh)
        if not self.closed and not self.stopping:
            self._start_thread()

    def _opened(self, failures: int) -> None:
        self.counters["breaker_opens"] += 1
        self.report(Diagnostic(
            "breaker_opened",
            f"{failures} requests to the jtrace server failed in a row; sending pauses for {self.s['breaker_cooldown']} s.",
            {"failures": failures, "cooldown": self.s["breaker_cooldown"]},
        ))

    # --- under the lock --------------------------------------------------------------------
    def drop(self, count: int, cause: str) -> None:
        if count <= 0:
            return
        self.counters["dropped"] += count
        self.counters["dropped_by_cause"][cause] += count
        self.report(Diagnostic("dropped", f"{count} event(s) dropped: {cause}.", {"count": count, "cause": cause}))

    def _trim(self) -> None:
        dropped = 0
        # The bytes bound counts the batch being sent too: it is held in memory as much as the queue.
        # A lone event larger than the bound is still sent when nothing else is held.
        while len(self.queue) > self.s["max_queue_size"] or (
            self.queued_chars + self.in_flight_chars > self.s["max_queue_bytes"] and len(self.queue) > (0 if self.in_flight else 1)
        ):
            self.queued_chars -= len(self.queue.popleft().built.json)
            dropped += 1
        self.drop(dropped, "queue_full")
        self.counters["queued"] = len(self.queue)

    def enqueue(self, built: Built) -> None:
        with self.lock:
            if self.closed or self.stopping:
                self.drop(1, "shutdown")
                return
            self.queue.append(_Pending(built))
            self.queued_chars += len(built.json)
            self._trim()
            # Once per full batch: waking the sender on every call would make hosts fight it for the GIL.
            if len(self.queue) % self.s["batch_size"] == 0:
                self.wake.notify_all()

    def _take(self, now: float) -> List[_Pending]:
        batch: List[_Pending] = []
        later: List[_Pending] = []
        while len(batch) < self.s["batch_size"] and self.queue:
            item = self.queue.popleft()
            (batch if item.not_before <= now else later).append(item)
        for item in batch:
            self.queued_chars -= len(item.built.json)
        self.queue.extendleft(reversed(later))
        self.counters["queued"] = len(self.queue)
        return batch

    def _requeue_front(self, items: List[_Pending]) -> None:
        self.queue.extendleft(reversed(items))
        self.queued_chars += sum(len(item.built.json) for item in items)
        self._trim()

    # --- the sender thread -----------------------------------------------------------------
    def _run(self) -> None:
        interval = self.s["flush_interval"]
        last = time.monotonic()
        while True:
            with self.lock:
                while True:
                    if self.closed:
                        return
                    now = time.monotonic()
                    due = self.flushing > 0 or len(self.queue) >= self.s["batch_size"] or now - last >= interval
                    if self.queue and due:
                        if self.breaker.can_send(now):
                            batch = self._take(now)
                            if batch:
                                break
                            wait = 0.02  # every waiting event sits out a resend delay
                        else:
                            wait = self.breaker.wait(now)
                    else:
                        wait = interval - (now - last) if self.queue else interval
                    self.wake.wait(min(max(wait, 0.005), interval))
                self.in_flight = batch
                self.in_flight_chars = sum(len(item.built.json) for item in batch)
                self.counters["in_flight"] = len(batch)
                self.counters["requests"] += 1
                for item in batch:
                    item.sends += 1
            status, body = self._exchange(batch)
            last = time.monotonic()
            with self.lock:
                if self.in_flight is batch:
                    self.in_flight = []
                    self.in_flight_chars = 0
                    self.counters["in_flight"] = 0
                    if self.closed:
                        self.drop(len(batch), "shutdown")
                    else:
                        self._settle(batch, status, body)
                self.wake.notify_all()

    def _exchange(self, batch: List[_Pending]) -> Tuple[int, Any]:
        """(status, parsed body); status 0 for a network failure or the deadline."""
        deadline = time.monotonic() + self.s["request_timeout"]
        body = ('{"events":[' + ",".join(item.built.json for item in batch) + "]}").encode("utf-8")
        conn: Optional[http.client.HTTPConnection] = None
        timer: Optional[threading.Timer] = None
        cut = threading.Event()
        try:
            kind = http.client.HTTPSConnection if self.https else http.client.HTTPConnection
            conn = kind(self.host, self.port, timeout=self.s["request_timeout"])
            conn.connect()
            with self.lock:
                self.sock = conn.sock
                if self.closed:
                    return 0, "shutdown"
            # The whole exchange has one deadline, also against an answer that trickles in byte by byte.
            timer = threading.Timer(max(0.0, deadline - time.monotonic()), self._cut, (conn.sock, cut))
            timer.daemon = True
            timer.start()
            conn.request("POST", self.path, body=body, headers={
                "content-type": "application/json", "authorization": f"Bearer {self.s['api_key']}",
            })
            _deadline(conn, deadline)
            response = conn.getresponse()
            chunks: List[bytes] = []
            size = 0
            while True:
                _deadline(conn, deadline)
                chunk = response.read1(65536) if hasattr(response, "read1") else response.read(65536)
                if not chunk:
                    break
                size += len(chunk)
                if size > MAX_RESPONSE_BYTES:
                    return response.status, None
                chunks.append(chunk)
            if cut.is_set():
                return 0, "timed out"
            try:
                return response.status, json.loads(b"".join(chunks))
            except ValueError:
                return response.status, None
        except Exception as error:
            return 0, "timed out" if cut.is_set() or isinstance(error, TimeoutError) else type(error).__name__
        finally:
            if timer is not None:
                timer.cancel()
            with self.lock:
                self.sock = None
            if conn is not None:
                try:
                    conn.close()
                except Exception:
                    pass

    def _settle(self, batch: List[_Pending], status: int, body: Any) -> None:
        now = time.monotonic()
        if status == 0 or status >= 500:
            self.counters["request_failures"] += 1
            self.breaker.failure(now)
            reason = f"HTTP {status}" if status else str(body or "network error")
            self.report(Diagnostic("transport_error", f"Sending {len(batch)} event(s) failed ({reason}); they will be resent.",
                                   {"status": status, "events": len(batch)}))
            self._requeue_front(batch)
            return
        self.breaker.success()
        if status >= 300:
            # A whole-request refusal (bad key, body refused) or a redirect is never resent (8.4).
            code = _error_code(body)
            self.report(Diagnostic("transport_error", f"The server refused the request (HTTP {status}{', ' + code if code else ''}); its events are dropped.",
                                   {"status": status, "code": code}))
            self.drop(len(batch), "request_refused")
            return
        results = _results(body)
        if results is None or len(results) < len(batch):
            self.counters["sent"] += len(batch)
            self.counters["unconfirmed"] += len(batch)
            return
        retry: List[_Pending] = []
        for item, verdict in zip(batch, results):
            self._settle_one(item, verdict, now, retry)
        if retry:
            self._requeue_front(retry)

    def _settle_one(self, item: _Pending, verdict: Any, now: float, retry: List[_Pending]) -> None:
        verdict = verdict if isinstance(verdict, dict) else {}
        if verdict.get("status") == "accepted":
            self.counters["sent"] += 1
            return
        error = verdict.get("error") if isinstance(verdict.get("error"), dict) else {}
        http_status = error.get("httpStatus") if isinstance(error.get("httpStatus"), int) else 0
        if http_status < 500:
            self.counters["rejected"] += 1
            code = error.get("code") if isinstance(error.get("code"), str) else "unknown"
            self.report(Diagnostic("event_rejected", f"The server refused an event ({code}, HTTP {http_status or 'none'}); it is not resent.",
                                   {"code": code, "httpStatus": http_status, "eventId": item.built.id, "name": item.built.name}))
            return
        if item.first_refusal is None:
            item.first_refusal = now
        if item.sends >= MAX_SENDS or now - item.first_refusal >= RESEND_WINDOW:
            self.drop(1, "retry_exhausted")
            return
        self.counters["resent"] += 1
        item.not_before = now + self.s["resend_delay"] * item.sends
        retry.append(item)

    @staticmethod
    def _cut(sock: Optional[socket.socket], cut: threading.Event) -> None:
        cut.set()
        try:
            if sock is not None:
                sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # --- host calls --------------------------------------------------------------------------
    def flush(self, timeout: float) -> bool:
        deadline = time.monotonic() + max(0.0, timeout)
        with self.lock:
            self.flushing += 1
            self.wake.notify_all()
            try:
                while self.queue or self.in_flight:
                    left = deadline - time.monotonic()
                    if left <= 0 or self.closed:
                        return False
                    self.wake.wait(min(left, 0.05))
                return True
            finally:
                self.flushing -= 1

    def shutdown(self, timeout: float) -> bool:
        with self.lock:
            if self.closed:
                return not self.queue and not self.in_flight
            self.stopping = True
        drained = self.flush(timeout)
        with self.lock:
            self.closed = True
            if self.sock is not None:
                try:
                    self.sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            # Events of a request still under way are counted now; its late answer is ignored.
            self.drop(len(self.in_flight), "shutdown")
            self.in_flight = []
            self.in_flight_chars = 0
            self.counters["in_flight"] = 0
            self.drop(len(self.queue), "shutdown")
            self.queue.clear()
            self.queued_chars = 0
            self.counters["queued"] = 0
            self.wake.notify_all()
        return drained


def _after_fork(ref: "weakref.ref[Delivery]") -> None:
    delivery = ref()
    if delivery is not None:
        try:
            delivery.restart_in_child()
        except Exception:
            pass


def _deadline(conn: http.client.HTTPConnection, deadline: float) -> None:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("request deadline")
    if conn.sock is not None:
        conn.sock.settimeout(left)


def _error_code(body: Any) -> Optional[str]:
    error = body.get("error") if isinstance(body, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code if isinstance(code, str) else None


def _results(body: Any) -> Optional[List[Any]]:
    data = body.get("data") if isinstance(body, dict) else None
    results = data.get("results") if isinstance(data, dict) else None
    return results if isinstance(results, list) else None
