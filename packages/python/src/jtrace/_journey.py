"""A journey handle: step wrappers (plain calls, decorators, context managers, coroutines) and
explicit steps. Nothing here raises into the host or changes what the host's function returns:
the SDK's own work runs under ``try``, and the host's exception is re-raised as it is."""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime
import functools
import inspect
import time
from typing import Any, Awaitable, Callable, Dict, Iterable, List, Optional, Tuple

from ._capture import UNCAPTURABLE
from ._propagation import JourneyContext

_NO_INPUT: Any = object()
Entity = Tuple[str, str]


class Journey:
    def __init__(self, sink: Any, journey_id: str, entity: Entity, label: Optional[str] = None,
                 aliases: Optional[Dict[str, str]] = None, displayable_aliases: Optional[Iterable[str]] = None,
                 parent_event_id: Optional[str] = None) -> None:
        self._sink = sink
        self.journey_id = journey_id
        self.entity = entity
        self._label = label
        self._aliases = aliases
        self._displayable = list(displayable_aliases) if displayable_aliases is not None else None
        self._last_event_id = parent_event_id

    def context(self) -> JourneyContext:
        """What propagation carries to the next service (never aliases)."""
        return JourneyContext(self.journey_id, self.entity, self._last_event_id)

    def label(self, text: str) -> None:
        """The label sent with the next event: public display text, no personal data."""
        self._label = text if isinstance(text, str) else None

    def _take_label(self) -> Optional[str]:
        label, self._label = self._label, None
        return label

    def record(self, operation: str, name: str, **fields: Any) -> Optional[str]:
        """Any of the 11 operations with explicit fields; returns the event id."""
        if self._sink is None:
            return None
        try:
            fields["operation"], fields["name"] = operation, name
            if self._aliases is not None and fields.get("aliases") is None:
                fields["aliases"] = self._aliases
                if self._displayable is not None:
                    fields["displayable_aliases"] = self._displayable
                self._aliases = self._displayable = None
            if fields.get("parent_event_id") is None and self._last_event_id is not None:
                fields["parent_event_id"] = self._last_event_id
            event_id = self._sink.record(self, fields)
            if event_id is not None:
                self._last_event_id = event_id
            return event_id  # type: ignore[no-any-return]
        except Exception:
            return None

    def identify(self, aliases: Dict[str, str], displayable: Optional[Iterable[str]] = None) -> Optional[str]:
        """An ``identified`` step; only the alias types in ``displayable`` are shown in full."""
        try:
            shown = list(displayable) if displayable is not None else None
        except Exception:
            shown = None
        return self.record("identified", "identify", aliases=aliases, displayable_aliases=shown)

    def fail(self, name: str, error: Any = None, **options: Any) -> Optional[str]:
        """A terminal failure of a step (``failed``), e.g. a move to a dead-letter queue."""
        return self.record("failed", name, error=error if error is not None else "failed", **_step_fields(options))

    def finish(self, name: str = "complete", **options: Any) -> Optional[str]:
        """The journey finished (``completed``)."""
        return self.record("completed", name, **_step_fields(options))

    def receive(self, name: str, input: Any = _NO_INPUT, fn: Optional[Callable[..., Any]] = None, **options: Any) -> Any:
        return _wrapper((self,), "received", name, input, fn, options)

    def transform(self, name: str, input: Any = _NO_INPUT, fn: Optional[Callable[..., Any]] = None, **options: Any) -> Any:
        return _wrapper((self,), "transformed", name, input, fn, options)

    def validate(self, name: str, input: Any = _NO_INPUT, fn: Optional[Callable[..., Any]] = None, **options: Any) -> Any:
        return _wrapper((self,), "validated", name, input, fn, options)

    def persist(self, name: str, input: Any = _NO_INPUT, fn: Optional[Callable[..., Any]] = None, **options: Any) -> Any:
        return _wrapper((self,), "persisted", name, input, fn, options)

    def publish(self, name: str, input: Any = _NO_INPUT, fn: Optional[Callable[..., Any]] = None, **options: Any) -> Any:
        return _wrapper((self,), "published", name, input, fn, options)

    def consume(self, name: str, input: Any = _NO_INPUT, fn: Optional[Callable[..., Any]] = None, **options: Any) -> Any:
        return _wrapper((self,), "consumed", name, input, fn, options)

    def deliver(self, name: str, input: Any = _NO_INPUT, fn: Optional[Callable[..., Any]] = None, **options: Any) -> Any:
        return _wrapper((self,), "delivered", name, input, fn, options)


