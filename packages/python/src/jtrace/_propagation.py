"""Carrying a journey from one service to the next: HTTP headers (plain dicts, WSGI environs,
ASGI scopes and header lists, ``email.message``-style objects), queue message attributes, or an
envelope inside a JSON message. Only the journey id, the entity and the sending event travel.

The peer protocol's carriers (``x-wayscribe-*`` headers and the ``_wayscribe`` envelope) are read
too, so a service on jtrace joins journeys started by services still on the peer SDK; they are
written only when asked (``peer_headers=True``).
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass
from typing import Any, Dict, Iterable, Optional, Tuple, TypeVar

from . import _protocol as P
from ._capture import is_well_formed

JOURNEY_HEADER = "x-jtrace-journey-id"
ENTITY_HEADER = "x-jtrace-entity"
PARENT_HEADER = "x-jtrace-parent-event-id"
ENVELOPE_KEY = "jtrace"
PEER_JOURNEY_HEADER = "x-wayscribe-journey-id"
PEER_ENTITY_TYPE_HEADER = "x-wayscribe-entity-type"
PEER_ENTITY_ID_HEADER = "x-wayscribe-entity-id"
PEER_ENVELOPE_KEY = "_wayscribe"
# The peer's carrier values: unencoded, 1-256 characters of this set, journey ids starting `jrn_`.
_PEER_VALUE = re.compile("[A-Za-z0-9_.:@=+-]{1,256}\\Z")

T = TypeVar("T")


@dataclass(frozen=True)
class JourneyContext:
    journey_id: str
    entity: Optional[Tuple[str, str]]
    parent_event_id: Optional[str] = None


def _quote(text: str) -> str:
    # encodeURIComponent's set, so the Node SDK reads what this writes and the other way round.
    return urllib.parse.quote(text, safe="-_.!~*'()")


def _unquote(text: str) -> Optional[str]:
    try:
        value = urllib.parse.unquote(text, errors="strict")
    except (UnicodeDecodeError, ValueError):
        return None
    return value if is_well_formed(value) else None


def _fits(text: str, maximum: int, nul_allowed: bool) -> bool:
    return text != "" and len(text) <= maximum and is_well_formed(text) and (nul_allowed or "\x00" not in text)


def context_fields(context: JourneyContext, peer: bool = False) -> Dict[str, str]:
    fields: Dict[str, str] = {JOURNEY_HEADER: _quote(context.journey_id)}
    if context.entity is not None:
        fields[ENTITY_HEADER] = f"{_quote(context.entity[0])};{_quote(context.entity[1])}"
    if context.parent_event_id:
        fields[PARENT_HEADER] = _quote(context.parent_event_id)
    if peer and _peer_ok(context.journey_id, True):
        fields[PEER_JOURNEY_HEADER] = context.journey_id
        if context.entity is not None and all(_peer_ok(part, False) for part in context.entity):
            fields[PEER_ENTITY_TYPE_HEADER] = context.entity[0]
            fields[PEER_ENTITY_ID_HEADER] = context.entity[1]
    return fields


def _peer_ok(value: Any, journey: bool) -> bool:
    return isinstance(value, str) and _PEER_VALUE.match(value) is not None and (not journey or value.startswith("jrn_"))


def _text(value: Any) -> Optional[str]:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("latin-1")
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and value:
        return _text(value[0])
    if isinstance(value, dict) and isinstance(value.get("StringValue"), str):
        return value["StringValue"]  # an SQS message attribute: {"DataType": "String", "StringValue": ...}
    return None


def _header_pairs(source: Any) -> Iterable[Tuple[str, Any]]:
    """(lower-case name, value) pairs of any header shape this module reads."""
    if isinstance(source, dict) and isinstance(source.get("headers"), (list, tuple)) and source.get("type") in ("http", "websocket"):
        source = source["headers"]  # an ASGI scope
    if isinstance(source, (list, tuple)):
        for pair in source:
            if isinstance(pair, (list, tuple)) and len(pair) == 2:
                name = _text(pair[0])
                if name is not None:
                    yield name.lower(), pair[1]
        return
    items = getattr(source, "items", None)
    if items is None:
        return
    for key, value in items():
        name = _text(key)
        if name is None:
            continue
        if name.startswith("HTTP_"):  # a WSGI environ
            yield name[5:].lower().replace("_", "-"), value
        else:
            yield name.lower(), value


def _read(source: Any, names: Tuple[str, ...]) -> Dict[str, str]:
    found: Dict[str, str] = {}
    for name, value in _header_pairs(source):
        if name in names and name not in found:
            text = _text(value)
            if text is not None:
                # A header sent twice reads "a, b"; encoded values hold no comma.
                found[name] = text.split(",")[0].strip()
    return found


def _own_context(found: Dict[str, str]) -> Optional[JourneyContext]:
    journey_text, entity_text = found.get(JOURNEY_HEADER), found.get(ENTITY_HEADER)
    if journey_text is None or entity_text is None:
        return None
    journey_id = _unquote(journey_text)
    if journey_id is None or not _fits(journey_id, P.EVENT_FIELD_MAX["journeyId"], False):
        return None
    parts = entity_text.split(";")
    if len(parts) != 2:
        return None
    kind, ident = _unquote(parts[0]), _unquote(parts[1])
    if kind is None or ident is None or not _fits(kind, P.ENTITY_FIELD_MAX["type"], False) or not _fits(ident, P.ENTITY_FIELD_MAX["id"], True):
        return None
    parent_text = found.get(PARENT_HEADER)
    parent = _unquote(parent_text) if parent_text is not None else None
    if parent is not None and not _fits(parent, P.EVENT_FIELD_MAX["parentEventId"], False):
        parent = None
    return JourneyContext(journey_id, (kind, ident), parent)


def _peer_context(journey_id: Any, kind: Any, ident: Any) -> Optional[JourneyContext]:
    if not _peer_ok(journey_id, True) or len(journey_id) > P.EVENT_FIELD_MAX["journeyId"]:
        return None
    entity = (kind, ident) if _peer_ok(kind, False) and _peer_ok(ident, False) and len(kind) <= P.ENTITY_FIELD_MAX["type"] else None
    return JourneyContext(journey_id, entity)


_ALL = (JOURNEY_HEADER, ENTITY_HEADER, PARENT_HEADER, PEER_JOURNEY_HEADER, PEER_ENTITY_TYPE_HEADER, PEER_ENTITY_ID_HEADER)


def extract_http_context(headers: Any) -> Optional[JourneyContext]:
    """The journey carried by incoming headers (jtrace's own first, then the peer's), or None."""
    try:
        found = _read(headers, _ALL)
        own = _own_context(found)
        if own is not None:
            return own
        return _peer_context(found.get(PEER_JOURNEY_HEADER), found.get(PEER_ENTITY_TYPE_HEADER), found.get(PEER_ENTITY_ID_HEADER))
    except Exception:
        return None


def inject_http_headers(headers: T, journey: Any, *, peer_headers: bool = False) -> T:
    """Adds the journey's headers to a dict, or (name, value) pairs to an ASGI-style list; returns it."""
    try:
        fields = context_fields(journey.context(), peer_headers)
        if isinstance(headers, list):
            as_bytes = any(isinstance(pair, (list, tuple)) and pair and isinstance(pair[0], bytes) for pair in headers)
            for name, value in fields.items():
                headers.append((name.encode("latin-1"), value.encode("latin-1")) if as_bytes else (name, value))
        elif hasattr(headers, "__setitem__"):
            for name, value in fields.items():
                headers[name] = value  # type: ignore[index]
    except Exception:
        pass  # a read-only carrier: the request goes without the journey
    return headers


