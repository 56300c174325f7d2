"""The SDK conformance cases (event protocol 11.5): each case drives the recorder against a real
local receiver, compares the captured events and diagnostics, then sends those events through the
real server's dry run and compares the verdicts."""

import json
import os

import pytest

import jtrace
from helpers import CONFORMANCE_KEY, REPO, Receiver, dry_run, expand, exact, run_token, subset

CASES = os.path.join(REPO, "test", "conformance", "sdk")
EXPECTED_FILES = [
    "error-masked-and-bounded", "event-over-budget", "generated-ids", "hundred-and-one-events", "identify",
    "identify-displayable", "journey-label-blank", "journey-label-cut", "long-string-truncated", "overlong-keys",
    "retried-attempt", "truncated-then-omitted", "unredacted-secret-name",
]
PYTHON_LANGUAGES = ("*", "python")
WRAPPERS = ("receive", "transform", "validate", "persist", "publish", "consume", "deliver")
FILES = sorted(name for name in os.listdir(CASES) if name.endswith(".json"))


def host_tag(tag, argument, again):
    value = again(argument)
    if tag == "$error":
        kind = type(str(value.get("name", "Error")), (Exception,), {})
        return kind(str(value["message"]))
    if tag == "$bigint":
        return int(value)
    if tag == "$set":
        return set(value)
    if tag == "$buffer":
        return bytes(value)
    raise pytest.skip.Exception(f"{tag} has no Python form in this runner")


def run_call(journey, call):
    args = call.get("args", {})
    kind = call["call"]
    if kind == "record":
        fields = dict(args)
        operation, name = fields.pop("operation"), fields.pop("name", None)
        renamed = {"displayableAliases": "displayable_aliases", "durationMs": "duration_ms", "parentEventId": "parent_event_id",
                   "messageId": "message_id", "correlationId": "correlation_id"}
        journey.record(operation, name, **{renamed.get(key, key): value for key, value in fields.items()})
    elif kind == "identify":
        journey.identify(args["aliases"], (args.get("options") or {}).get("displayable"))
    elif kind == "fail":
        journey.fail(call.get("name", "fail"), args.get("error"))
    elif kind == "finish":
        journey.finish(call.get("name", "complete"))
    elif kind == "label":
        journey.label(args["text"])
    elif kind in WRAPPERS:
        options = args.get("options") or {}
        output = args.get("output")
        getattr(journey, kind)(call.get("name", kind), args.get("input"), lambda _input: output, **options)
    else:
        raise AssertionError(f"unknown call {kind}")


def test_every_shipped_case_file_is_present():
    stems = [name[:-5] for name in FILES]
    assert [stem for stem in EXPECTED_FILES if stem not in stems] == []


@pytest.mark.server
@pytest.mark.parametrize("file", FILES)
def test_case(file):
    with open(os.path.join(CASES, file), encoding="utf-8") as handle:
        document = json.load(handle)
    assert document["id"] == f"sdk/{file[:-5]}"
    if not any(language in PYTHON_LANGUAGES for language in document["languages"]):
        pytest.skip("not a Python case")
    run = run_token()
    calls = expand(document["calls"], run, host_tag)
    expected = expand(document["expect"], run, host_tag)
    receiver = Receiver()
    diagnostics = []
    try:
        recorder = jtrace.create_recorder(endpoint=receiver.url, api_key="stub", service_name="conformance",
                                          environment="conformance", on_diagnostic=diagnostics.append,
                                          **{_snake(k): v for k, v in (document.get("recorder") or {}).items()})
        journey = recorder.start_journey({"type": "order", "id": f"ord_{run}"})
        for call in calls:
            for _ in range(call.get("repeat", 1)):
                run_call(journey, call)
        assert recorder.shutdown(timeout=10) is True
    finally:
        receiver.close()
    events = receiver.events()
    if "wire" in expected:
        for event in events:
            assert subset(event, expected["wire"], "wire") == []
    if "diagnostics" in expected:
        seen = [{"kind": d.kind, "detail": d.detail} for d in diagnostics]
        problems = []
        exact(seen, expected["diagnostics"], "diagnostics", problems)
        assert problems == []
    assert all(len(batch) <= 100 for batch in receiver.batches)
    results = [result for batch in receiver.batches for result in dry_run(CONFORMANCE_KEY, batch)]
    wanted = expected.get("results", [])
    assert len(results) == len(wanted)
    for index, want in enumerate(wanted):
        got = results[index]
        assert got["status"] == want["status"], f"results[{index}] {got.get('error')}"
        if "duplicate" in want:
            assert got.get("duplicate") == want["duplicate"]
        for part in ("event", "journey"):
            if part in (want.get("stored") or {}):
                assert subset(got["stored"][part], want["stored"][part], f"stored.{part}") == []


def _snake(name):
    return "".join("_" + c.lower() if c.isupper() else c for c in name)