class JourneyGroup:
    """One operation on several journeys (``recorder.across(journeys)``): a wrapped function runs
    once, and each journey gets an event of its own (own id, own parent link)."""

    def __init__(self, journeys: Iterable[Journey]) -> None:
        unique: List[Journey] = []
        for journey in journeys:
            # Only journeys, each once: a journey named twice still gets one event per step.
            if isinstance(journey, Journey) and not any(journey is seen for seen in unique):
                unique.append(journey)
        self.journeys: Tuple[Journey, ...] = tuple(unique)

    def record(self, operation: str, name: str, **fields: Any) -> List[Optional[str]]:
        return [journey.record(operation, name, **fields) for journey in self.journeys]

    def identify(self, aliases: Dict[str, str], displayable: Optional[Iterable[str]] = None) -> List[Optional[str]]:
        shown = _listed(displayable)
        return [journey.identify(aliases, shown) for journey in self.journeys]

    def fail(self, name: str, error: Any = None, **options: Any) -> List[Optional[str]]:
        return [journey.fail(name, error, **options) for journey in self.journeys]

    def finish(self, name: str = "complete", **options: Any) -> List[Optional[str]]:
        return [journey.finish(name, **options) for journey in self.journeys]

    def label(self, text: str) -> None:
        for journey in self.journeys:
            journey.label(text)

    def receive(self, name: str, input: Any = _NO_INPUT, fn: Optional[Callable[..., Any]] = None, **options: Any) -> Any:
        return _wrapper(self.journeys, "received", name, input, fn, options)

    def transform(self, name: str, input: Any = _NO_INPUT, fn: Optional[Callable[..., Any]] = None, **options: Any) -> Any:
        return _wrapper(self.journeys, "transformed", name, input, fn, options)

    def validate(self, name: str, input: Any = _NO_INPUT, fn: Optional[Callable[..., Any]] = None, **options: Any) -> Any:
        return _wrapper(self.journeys, "validated", name, input, fn, options)

    def persist(self, name: str, input: Any = _NO_INPUT, fn: Optional[Callable[..., Any]] = None, **options: Any) -> Any:
        return _wrapper(self.journeys, "persisted", name, input, fn, options)

    def publish(self, name: str, input: Any = _NO_INPUT, fn: Optional[Callable[..., Any]] = None, **options: Any) -> Any:
        return _wrapper(self.journeys, "published", name, input, fn, options)

    def consume(self, name: str, input: Any = _NO_INPUT, fn: Optional[Callable[..., Any]] = None, **options: Any) -> Any:
        return _wrapper(self.journeys, "consumed", name, input, fn, options)

    def deliver(self, name: str, input: Any = _NO_INPUT, fn: Optional[Callable[..., Any]] = None, **options: Any) -> Any:
        return _wrapper(self.journeys, "delivered", name, input, fn, options)


def _listed(values: Optional[Iterable[str]]) -> Optional[List[str]]:
    try:
        return list(values) if values is not None else None
    except Exception:
        return None


def _project(projection: Any, value: Any) -> Any:
    """A capture projection's value; one that raises records the marker of a value that could not be read."""
    try:
        return projection(value)
    except Exception:
        return UNCAPTURABLE


