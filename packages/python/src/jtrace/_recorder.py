"""``create_recorder``: options, journeys, and the bridge from a recorded step to the queue."""

from __future__ import annotations

import atexit
import logging
import os
import platform
import socket
import threading
import time
import urllib.parse
import weakref
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from . import _protocol as P
from ._capture import fit_field
from ._delivery import Delivery, empty_counters
from ._event import (
    BuilderSettings, Diagnostic, build_envelope, derive_journey_id, is_usable_secret, random_journey_id,
)
from ._journey import Journey, JourneyGroup
from ._propagation import JourneyContext
from ._rules import Redactor
from ._version import SDK_NAME, SDK_VERSION

_log = logging.getLogger("jtrace")


def _reporter(callback: Optional[Callable[[Diagnostic], Any]]) -> Callable[[Diagnostic], None]:
    last: Dict[str, float] = {}

    def report(diagnostic: Diagnostic) -> None:
        try:
            if callback is not None:
                callback(diagnostic)
                return
            now = time.monotonic()
            if now - last.get(diagnostic.kind, -120.0) >= 60.0:  # one line per kind per minute
                last[diagnostic.kind] = now
                _log.warning("jtrace %s: %s", diagnostic.kind, diagnostic.message)
        except Exception:
            pass
    return report


def _number(value: Any, fallback: float, low: float, high: float, name: str, problems: List[str], whole: bool = True) -> Any:
    if value is None:
        return fallback
    if isinstance(value, (int, float)) and not isinstance(value, bool) and low <= value <= high and (not whole or value == int(value)):
        return int(value) if whole else float(value)
    problems.append(f"{name} must be a {'whole ' if whole else ''}number from {low} to {high}; using {fallback}")
    return fallback


def _entity(value: Any) -> Tuple[str, str]:
    if isinstance(value, dict):
        kind, ident = value.get("type"), value.get("id")
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        kind, ident = value
    else:
        kind, ident = None, None
    return _part(kind), _part(ident)


