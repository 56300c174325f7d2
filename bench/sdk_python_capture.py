"""One round of the Python SDK's capture-cost measurement, run by bench/sdk-python.ts in a fresh
interpreter each time. Prints one JSON line: per-call medians and p99s of the bare and the wrapped
call. Sending is kept out of the figure: the endpoint refuses connections and the breaker stays
open after the first failure, so the events only queue, as the Node bench stubs its fetch."""

import json
import os
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "packages", "python", "src"))
import jtrace  # noqa: E402

CALLS = int(os.environ.get("BENCH_CALLS", "50000"))
WARMUP_CALLS = 10_000


def order_of_about_one_kb(seed):
    return {
        "orderId": f"ord_{seed}",
        "customer": {"name": "Ada Lovelace", "email": "ada@example.com", "phone": "+44 20 7946 0000",
                     "address": {"line1": "12 Analytical Row", "city": "London", "postcode": "N1 9GU"}},
        "items": [{"sku": f"SKU-{1000 + i}", "title": f"Item number {i} with a name", "quantity": i + 1, "unitPrice": 1250 + i} for i in range(8)],
        "notes": "Leave at the door; ring twice. " * 6,
        "createdAt": "2026-11-23T10:00:00.000Z",
    }


def time_calls(run, count):
    clock = time.perf_counter
    times = [0.0] * count
    for i in range(count):
        start = clock()
        run()
        times[i] = (clock() - start) * 1e6
    times.sort()
    return times


def percentile(values, p):
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


def main():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    recorder = jtrace.create_recorder(endpoint=f"http://127.0.0.1:{port}", api_key="k", service_name="bench", environment="production",
                                      max_queue_size=10_000_000, max_queue_bytes=4 * 1024**3, breaker_threshold=1,
                                      breaker_cooldown=3600, on_diagnostic=lambda d: None)
    journey = recorder.start_journey({"type": "order", "id": "ord_1"})
    payload_in = order_of_about_one_kb(1)
    payload_out = {**order_of_about_one_kb(2), "status": "normalized"}

    def bare(value):
        return payload_in if value["orderId"] == "" else payload_out

    time_calls(lambda: bare(payload_in), WARMUP_CALLS)
    time_calls(lambda: journey.transform("normalize-order", payload_in, bare), WARMUP_CALLS)
    bare_times = time_calls(lambda: bare(payload_in), CALLS)
    wrapped_times = time_calls(lambda: journey.transform("normalize-order", payload_in, bare), CALLS)
    recorder.shutdown(timeout=0)
    print(json.dumps({
        "calls": CALLS, "warmupCalls": WARMUP_CALLS, "python": sys.version.split()[0],
        "inputBytes": len(json.dumps(payload_in, separators=(",", ":")).encode()),
        "outputBytes": len(json.dumps(payload_out, separators=(",", ":")).encode()),
        "bareMedianUs": percentile(bare_times, 50), "bareP99Us": percentile(bare_times, 99),
        "wrappedMedianUs": percentile(wrapped_times, 50), "wrappedP99Us": percentile(wrapped_times, 99),
    }))


main()
