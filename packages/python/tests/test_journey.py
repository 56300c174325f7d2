"""Wrappers as plain calls, decorators, context managers and coroutines; exact re-raise of the
host's exceptions; hostile host values; asyncio without blocking the loop; journey ids."""

import asyncio
import threading

import pytest

import jtrace
from helpers import Receiver

SECRET = "journey id test vector secret one, not a real key"


@pytest.fixture()
def receiver():
    server = Receiver()
    yield server
    server.close()


def make(receiver, **options):
    return jtrace.create_recorder(endpoint=receiver.url, api_key="k", service_name="svc", environment="test",
                                  flush_interval=0.02, on_diagnostic=lambda d: None, **options)


@pytest.mark.parametrize("environment, kind, ident, expected", [
    ("production", "job_posting", "greenhouse:4567", "jrn_03229a6b36d35d0f9ba7e23793d64693"),
    ("staging", "job_posting", "greenhouse:4567", "jrn_2de9db70f99c00a8a83d74339c1faba3"),
    ("prod", "ab", "c", "jrn_739726cd7fde29947be987b3bf09156d"),
    ("prod", "a", "bc", "jrn_36d3f707b064a260431361731f1b32d7"),
])
def test_journey_id_derivation_vectors(environment, kind, ident, expected):
    assert jtrace.derive_journey_id(SECRET, environment, kind, ident) == expected


def test_derived_ids_from_the_recorder_and_unpaired_surrogates(receiver):
    recorder = make(receiver, journey_id_secret=SECRET)
    recorder_env = jtrace.create_recorder(endpoint=receiver.url, api_key="k", service_name="s", environment="production",
                                          journey_id_secret=SECRET, on_diagnostic=lambda d: None)
    assert recorder_env.start_journey({"type": "job_posting", "id": "greenhouse:4567"}).journey_id == "jrn_03229a6b36d35d0f9ba7e23793d64693"
    assert jtrace.derive_journey_id(SECRET, "prod", "order", "a\ud800b") is None
    assert recorder.start_journey(("order", "a\ud800b")).journey_id.startswith("jrn_")
    recorder.shutdown(1)
    recorder_env.shutdown(1)


def test_every_wrapper_shape_records_and_returns_the_host_value(receiver):
    recorder = make(receiver)
    journey = recorder.start_journey({"type": "order", "id": "o-1"}, label="Order 1")
    assert journey.receive("receive", {"a": 1}, lambda order: {**order, "b": 2}) == {"a": 1, "b": 2}
    with journey.transform("normalize", {"a": 1}) as step:
        step.output = {"a": "1"}

    @journey.validate("check")
    def check(order, strict=True):
        return strict

    assert check({"a": 1}) is True
    assert journey.deliver("send", {"a": 1}, lambda order: "ok", attempt=3) == "ok"
    journey.identify({"email": "a@b.c"}, displayable=[])
    journey.finish()
    assert recorder.shutdown(timeout=5) is True
    events = receiver.events()
    assert [(e["operation"], e["name"]) for e in events] == [
        ("received", "receive"), ("transformed", "normalize"), ("validated", "check"), ("retried", "send"),
        ("identified", "identify"), ("completed", "complete")]
    assert events[0]["journeyLabel"] == "Order 1" and "journeyLabel" not in events[1]
    assert events[1]["input"] == {"a": 1} and events[1]["output"] == {"a": "1"}
    assert events[3]["metadata"] == {"attempt": 3}
    # Each event names the one before it, so hand-offs carry the parent.
    assert events[1]["parentEventId"] == events[0]["id"]


class HostError(Exception):
    pass


def test_the_host_exception_is_re_raised_as_it_is(receiver):
    recorder = make(receiver)
    journey = recorder.start_journey({"type": "order", "id": "o"})
    error = HostError("boom")

    def fails(_):
        raise error

    with pytest.raises(HostError) as caught:
        journey.persist("save", {}, fails)
    assert caught.value is error
    with pytest.raises(HostError) as caught:
        with journey.persist("save-block", {}):
            raise error
    assert caught.value is error

    @journey.persist("save-decorated")
    def decorated():
        raise error

    with pytest.raises(HostError) as caught:
        decorated()
    assert caught.value is error and caught.value.__traceback__ is not None
    recorder.shutdown(timeout=5)
    assert [e["error"]["type"] for e in receiver.events()] == ["HostError"] * 3


class Hostile:
    @property
    def boom(self):
        raise RuntimeError("getter")

    def __repr__(self):
        raise RuntimeError("repr")

    def __str__(self):
        raise RuntimeError("str")


