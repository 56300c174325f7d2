"""Failure modes against real local HTTP servers: down, slow past the timeout, 500, 429, a response
that never ends or is huge, a redirect; the retry rule, the breaker, the queue bound, and the
counters' sum after shutdown. The host's calls never wait on any of it."""

import socket
import threading
import time

import jtrace
from helpers import Receiver, accept_all, answer


def recorder_for(url, **options):
    diagnostics = []
    options.setdefault("request_timeout", 1.0)
    options.setdefault("flush_interval", 0.02)
    recorder = jtrace.create_recorder(endpoint=url, api_key="k", service_name="svc", environment="test",
                                      on_diagnostic=diagnostics.append, **options)
    return recorder, diagnostics


def record(recorder, count=1):
    journey = recorder.start_journey({"type": "order", "id": "o-1"})
    for index in range(count):
        journey.record("received", f"step-{index}", input={"n": index})
    return journey


def settled(counters):
    return counters["sent"] + counters["rejected"] + counters["dropped"] == counters["recorded"]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_server_down_host_never_waits_and_everything_is_counted():
    recorder, diagnostics = recorder_for(f"http://127.0.0.1:{free_port()}", breaker_threshold=2, breaker_cooldown=60)
    record(recorder, 5_000)  # capture only: no I/O on the host's thread
    assert recorder.flush(timeout=0.5) is False
    assert recorder.shutdown(timeout=0.2) is False
    counters = recorder.counters()
    assert counters["dropped_by_cause"]["shutdown"] == 5_000 and settled(counters)
    assert counters["breaker_opens"] == 1
    assert "breaker_opened" in [d.kind for d in diagnostics]


def test_slow_past_the_timeout_is_a_failed_request_then_resent():
    calls = []

    def slow_then_ok(handler, events):
        calls.append(len(events))
        if len(calls) == 1:
            time.sleep(1.5)
        accept_all(handler, events)

    receiver = Receiver(slow_then_ok)
    try:
        recorder, _ = recorder_for(receiver.url, request_timeout=0.3)
        record(recorder, 3)
        assert recorder.shutdown(timeout=5) is True
        counters = recorder.counters()
        assert counters["request_failures"] >= 1 and counters["sent"] == 3 and settled(counters)
    finally:
        receiver.close()


def test_500_is_resent_and_429_is_refused():
    state = {"n": 0}

    def flaky(handler, events):
        state["n"] += 1
        answer(handler, 500, {"error": {"code": "internal_error"}}) if state["n"] == 1 else accept_all(handler, events)

    receiver = Receiver(flaky)
    try:
        recorder, _ = recorder_for(receiver.url)
        record(recorder, 2)
        assert recorder.shutdown(timeout=5) is True
        counters = recorder.counters()
        assert counters["sent"] == 2 and counters["request_failures"] == 1 and settled(counters)
    finally:
        receiver.close()

    receiver = Receiver(lambda handler, events: answer(handler, 429, {"error": {"code": "rate_limited"}}, {"retry-after": "1"}))
    try:
        recorder, diagnostics = recorder_for(receiver.url)
        record(recorder, 2)
        recorder.shutdown(timeout=5)
        counters = recorder.counters()
        assert counters["dropped_by_cause"]["request_refused"] == 2 and settled(counters)
        assert receiver.requests == 1
        assert any(d.kind == "transport_error" and d.detail["code"] == "rate_limited" for d in diagnostics)
    finally:
        receiver.close()


def test_per_event_refusals_follow_the_retry_rule():
    seen = {}

    def verdicts(handler, events):
        results = []
        for event in events:
            seen[event["name"]] = seen.get(event["name"], 0) + 1
            if event["name"] == "bad":
                results.append({"status": "rejected", "error": {"httpStatus": 400, "code": "invalid_event"}})
            elif event["name"] == "busy":
                results.append({"status": "rejected", "error": {"httpStatus": 503, "code": "unavailable"}})
            else:
                results.append({"status": "accepted"})
        answer(handler, 200, {"data": {"results": results}})

    receiver = Receiver(verdicts)
    try:
        recorder, _ = recorder_for(receiver.url, resend_delay=0.001)
        journey = recorder.start_journey({"type": "order", "id": "o"})
        for name in ("ok", "bad", "busy"):
            journey.record("received", name)
        recorder.flush(timeout=5)
        recorder.shutdown(timeout=1)
        counters = recorder.counters()
        assert counters["sent"] == 1 and counters["rejected"] == 1
        assert counters["dropped_by_cause"]["retry_exhausted"] == 1 and seen["busy"] == 10 and seen["bad"] == 1
        assert settled(counters)
    finally:
        receiver.close()