def _part(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return "unknown"
    try:
        return str(value)
    except Exception:
        return "[UNCAPTURABLE]"


class Recorder:
    """Records journeys and sends them from a background thread. Never raises into the host."""

    def __init__(self, endpoint: Any = None, api_key: Any = None, service_name: Any = None, environment: Any = None, *,
                 enabled: bool = True, batch_size: Optional[int] = None, flush_interval: Optional[float] = None,
                 max_queue_size: Optional[int] = None, max_queue_bytes: Optional[int] = None,
                 request_timeout: Optional[float] = None, breaker_threshold: Optional[int] = None,
                 breaker_cooldown: Optional[float] = None, resend_delay: Optional[float] = None,
                 max_event_bytes: Optional[int] = None, redaction_paths: Sequence[str] = (),
                 capture_stack: bool = False, journey_id_secret: Optional[str] = None,
                 deployment: Optional[Dict[str, str]] = None, on_diagnostic: Optional[Callable[[Diagnostic], Any]] = None,
                 atexit_timeout: float = 2.0, peer_propagation: bool = False) -> None:
        self._report = _reporter(on_diagnostic)
        # Read by inject_http_headers / inject_message_attributes: write the peer's carriers too.
        self.peer_propagation = peer_propagation is True
        self._counters = empty_counters()
        self._lock = threading.Lock()
        fatal: List[str] = []
        warnings: List[str] = []
        url = _batch_url(endpoint)
        if url is None:
            fatal.append("endpoint must be an http(s) URL")
        key = api_key.strip() if isinstance(api_key, str) else ""
        if not key:
            fatal.append("api_key is required")
        service = service_name.strip() if isinstance(service_name, str) else ""
        if not service:
            fatal.append("service_name is required")
        self._environment = environment.strip() if isinstance(environment, str) else ""
        if not self._environment:
            fatal.append("environment is required")
        settings = {
            "url": url, "api_key": key,
            "batch_size": _number(batch_size, P.MAX_BATCH_EVENTS, 1, P.MAX_BATCH_EVENTS, "batch_size", warnings),
            "flush_interval": _number(flush_interval, 1.0, 0.001, 3600, "flush_interval", warnings, False),
            "max_queue_size": _number(max_queue_size, 10_000, 1, 10_000_000, "max_queue_size", warnings),
            "max_queue_bytes": _number(max_queue_bytes, 64 * 1024 * 1024, 1024 * 1024, 4 * 1024**3, "max_queue_bytes", warnings),
            "request_timeout": _number(request_timeout, 10.0, 0.001, 600, "request_timeout", warnings, False),
            "breaker_threshold": _number(breaker_threshold, 5, 1, 1000, "breaker_threshold", warnings),
            "breaker_cooldown": _number(breaker_cooldown, 30.0, 0, 3600, "breaker_cooldown", warnings, False),
            "resend_delay": _number(resend_delay, 0.5, 0, 60, "resend_delay", warnings, False),
        }
        max_bytes = _number(max_event_bytes, P.DEFAULT_MAX_EVENT_PAYLOAD_BYTES, P.MIN_MAX_EVENT_PAYLOAD_BYTES,
                            P.MAX_MAX_EVENT_PAYLOAD_BYTES, "max_event_bytes", warnings)
        rules = _rules(redaction_paths, warnings)
        redactor = Redactor(rules)
        for rule in redactor.malformed:
            warnings.append(f"redaction rule {rule!r} is malformed and protects nothing")
        self._secret: Optional[str] = None
        if journey_id_secret is not None:
            if is_usable_secret(journey_id_secret):
                self._secret = journey_id_secret
            else:
                warnings.append("journey_id_secret must be at least 32 bytes of UTF-8; journey ids are random instead")
        for problem in fatal + warnings:
            self._report(Diagnostic("configuration_error", f"jtrace recorder: {problem}.", {"problem": problem}))
        self._settings = BuilderSettings(
            service=fit_field(service, P.EVENT_FIELD_MAX["service"]), environment=self._environment, redactor=redactor,
            capture_stack=capture_stack is True, max_event_bytes=max_bytes,
            runtime={"language": "python", "version": platform.python_version(),
                     "hostname": fit_field(socket.gethostname(), P.RUNTIME_FIELD_MAX["hostname"]),
                     "processId": os.getpid(), "sdk": {"name": SDK_NAME, "version": SDK_VERSION}},
            deployment=_deployment(deployment, warnings), report=self._report,
        )
        self._delivery: Optional[Delivery] = None
        if not fatal and enabled is not False:
            self._delivery = Delivery(settings, self._counters, self._report)
            self._atexit_timeout = atexit_timeout
            atexit.register(_at_exit, weakref.ref(self))

    # --- journeys ----------------------------------------------------------------------------
    def _journey_id_for(self, entity: Tuple[str, str]) -> str:
        if self._secret is None:
            return random_journey_id()
        derived = derive_journey_id(self._secret, self._environment, entity[0], entity[1])
        if derived is not None:
            return derived
        self._report(Diagnostic("journey_id_not_derived", "An entity or environment holds an unpaired surrogate; the journey id is random."))
        return random_journey_id()

    def start_journey(self, entity: Any, label: Optional[str] = None, aliases: Optional[Dict[str, str]] = None,
                      displayable_aliases: Optional[Iterable[str]] = None, journey_id: Optional[str] = None) -> Journey:
        """A new journey for ``entity`` (``{"type": ..., "id": ...}`` or a ``(type, id)`` pair)."""
        try:
            ent = _entity(entity)
            jid = journey_id if isinstance(journey_id, str) and journey_id else self._journey_id_for(ent)
            return Journey(self, jid, ent, label, aliases, displayable_aliases)
        except Exception:
            return Journey(None, random_journey_id(), ("unknown", "unknown"))

    def continue_journey(self, journey_id: Optional[str] = None, context: Optional[JourneyContext] = None,
                         entity: Any = None, label: Optional[str] = None) -> Journey:
        """The journey a context (from ``extract_http_context``) or a known id names; a new one for
        ``entity`` when no context arrived; a journey that records nothing without either."""
        try:
            if isinstance(context, JourneyContext):
                # A context's own entity wins; a peer context may carry none (docs/sdk.md, "Mixed fleets").
                ent = context.entity if context.entity is not None else _entity(entity)
                return Journey(self, context.journey_id, ent, label, parent_event_id=context.parent_event_id)
            elif isinstance(journey_id, str) and journey_id:
                return Journey(self, journey_id, _entity(entity), label)
            if entity is not None and context is None:
                return self.start_journey(entity, label=label)
        except Exception:
            pass
        return Journey(None, random_journey_id(), ("unknown", "unknown"))

    def across(self, journeys: Iterable[Journey]) -> JourneyGroup:
        """One operation on several journeys: a wrapped function runs once, each journey gets its own event."""
        try:
            return JourneyGroup(journeys)
        except Exception:
            return JourneyGroup(())

    def record(self, journey: Journey, fields: Dict[str, Any]) -> Optional[str]:
        """Called by journeys: builds one envelope and queues it."""
        with self._delivery_lock():
            self._counters["recorded"] += 1
            if self._delivery is None:
                self._counters["dropped"] += 1
                self._counters["dropped_by_cause"]["disabled"] += 1
                return None
        try:
            built = build_envelope(self._settings, journey.journey_id, {"type": journey.entity[0], "id": journey.entity[1]},
                                   journey._take_label(), fields)
        except Exception as error:
            with self._delivery.lock:
                self._delivery.drop(1, "capture_failed")
            self._report(Diagnostic("internal_error", f"An event could not be captured ({type(error).__name__})."))
            return None
        self._delivery.enqueue(built)
        return built.id

    def _delivery_lock(self) -> Any:
        # Read each time: a forked child's delivery has a fresh lock.
        return self._delivery.lock if self._delivery is not None else self._lock

    # --- delivery ----------------------------------------------------------------------------
    def flush(self, timeout: float = 5.0) -> bool:
        """Sends what is queued; True when all of it was settled, False at the timeout. Never raises."""
        try:
            return True if self._delivery is None else self._delivery.flush(_seconds(timeout, 5.0))
        except Exception:
            return False

    def shutdown(self, timeout: float = 5.0) -> bool:
        """Flushes, then stops; what is left at the timeout is dropped and counted. Never raises."""
        try:
            return True if self._delivery is None else self._delivery.shutdown(_seconds(timeout, 5.0))
        except Exception:
            return False

    async def aflush(self, timeout: float = 5.0) -> bool:
        """``flush`` without blocking the event loop (it waits in a worker thread)."""
        import asyncio
        return await asyncio.get_running_loop().run_in_executor(None, self.flush, timeout)

    async def ashutdown(self, timeout: float = 5.0) -> bool:
        import asyncio
        return await asyncio.get_running_loop().run_in_executor(None, self.shutdown, timeout)

    def counters(self) -> Dict[str, Any]:
        with self._delivery_lock():
            copy = dict(self._counters)
            copy["dropped_by_cause"] = dict(self._counters["dropped_by_cause"])
            return copy

    def __enter__(self) -> "Recorder":
        return self

    def __exit__(self, *exc: Any) -> bool:
        self.shutdown()
        return False

    async def __aenter__(self) -> "Recorder":
        return self

    async def __aexit__(self, *exc: Any) -> bool:
        await self.ashutdown()
        return False


def _at_exit(ref: "weakref.ref[Recorder]") -> None:
    recorder = ref()
    if recorder is not None:
        recorder.shutdown(recorder._atexit_timeout)


def _seconds(value: Any, fallback: float) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value == value and abs(value) != float("inf"):
        return max(0.0, float(value))
    return fallback


def _batch_url(endpoint: Any) -> Optional[str]:
    if not isinstance(endpoint, str):
        return None
    try:
        parts = urllib.parse.urlsplit(endpoint.strip())
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    path = parts.path if parts.path.endswith("/") else parts.path + "/"
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path + "v1/events/batch", "", ""))