def test_hostile_values_never_reach_the_host(receiver):
    recorder = make(receiver)
    journey = recorder.start_journey({"type": Hostile(), "id": Hostile()})
    cycle = {"name": "loop"}
    cycle["self"] = cycle
    deep = current = {}
    for _ in range(100):
        current["n"] = {}
        current = current["n"]
    values = [cycle, deep, Hostile(), {1: b"\x00\xff", (1, 2): {1, 2}}, float("nan"), 10**30, "\x00\ud800",
              {"k" * 200: 1}, [Hostile()] * 2000, object(), lambda: 1, threading.Lock()]
    for value in values:
        assert journey.transform("t", value, lambda v: v) is value
        journey.record("received", "r", input=value, output=value, metadata={"m": value}, error=value)
    journey.fail("dead-letter", Hostile())
    assert recorder.shutdown(timeout=5) is True
    counters = recorder.counters()
    assert counters["sent"] == counters["recorded"] == 2 * len(values) + 1
    first = receiver.events()[0]
    assert first["input"] == {"name": "loop", "self": "[CIRCULAR]"}


def test_asyncio_wrappers_do_not_block_the_loop(receiver):
    async def main():
        async with make(receiver, request_timeout=2) as recorder:
            journey = recorder.start_journey({"type": "order", "id": "async"})

            async def fetch(order):
                await asyncio.sleep(0.01)
                return {**order, "fetched": True}

            assert await journey.consume("fetch", {"a": 1}, fetch) == {"a": 1, "fetched": True}

            @journey.transform("shape")
            async def shape(order):
                return {"shaped": order}

            assert await shape({"a": 2}) == {"shaped": {"a": 2}}
            async with journey.persist("save", {"a": 3}) as step:
                step.output = {"saved": True}
            ticks = 0

            async def ticker():
                nonlocal ticks
                while True:
                    ticks += 1
                    await asyncio.sleep(0.001)

            task = asyncio.ensure_future(ticker())
            assert await recorder.aflush(timeout=5) is True
            task.cancel()
            assert ticks > 0  # the loop kept running while the flush waited
            return recorder

    recorder = asyncio.run(main())
    assert [e["name"] for e in receiver.events()] == ["fetch", "shape", "save"]
    assert recorder.counters()["sent"] == 3


def test_bad_options_are_reported_never_raised():
    diagnostics = []
    recorder = jtrace.create_recorder(endpoint="ftp://x", api_key="", service_name=None, environment="e",
                                      batch_size=0, redaction_paths="a..b", no_such_option=1, on_diagnostic=diagnostics.append)
    journey = recorder.start_journey({"type": "order", "id": "1"})
    assert journey.transform("t", 1, lambda v: v + 1) == 2
    assert recorder.shutdown() is True
    counters = recorder.counters()
    assert counters["dropped_by_cause"]["disabled"] == 1 and counters["recorded"] == 1
    assert {d.kind for d in diagnostics} == {"configuration_error"}
    assert len(diagnostics) >= 5


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_a_forked_worker_sends_its_own_events(receiver):
    import os

    recorder = make(receiver)
    recorder.start_journey({"type": "order", "id": "parent"}).record("received", "before-fork")
    pid = os.fork()
    if pid == 0:  # the child, as a preforking server's worker
        code = 1
        try:
            recorder.start_journey({"type": "order", "id": "child"}).record("received", "in-child")
            ok = recorder.shutdown(timeout=5)
            counters = recorder.counters()
            code = 0 if ok and counters["recorded"] == counters["sent"] == 1 else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0 if hasattr(os, "waitstatus_to_exitcode") else status == 0
    assert recorder.shutdown(timeout=5) is True
    assert sorted(event["name"] for event in receiver.events()) == ["before-fork", "in-child"]
    assert recorder.counters()["sent"] == 1


def test_futures_and_other_awaitables_go_back_untouched(receiver):
    import concurrent.futures

    recorder = make(receiver)
    journey = recorder.start_journey({"type": "order", "id": "f"})

    class Lazy:
        awaited = 0

        def __await__(self):
            Lazy.awaited += 1
            return iter(())

    lazy = Lazy()
    assert journey.publish("lazy", 1, lambda _: lazy) is lazy and Lazy.awaited == 0

    async def main():
        task = journey.consume("task", 2, lambda _: asyncio.ensure_future(asyncio.sleep(0, result={"ok": True})))
        assert isinstance(task, asyncio.Task)
        assert await task == {"ok": True}
        doomed = journey.consume("cancelled", 3, lambda _: asyncio.ensure_future(asyncio.sleep(10)))
        doomed.cancel()
        await asyncio.sleep(0.01)

    asyncio.run(main())
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        future = journey.persist("threaded", 4, lambda _: pool.submit(lambda: 5))
        assert isinstance(future, concurrent.futures.Future) and future.result() == 5
    assert recorder.shutdown(timeout=5) is True
    events = {event["name"]: event for event in receiver.events()}
    assert "output" not in events["lazy"]
    assert events["task"]["output"] == {"ok": True}
    assert events["cancelled"]["error"]["type"] == "CancelledError"
    assert events["threaded"]["output"] == 5
