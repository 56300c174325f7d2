"""A host service using the Python SDK, for the primary-lost scenario (docs/deployment.md).

Records journeys through the SDK until the file named by STOP_FILE exists, then shuts the
recorder down and prints one JSON line: the SDK's counters, the event ids its calls returned, and
every exception that escaped an SDK call into this host (there must be none).
"""
import json
import os
import sys
import time

import jtrace

recorder = jtrace.create_recorder(
    os.environ["JTRACE_ENDPOINT"], os.environ["JTRACE_API_KEY"], "ha-python-host", "production",
    breaker_cooldown=float(os.environ.get("BREAKER_COOLDOWN_SECONDS", "30")), on_diagnostic=lambda diagnostic: None,
)
escaped = []
ids = []
wrong_results = 0
calls = 0
i = 0
while not os.path.exists(os.environ["STOP_FILE"]):
    i += 1
    order = {"id": f"ord-py-{i}", "total": i}
    try:
        journey = recorder.start_journey({"type": "order", "id": order["id"]})
        # A wrapper hands back what the host's function returned, whatever the delivery does.
        if journey.receive("receive-order", order, lambda o: o["total"] * 2) != i * 2:
            wrong_results += 1
        ids.append(journey.record("persisted", "persist-order"))
        ids.append(journey.finish())
        calls += 4
    except Exception as error:  # the SDK promises this never happens
        escaped.append(f"{type(error).__name__}: {error}")
    time.sleep(0.02)
settled = recorder.shutdown(timeout=float(os.environ.get("SHUTDOWN_SECONDS", "60")))
print(json.dumps({"counters": recorder.counters(), "ids": [x for x in ids if x], "escaped": escaped,
                  "wrongResults": wrong_results, "calls": calls, "settled": settled}))
sys.stdout.flush()