def _step_fields(options: Dict[str, Any]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    metadata = options.get("metadata")
    attempt = options.get("attempt")
    if attempt is not None:
        metadata = {**(metadata if isinstance(metadata, dict) else {}), "attempt": attempt}
    if metadata is not None:
        out["metadata"] = metadata
    for key in ("message_id", "correlation_id"):
        if options.get(key) is not None:
            out[key] = options[key]
    return out


def _wrapper(journeys: Any, operation: str, name: str, input: Any, fn: Any, options: Dict[str, Any]) -> Any:
    if fn is not None:
        return Step(journeys, operation, name, input, options).call(fn)
    return Step(journeys, operation, name, input, options)


class Step:
    """One step: ``with``/``async with`` block, decorator, or (through the wrappers) a plain call.

    In a block, set ``step.output`` to record what the step produced; an exception leaving the
    block is recorded and goes on as it is. ``capture_input`` / ``capture_output`` replace what
    is recorded (never what the host gets); the step is recorded on each of ``journeys``.
    """

    def __init__(self, journeys: Any, operation: str, name: str, input: Any, options: Dict[str, Any]) -> None:
        # One journey, or the journeys of recorder.across().
        self._journeys: Tuple[Journey, ...] = (journeys,) if isinstance(journeys, Journey) else tuple(journeys)
        self._operation = operation
        self._name = name
        self._has_input = input is not _NO_INPUT
        self.input = input if self._has_input else None
        self.output: Any = None
        self._options = options
        self._started = 0.0
        self._timestamp: Optional[datetime.datetime] = None

    def _start(self) -> None:
        self._started = time.perf_counter()
        self._timestamp = datetime.datetime.now(datetime.timezone.utc)

    def _finish(self, input: Any, output: Any, error: Any, threw: bool, read_output: bool = True) -> None:
        try:
            options = self._options
            attempt = options.get("attempt")
            retried = isinstance(attempt, int) and not isinstance(attempt, bool) and attempt > 1
            capture_input, capture_output = options.get("capture_input"), options.get("capture_output")
            fields: Dict[str, Any] = {"input": input if capture_input is None else _project(capture_input, input),
                                      "duration_ms": (time.perf_counter() - self._started) * 1000,
                                      "timestamp": self._timestamp}
            if threw:
                fields["error"] = error if error is not None else "None was raised"
            elif read_output:
                fields["output"] = output if capture_output is None else _project(capture_output, output)
            fields.update(_step_fields(options))
            # The projections ran once; each journey records its own event from the same fields.
            for journey in self._journeys:
                journey.record("retried" if retried else self._operation, self._name, **fields)
        except Exception:
            pass

    # --- a plain call: fn(input) ---------------------------------------------------------------
    def call(self, fn: Callable[..., Any]) -> Any:
        self._start()
        try:
            # fn(input) as the Node SDK calls it; a function of no arguments given no input is called bare.
            result = fn(self.input) if self._has_input or not _takes_nothing(fn) else fn()
        except BaseException as error:
            self._finish(self.input, None, error, True)
            raise
        try:
            if inspect.iscoroutine(result):
                # A coroutine runs only when awaited: the host awaits this one, which awaits its own.
                return self._awaiting(self.input, result)
            if isinstance(result, (asyncio.Future, concurrent.futures.Future)):
                # Already running: the same future goes back, and the step is recorded when it settles.
                result.add_done_callback(self._settled)
                return result
            awaitable = inspect.isawaitable(result)
        except Exception:
            awaitable = False
        # Any other awaitable may start work each time it is awaited: it is never touched, and the
        # step is recorded now, without an output.
        self._finish(self.input, None if awaitable else result, None, False, read_output=not awaitable)
        return result

    def _settled(self, future: Any) -> None:
        try:
            if future.cancelled():
                self._finish(self.input, None, asyncio.CancelledError(), True)
            elif future.exception() is not None:
                self._finish(self.input, None, future.exception(), True)
            else:
                self._finish(self.input, future.result(), None, False)
        except Exception:
            pass

    async def _awaiting(self, input: Any, awaitable: Awaitable[Any]) -> Any:
        try:
            value = await awaitable
        except BaseException as error:
            self._finish(input, None, error, True)
            raise
        self._finish(input, value, None, False)
        return value

    # --- with / async with ---------------------------------------------------------------------
    def __enter__(self) -> "Step":
        self._start()
        return self

    def __exit__(self, kind: Any, error: Any, trace: Any) -> bool:
        self._finish(self.input, None if error is not None else self.output, error, error is not None)
        return False  # never swallow the host's exception

    async def __aenter__(self) -> "Step":
        return self.__enter__()

    async def __aexit__(self, kind: Any, error: Any, trace: Any) -> bool:
        return self.__exit__(kind, error, trace)

    # --- a decorator: each call is a step, its arguments the input -------------------------------
    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        journeys, operation, name, options = self._journeys, self._operation, self._name, self._options

        if inspect.iscoroutinefunction(fn):
            @functools.wraps(fn)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                step = Step(journeys, operation, name, _arguments(args, kwargs), options)
                step._start()
                try:
                    value = await fn(*args, **kwargs)
                except BaseException as error:
                    step._finish(step.input, None, error, True)
                    raise
                step._finish(step.input, value, None, False)
                return value
            return run_async

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            step = Step(journeys, operation, name, _arguments(args, kwargs), options)
            return step.call(lambda _input: fn(*args, **kwargs))
        return run


def _arguments(args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    if len(args) == 1 and not kwargs:
        return args[0]
    if not args and not kwargs:
        return None
    return {"args": list(args), "kwargs": kwargs} if kwargs else list(args)


def _takes_nothing(fn: Callable[..., Any]) -> bool:
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD) or p.default is not p.empty for p in parameters) and \
        not any(p.kind == p.VAR_POSITIONAL for p in parameters)