def inject_message_attributes(attributes: T, journey: Any, *, peer_headers: bool = False) -> T:
    return inject_http_headers(attributes, journey, peer_headers=peer_headers)


_PEER_ATTRIBUTES = ("wayscribejourneyid", "wayscribeentitytype", "wayscribeentityid")


def extract_message_context(attributes: Any) -> Optional[JourneyContext]:
    """The journey in queue message attributes (SQS, Pub/Sub, AMQP or Kafka headers as a dict):
    jtrace's names, else the peer's (``wayscribeJourneyId``, ``wayscribeEntityType``, ``wayscribeEntityId``)."""
    context = extract_http_context(attributes)
    if context is not None:
        return context
    try:
        found = _read(attributes, _PEER_ATTRIBUTES)
        return _peer_context(*(found.get(name) for name in _PEER_ATTRIBUTES))
    except Exception:
        return None


def wrap_message(payload: Any, journey: Any) -> Dict[str, Any]:
    """``{"jtrace": {...}, "payload": payload}``: a JSON message carrying the journey beside its payload."""
    try:
        fields = context_fields(journey.context())
    except Exception:
        fields = {}
    return {ENVELOPE_KEY: fields, "payload": payload}


def unwrap_message(message: Any) -> Tuple[Optional[JourneyContext], Any]:
    """Opens a ``wrap_message`` message or the peer's ``{"_wayscribe": {...}, "data": ...}``."""
    try:
        if isinstance(message, dict):
            if ENVELOPE_KEY in message and "payload" in message:
                fields = message[ENVELOPE_KEY]
                return (extract_http_context(fields) if isinstance(fields, dict) else None), message["payload"]
            if PEER_ENVELOPE_KEY in message and "data" in message:
                carried = message[PEER_ENVELOPE_KEY]
                context = None
                if isinstance(carried, dict):
                    context = _peer_context(carried.get("journeyId"), carried.get("entityType"), carried.get("entityId"))
                return context, message["data"]
    except Exception:
        pass
    return None, message
