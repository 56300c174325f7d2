"""What every jtrace SDK sends for the same condition (test/sdk-cases): dates as protocol
timestamps, U+0000 removed, a payload too deep or unreadable replaced whole by its marker, capture
projections, and one operation recorded on several journeys."""

import datetime

import pytest

import jtrace
from helpers import Receiver


@pytest.fixture()
def receiver():
    server = Receiver()
    yield server
    server.close()


def make(receiver):
    return jtrace.create_recorder(endpoint=receiver.url, api_key="k", service_name="svc", environment="test",
                                  flush_interval=0.02, on_diagnostic=lambda d: None)


class RaisingDict(dict):
    def items(self):
        raise RuntimeError("no reading this")


def nest(depth):
    value = 1
    for _ in range(depth):
        value = {"n": value}
    return value


def test_dates_are_protocol_timestamps_and_nul_is_removed(receiver):
    recorder = make(receiver)
    journey = recorder.start_journey(("\x00", "o-1"), label=" \x00 ")
    aware = datetime.datetime(2026, 1, 2, 4, 4, 5, 678901, tzinfo=datetime.timezone(datetime.timedelta(hours=1)))
    naive = datetime.datetime(2027, 1, 2, 3, 4, 5)
    journey.record("received", "r\x00", input={"at": aware, "naive": naive, "day": datetime.date(2026, 1, 2),
                                              "name": "Da\x00na", "k\x00ey": "\ud800"},
                   error=ValueError("\x00"), aliases={"\x00": "x", "crm": "C-1"}, displayable_aliases=["\x00", "crm"])
    assert recorder.shutdown(timeout=5) is True
    event = receiver.events()[0]
    assert event["input"] == {"at": "2026-01-02T03:04:05.678Z", "naive": "2027-01-02T03:04:05.000Z",
                              "day": "2026-01-02", "name": "Dana", "key": "\ufffd"}
    assert event["name"] == "r"
    assert event["error"]["message"] == "Error"
    assert event["entity"] == {"type": "unknown", "id": "o-1"}
    assert "journeyLabel" not in event
    assert (event["aliases"], event["displayableAliases"]) == ({"crm": "C-1"}, ["crm"])


def test_a_payload_too_deep_or_unreadable_is_replaced_whole(receiver):
    recorder = make(receiver)
    journey = recorder.start_journey(("order", "o-1"))
    journey.record("received", "deep", input=nest(30), output=nest(31))
    journey.record("received", "unreadable", input={"ok": "yes", "inner": RaisingDict(a=1)},
                   metadata={"tenant": "acme", "broken": RaisingDict(a=1)})
    assert recorder.shutdown(timeout=5) is True
    deep, unreadable = receiver.events()
    assert deep["input"] == nest(30)
    assert deep["output"] == "[PAYLOAD_TOO_LARGE]"
    assert unreadable["input"] == "[UNCAPTURABLE]"
    assert "metadata" not in unreadable


def test_projections_replace_what_is_recorded_never_what_the_host_gets(receiver):
    recorder = make(receiver)
    journey = recorder.start_journey(("order", "o-1"))
    pdf = b"%PDF-1.7 a rendered invoice"

    def broken(_value):
        raise RuntimeError("the projection has a bug")

    assert journey.deliver("render", {"invoiceId": "inv_42"}, lambda _i: pdf,
                           capture_input=lambda i: i["invoiceId"], capture_output=len) is pdf
    assert journey.transform("map", {"orderId": "o"}, lambda i: {"customerId": "c"}, capture_output=broken) == {"customerId": "c"}
    with journey.persist("write", {"a": 1}, capture_input=broken) as step:
        step.output = "done"
    assert recorder.shutdown(timeout=5) is True
    render, mapped, written = receiver.events()
    assert (render["input"], render["output"]) == ("inv_42", 27)
    assert (mapped["input"], mapped["output"]) == ({"orderId": "o"}, "[UNCAPTURABLE]")
    assert "error" not in mapped
    assert (written["input"], written["output"]) == ("[UNCAPTURABLE]", "done")


def test_across_runs_the_function_once_and_gives_each_journey_its_own_event(receiver):
    recorder = make(receiver)
    one = recorder.start_journey(("customer", "c-1"))
    first = one.record("received", "first")
    two = recorder.start_journey(("customer", "c-2"))
    calls = []
    group = recorder.across([one, two, one, "not a journey"])
    assert group.journeys == (one, two)
    assert group.persist("write-digest", {"lines": 3}, lambda i: calls.append(i) or "digest.md") == "digest.md"
    assert calls == [{"lines": 3}]
    with pytest.raises(KeyError):
        with group.validate("check", {"a": 1}):
            raise KeyError("missing")
    with jtrace.Step(two, "published", "direct", {"b": 2}, {}) as step:  # a Step made by hand, on one journey
        step.output = "sent"
    assert recorder.shutdown(timeout=5) is True
    events = receiver.events()[1:]
    assert [(e["operation"], e["journeyId"]) for e in events] == [
        ("persisted", one.journey_id), ("persisted", two.journey_id), ("validated", one.journey_id), ("validated", two.journey_id),
        ("published", two.journey_id)]
    assert events[0]["parentEventId"] == first
    assert "parentEventId" not in events[1]
    assert events[1]["entity"] == {"type": "customer", "id": "c-2"} and events[1]["output"] == "digest.md"
    assert len({e["id"] for e in events}) == 5