def raw_server(respond):
    """A TCP server that answers each connection with ``respond(connection)``: for answers no HTTP library would send."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=_answer, args=(connection, respond, stop), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    return f"http://127.0.0.1:{listener.getsockname()[1]}", lambda: (stop.set(), listener.close())


def _answer(connection, respond, stop):
    try:
        connection.settimeout(5)
        data = b""
        while b"\r\n\r\n" not in data:
            data += connection.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        length = int([line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")][0])
        while len(body) < length:
            body += connection.recv(65536)
        respond(connection, stop)
    except OSError:
        pass
    finally:
        connection.close()


def test_a_response_that_never_ends_times_out():
    def trickle(connection, stop):
        connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n")
        while not stop.is_set():
            connection.sendall(b"1\r\n \r\n")
            time.sleep(0.05)

    url, close = raw_server(trickle)
    try:
        recorder, _ = recorder_for(url, request_timeout=0.5, breaker_threshold=100)
        record(recorder, 1)
        started = time.perf_counter()
        assert recorder.flush(timeout=1.2) is False
        assert recorder.shutdown(timeout=0.5) is False
        # Bounded by the deadlines (1.2 s + 0.5 s), not by the answer that never ends; generous for a loaded machine.
        assert time.perf_counter() - started < 15
        counters = recorder.counters()
        assert counters["request_failures"] >= 1 and counters["sent"] == 0 and settled(counters)
    finally:
        close()


def test_a_huge_response_is_not_read_past_the_cap():
    sent = {"bytes": 0}

    def huge(connection, stop):
        connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 3000000000\r\n\r\n")
        chunk = b"[" * 65536
        while not stop.is_set() and sent["bytes"] < 3_000_000_000:
            connection.sendall(chunk)
            sent["bytes"] += len(chunk)

    url, close = raw_server(huge)
    try:
        recorder, _ = recorder_for(url, request_timeout=5)
        record(recorder, 2)
        assert recorder.shutdown(timeout=5) is True
        counters = recorder.counters()
        # A 2xx without usable verdicts is not resent: counted sent and unconfirmed (protocol 8.4).
        assert counters["sent"] == 2 and counters["unconfirmed"] == 2 and settled(counters)
        assert sent["bytes"] < 64 * 1024 * 1024
    finally:
        close()


def test_redirects_are_not_followed():
    target = Receiver()
    try:
        redirecting = Receiver(lambda handler, events: answer(handler, 307, {}, {"location": f"{target.url}/v1/events/batch"}))
        try:
            recorder, _ = recorder_for(redirecting.url)
            record(recorder, 1)
            recorder.shutdown(timeout=5)
            counters = recorder.counters()
            assert target.requests == 0 and counters["dropped_by_cause"]["request_refused"] == 1 and settled(counters)
        finally:
            redirecting.close()
    finally:
        target.close()


def test_the_queue_keeps_the_newest_within_its_bounds():
    recorder, diagnostics = recorder_for(f"http://127.0.0.1:{free_port()}", max_queue_size=10, breaker_threshold=1, breaker_cooldown=60)
    record(recorder, 50)
    recorder.shutdown(timeout=0.1)
    counters = recorder.counters()
    assert counters["dropped_by_cause"]["queue_full"] >= 40 and settled(counters)
    assert any(d.kind == "dropped" and d.detail["cause"] == "queue_full" for d in diagnostics)


def test_events_after_shutdown_are_dropped_and_counted():
    receiver = Receiver()
    try:
        recorder, _ = recorder_for(receiver.url)
        journey = record(recorder, 1)
        assert recorder.shutdown(timeout=5) is True
        journey.record("received", "late")
        counters = recorder.counters()
        assert counters["sent"] == 1 and counters["dropped_by_cause"]["shutdown"] == 1 and settled(counters)
    finally:
        receiver.close()


def test_exit_flushes_through_atexit_within_its_timeout(tmp_path):
    import os
    import subprocess
    import sys

    receiver = Receiver()
    try:
        script = (
            "import jtrace\n"
            f"r = jtrace.create_recorder(endpoint={receiver.url!r}, api_key='k', service_name='s', environment='e', flush_interval=60)\n"
            "r.start_journey({'type': 'order', 'id': '1'}).finish()\n"
        )
        env = {**os.environ, "PYTHONPATH": os.path.join(os.path.dirname(__file__), "..", "src")}
        subprocess.run([sys.executable, "-c", script], env=env, check=True, timeout=60)
        assert [event["operation"] for event in receiver.events()] == ["completed"]
    finally:
        receiver.close()

    # A server that never answers cannot hold the exit past the atexit timeout.
    url, close = raw_server(lambda connection, stop: stop.wait(30))
    try:
        script = (
            "import jtrace\n"
            f"r = jtrace.create_recorder(endpoint={url!r}, api_key='k', service_name='s', environment='e', atexit_timeout=0.5)\n"
            "r.start_journey({'type': 'order', 'id': '1'}).finish()\n"
        )
        # The server would hold the request for 30 s; the exit waits the 0.5 s atexit timeout
        # (the bound leaves room for a loaded machine's interpreter start).
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", script], env=env, check=True, timeout=60)
        assert time.perf_counter() - started < 20
    finally:
        close()


def test_a_diagnostic_callback_may_read_counters_and_record():
    holder = {}
    seen = []

    def on_diagnostic(diagnostic):
        seen.append(holder["recorder"].counters()["recorded"])
        if diagnostic.kind == "transport_error" and len(seen) < 3:
            holder["journey"].record("received", "from-callback")

    recorder = jtrace.create_recorder(endpoint=f"http://127.0.0.1:{free_port()}", api_key="k", service_name="s", environment="e",
                                      flush_interval=0.02, request_timeout=0.5, on_diagnostic=on_diagnostic)
    holder["recorder"] = recorder
    holder["journey"] = record(recorder, 1)
    assert recorder.flush(timeout=1) is False
    assert recorder.shutdown(timeout=0.5) is False
    counters = recorder.counters()
    assert seen and counters["recorded"] >= 2 and settled(counters)


def test_the_queue_is_bounded_by_bytes_too():
    recorder, diagnostics = recorder_for(f"http://127.0.0.1:{free_port()}", max_queue_bytes=1024 * 1024,
                                         breaker_threshold=1, breaker_cooldown=60)
    journey = recorder.start_journey({"type": "order", "id": "big"})
    for index in range(12):
        # About 200 KB of envelope each: six of them fill the 1 MiB the queue may hold.
        journey.record("received", f"big-{index}", input={"a": "x" * 60_000, "b": "y" * 60_000, "c": "z" * 60_000})
    counters = recorder.counters()
    assert counters["queued"] + counters["in_flight"] <= 6
    assert counters["dropped_by_cause"]["queue_full"] >= 6
    recorder.shutdown(timeout=0.1)
    assert settled(recorder.counters())
