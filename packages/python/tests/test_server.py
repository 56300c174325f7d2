"""Against the real server: hostile values fitted by the SDK are all accepted by the dry run, and
a recorded journey reads back through the API."""

import random
import time
import urllib.parse

import pytest

import jtrace
from helpers import API_KEY, CONFORMANCE_KEY, SERVER_URL, Receiver, dry_run, get_json

pytestmark = pytest.mark.server
PIECES = ["a", "é", "😀", "\x00", "\ud800", "\udfff", "\r\n", "Authorization: Bearer abcDEF123456", "password", "[*]", " "]


def hostile(rng, depth=0):
    roll = rng.random()
    if depth > 6 or roll < 0.3:
        choice = rng.randrange(7)
        if choice == 0:
            return "".join(rng.choice(PIECES) for _ in range(rng.randrange(20)))
        if choice == 1:
            return rng.choice(PIECES) * rng.choice([1, 1000, 70_000])
        if choice == 2:
            return rng.choice([0, -1, 2**53, 2**64, 1e308, float("inf"), float("nan"), True, None])
        if choice == 3:
            return "k" * rng.choice([10, 129, 600])
        return rng.random()
    if roll < 0.65:
        return {rng.choice(PIECES) * rng.randrange(1, 200): hostile(rng, depth + 1) for _ in range(rng.randrange(1, 4))}
    if roll < 0.7:
        return [hostile(rng, depth + 1)] * rng.choice([1, 1200])
    if roll < 0.72:
        nested = hostile(rng, 7)
        for _ in range(rng.choice([31, 40])):
            nested = {"n": nested}
        return nested
    return [hostile(rng, depth + 1) for _ in range(rng.randrange(1, 4))]


def test_fitted_values_are_accepted_by_the_dry_run():
    rng = random.Random(2026)
    receiver = Receiver()
    try:
        recorder = jtrace.create_recorder(endpoint=receiver.url, api_key="stub", service_name="svc\x00" * 40,
                                          environment="conformance", on_diagnostic=lambda d: None, max_event_bytes=65_536)
        for index in range(60):
            entity = {"type": rng.choice(PIECES) * rng.randrange(1, 300), "id": (rng.choice(PIECES) * rng.randrange(1, 600))[:512]}
            journey = recorder.start_journey(entity, label=rng.choice(PIECES) * rng.randrange(0, 300))
            aliases = {rng.choice(PIECES) * rng.randrange(1, 200): rng.choice(PIECES) * rng.randrange(1, 700) for _ in range(3)}
            journey.record(rng.choice(["received", "transformed", "failed"]), rng.choice(PIECES) * rng.randrange(0, 400),
                           input=hostile(rng), output=hostile(rng), metadata=hostile(rng), aliases=aliases,
                           displayable_aliases=list(aliases), error=rng.choice([hostile(rng), ValueError("x" * 9000)]),
                           message_id="m" * 300, duration_ms=rng.choice([-5, 1e12, 3.7]))
        assert recorder.shutdown(timeout=20) is True
    finally:
        receiver.close()
    results = [result for batch in receiver.batches for result in dry_run(CONFORMANCE_KEY, batch)]
    assert len(results) == 60
    refused = [result.get("error") for result in results if result["status"] != "accepted"]
    assert refused == []


def test_a_journey_reads_back_through_the_api():
    entity_id = f"ord_py_{time.time_ns()}"
    with jtrace.create_recorder(endpoint=SERVER_URL, api_key=API_KEY, service_name="py-worker", environment="production",
                                on_diagnostic=lambda d: None) as recorder:
        journey = recorder.start_journey({"type": "order", "id": entity_id}, label="Python order")
        order = {"customer": {"name": "Ada", "phone": "+44 20 7946 0000"}, "password": "hunter2"}
        with journey.transform("normalize", order) as step:
            step.output = {"customer": {"name": "Ada"}, "password": "hunter2"}
        journey.finish()
    counters = recorder.counters()
    assert counters["sent"] == counters["recorded"] == 2
    status, found = get_json(f"{SERVER_URL}/v1/search?q={urllib.parse.quote(entity_id)}", API_KEY)
    assert status == 200 and len(found["data"]["items"]) == 1
    journey_id = found["data"]["items"][0]["journeyId"]
    status, detail = get_json(f"{SERVER_URL}/v1/journeys/{journey_id}", API_KEY)
    assert detail["data"]["status"] == "completed" and detail["data"]["label"] == "Python order"
    status, events = get_json(f"{SERVER_URL}/v1/journeys/{journey_id}/events?limit=10", API_KEY)
    transform = next(e for e in events["data"]["items"] if e["name"] == "normalize")
    status, event = get_json(f"{SERVER_URL}/v1/events/{transform['id']}", API_KEY)
    assert event["data"]["inputPayload"]["password"] == "[REDACTED]"
    assert event["data"]["payloadDiff"]["changes"] == [{"path": "customer.phone", "kind": "removed", "before": "+44 20 7946 0000"}]