def _rules(value: Any, warnings: List[str]) -> List[str]:
    if isinstance(value, str):
        warnings.append("redaction_paths must be a list of rules; the one string given is used as a list of one")
        return [value]
    try:
        rules = list(value or ())
    except TypeError:
        warnings.append("redaction_paths must be a list of rules; it is ignored")
        return []
    kept = [rule for rule in rules if isinstance(rule, str)]
    if len(kept) < len(rules):
        warnings.append("redaction_paths holds a rule that is not a string; it protects nothing")
    return kept


def _deployment(value: Any, warnings: List[str]) -> Optional[Dict[str, str]]:
    if value is None:
        return None
    if not isinstance(value, dict):
        warnings.append("deployment must be a dict with git_commit, version or image; it is not sent")
        return None
    out: Dict[str, str] = {}
    for key, wire in (("git_commit", "gitCommit"), ("version", "version"), ("image", "image")):
        field = value.get(key, value.get(wire))
        if field is None:
            continue
        if not isinstance(field, str):
            warnings.append(f"deployment.{key} must be a string; it is not sent")
            continue
        out[wire] = fit_field(field, P.DEPLOYMENT_FIELD_MAX[wire])
    return out


def create_recorder(endpoint: Any = None, api_key: Any = None, service_name: Any = None, environment: Any = None,
                    **options: Any) -> Recorder:
    """A recorder; a bad option is reported (``configuration_error``) and its default used."""
    try:
        return Recorder(endpoint, api_key, service_name, environment, **options)
    except TypeError as error:
        report = _reporter(options.get("on_diagnostic") if callable(options.get("on_diagnostic")) else None)
        report(Diagnostic("configuration_error", f"jtrace recorder: {error}.", {"problem": str(error)}))
        known = {k: v for k, v in options.items() if k in Recorder.__init__.__code__.co_varnames}
        return Recorder(endpoint, api_key, service_name, environment, **known)
