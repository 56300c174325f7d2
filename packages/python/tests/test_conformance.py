"""The SDK conformance cases (event protocol 11.5): each case drives the recorder against a real
local receiver, compares the captured events and diagnostics, then sends those events through the
real server's dry run (in an environment set up as the case says) and compares the verdicts.

The cases are those the contract's manifest names, read from the contract's copy
(test/conformance/sdk) and from the project's own test/sdk-cases; one with no file is a failure.
"""

import json
import os

import pytest

import jtrace
from helpers import CONFORMANCE_KEY, REPO, Receiver, dry_run, expand, exact, run_token, subset
from host_values import host_tag, place_host_values

CONTRACT = os.path.join(REPO, "test", "conformance")
DIRS = (os.path.join(CONTRACT, "sdk"), os.path.join(REPO, "test", "sdk-cases"))
PYTHON_LANGUAGES = ("*", "python")
WRAPPERS = ("receive", "transform", "validate", "persist", "publish", "consume", "deliver")
# The entity every case's journeys are on (case sdk/across-journeys states it).
ENTITY = {"type": "customer", "id": "0018Z00002ABC"}
# Keys of environments set up for the cases that ask for one (packages/python/test/python-sdk.int.test.ts).
CASE_KEYS = json.loads(os.environ.get("JTRACE_TEST_CASE_KEYS") or "{}")


def _cases():
    found = {}
    for folder in DIRS:
        if os.path.isdir(folder):
            for name in sorted(os.listdir(folder)):
                if name.endswith(".json") and name[:-5] not in found:
                    found[name[:-5]] = os.path.join(folder, name)
    return found


CASES = _cases()
with open(os.path.join(CONTRACT, "manifest.json"), encoding="utf-8") as _handle:
    MANIFEST = json.load(_handle).get("sdk", [])


def _snake(name):
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def run_call(target, call):
    args = call.get("args", {})
    kind = call["call"]
    if kind == "record":
        fields = dict(args)
        operation, name = fields.pop("operation"), fields.pop("name", None)
        target.record(operation, name, **{_snake(key): value for key, value in fields.items()})
    elif kind == "identify":
        target.identify(args["aliases"], (args.get("options") or {}).get("displayable"))
    elif kind == "fail":
        target.fail(call.get("name", "fail"), args.get("error"), **{_snake(k): v for k, v in (args.get("options") or {}).items()})
    elif kind == "finish":
        target.finish(call.get("name", "complete"), **{_snake(k): v for k, v in (args.get("options") or {}).items()})
    elif kind == "label":
        target.label(args["text"])
    elif kind in WRAPPERS:
        options = {_snake(k): v for k, v in (args.get("options") or {}).items()}
        output = args.get("output")
        getattr(target, kind)(call.get("name", kind), args.get("input"), lambda _input: output, **options)
    else:
        raise AssertionError(f"unknown call {kind}")


def test_every_case_the_manifest_names_has_a_file():
    assert [case for case in MANIFEST if case.split("/", 1)[1] not in CASES] == []


@pytest.mark.server
@pytest.mark.parametrize("stem", sorted(CASES))
def test_case(stem):
    with open(CASES[stem], encoding="utf-8") as handle:
        document = json.load(handle)
    assert document["id"] == f"sdk/{stem}"
    # Events ingested before the calls (setup.existing) mean nothing to a dry run of an SDK case.
    assert [key for key in (document.get("setup") or {}) if key != "environment"] == [], "setup this runner cannot honour"
    if not any(language in PYTHON_LANGUAGES for language in document["languages"]):
        pytest.skip(f"a case for another language ({', '.join(document['languages'])})")
    key = CONFORMANCE_KEY
    if (document.get("setup") or {}).get("environment") is not None:
        assert document["id"] in CASE_KEYS, "the environment this case sets up was not provided"
        key = CASE_KEYS[document["id"]]
    run = run_token()
    calls = [dict(call, args=place_host_values(call.get("args") or {})) for call in expand(document["calls"], run, host_tag)]
    expected = expand(document["expect"], run, host_tag)
    receiver = Receiver()
    diagnostics = []
    spreads = []
    try:
        recorder = jtrace.create_recorder(endpoint=receiver.url, api_key="stub", service_name="conformance",
                                          environment="conformance", on_diagnostic=diagnostics.append,
                                          **{_snake(k): v for k, v in (document.get("recorder") or {}).items()})
        journey = recorder.start_journey(ENTITY)
        for call in calls:
            for _ in range(call.get("repeat", 1)):
                if call.get("journeys", 1) <= 1:
                    run_call(journey, call)
                else:
                    # One call on several journeys goes through across; each journey gets its own event.
                    journeys = [recorder.start_journey(ENTITY) for _ in range(call["journeys"])]
                    spreads.append([one.journey_id for one in journeys])
                    run_call(recorder.across(journeys), call)
        assert recorder.shutdown(timeout=10) is True
    finally:
        receiver.close()
    events = receiver.events()
    for journey_ids in spreads:
        made = [event for event in events if event["journeyId"] in journey_ids]
        assert [event["journeyId"] for event in made] == journey_ids
        assert len({event["id"] for event in made}) == len(journey_ids)
    if "wire" in expected:
        for event in events:
            assert subset(event, expected["wire"], "wire") == []
    if "diagnostics" in expected:
        seen = [{"kind": d.kind, "detail": d.detail} for d in diagnostics]
        problems = []
        exact(seen, expected["diagnostics"], "diagnostics", problems)
        assert problems == []
    assert all(len(batch) <= 100 for batch in receiver.batches)
    results = [result for batch in receiver.batches for result in dry_run(key, batch)]
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


def test_the_cases_for_another_language_give_the_same_markers_from_their_python_stand_ins():
    """Python has no throwing getter: a mapping whose reading raises stands for it, and gives the
    marker the Node-only cases state, so a mixed fleet stores the same one."""
    from jtrace._capture import to_wire_value

    for stem, field in (("uncapturable-payload", "input"), ("metadata-uncapturable", "metadata")):
        with open(CASES[stem], encoding="utf-8") as handle:
            call = expand(json.load(handle)["calls"], run_token(), host_tag)[0]
        value = place_host_values(call["args"])[field]
        assert to_wire_value(value)[0] == "[UNCAPTURABLE]"
