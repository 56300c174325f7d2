"""Carrying a journey from one service to the next: HTTP headers (plain dicts, WSGI environs,
ASGI scopes and header lists, ``email.message``-style objects), queue message attributes, or an
envelope inside a JSON message. Only the journey id, the entity and the sending event travel.

The peer protocol's carriers (``x-wayscribe-*`` headers and the ``_wayscribe`` envelope) are read
too, so a service on jtrace joins journeys started by services still on the peer SDK; they are
written only when asked (``peer=True``, or the recorder's ``peer_propagation``).
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
PEER_JOURNEY_HEADER = P.PEER_HEADERS["journeyId"]
PEER_ENTITY_TYPE_HEADER = P.PEER_HEADERS["entityType"]
PEER_ENTITY_ID_HEADER = P.PEER_HEADERS["entityId"]
PEER_ENVELOPE_KEY = P.PEER_ENVELOPE_KEY
# The peer's carrier values (src/protocol/peer-propagation.ts): unencoded, of one character set.
_PEER_VALUE = re.compile(P.PEER_VALUE_PATTERN[0])

T = TypeVar("T")


@dataclass(frozen=True)
class JourneyContext:
    journey_id: str
    entity: Optional[Tuple[str, str]]
    parent_event_id: Optional[str] = None


def _quote(text: str) -> str:
    # encodeURIComponent's set, so the Node SDK reads what this writes and the other way round.
    return urllib.parse.quote(text, safe="-_.!~*'()")


_BAD_ESCAPE = re.compile("%(?![0-9A-Fa-f]{2})")


def _unquote(text: str) -> Optional[str]:
    # decodeURIComponent's verdicts: a stray `%` or bytes that are not UTF-8 make the value unusable.
    if _BAD_ESCAPE.search(text):
        return None
    try:
        value = urllib.parse.unquote(text, errors="strict")
    except (UnicodeDecodeError, ValueError):
        return None
    return value if is_well_formed(value) else None


def _fits(text: str, maximum: int, nul_allowed: bool) -> bool:
    return text != "" and len(text) <= maximum and is_well_formed(text) and (nul_allowed or "\x00" not in text)


def context_fields(context: JourneyContext, peer: bool = False, peer_names: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    fields: Dict[str, str] = {JOURNEY_HEADER: _quote(context.journey_id)}
    if context.entity is not None:
        fields[ENTITY_HEADER] = f"{_quote(context.entity[0])};{_quote(context.entity[1])}"
    if context.parent_event_id:
        fields[PARENT_HEADER] = _quote(context.parent_event_id)
    names = peer_names or P.PEER_HEADERS
    if peer and _peer_ok(context.journey_id, True):
        # Only what the peer would read goes; anything else is left out, never altered.
        fields[names["journeyId"]] = context.journey_id
        if context.entity is not None and all(_peer_ok(part, False) for part in context.entity):
            fields[names["entityType"]] = context.entity[0]
            fields[names["entityId"]] = context.entity[1]
    return fields


def _peer_ok(value: Any, journey: bool) -> bool:
    return isinstance(value, str) and _PEER_VALUE.match(value) is not None and (not journey or value.startswith(P.PEER_JOURNEY_PREFIX))


def _text(value: Any) -> Optional[str]:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("latin-1")
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and value:
        return _text(value[0])
    if isinstance(value, dict):
        # An SQS or SNS attribute {"DataType", "StringValue"}, or a Lambda SQS event's {"stringValue"}.
        text = value.get("StringValue", value.get("stringValue"))
        return text if isinstance(text, str) else None
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
    """Header values by lower-case name: the first of a list, and the part before a comma (a
    header sent twice reads "a, b"), without the spaces and tabs HTTP allows around it."""
    found: Dict[str, str] = {}
    for name, value in _header_pairs(source):
        if name in names and name not in found:
            text = _text(value)
            if text is not None:
                found[name] = text.split(",")[0].strip(" \t")
    return found


def _read_attributes(source: Any, names: Tuple[str, ...]) -> Dict[str, str]:
    """Peer queue attributes: names compared with case, values taken whole."""
    found: Dict[str, str] = {}
    if isinstance(source, dict):
        for name in names:
            text = _text(source.get(name)) if name in source else None
            if text is not None:
                found[name] = text
    return found


def _trim(text: Optional[str]) -> Optional[str]:
    # jtrace's own values are URI-encoded: surrounding white space of any kind is not theirs.
    return text.strip() if text is not None else None


def _own_context(found: Dict[str, str]) -> Optional[JourneyContext]:
    journey_text, entity_text = (_trim(found.get(name)) for name in (JOURNEY_HEADER, ENTITY_HEADER))
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
    parent_text = _trim(found.get(PARENT_HEADER))
    parent = _unquote(parent_text) if parent_text is not None else None
    if parent is not None and not _fits(parent, P.EVENT_FIELD_MAX["parentEventId"], False):
        parent = None
    return JourneyContext(journey_id, (kind, ident), parent)


def _peer_context(journey_id: Any, kind: Any, ident: Any) -> Optional[JourneyContext]:
    if not _peer_ok(journey_id, True) or len(journey_id) > P.EVENT_FIELD_MAX["journeyId"]:
        return None
    usable = _peer_ok(kind, False) and _peer_ok(ident, False)
    entity = (kind, ident) if usable and len(kind) <= P.ENTITY_FIELD_MAX["type"] and len(ident) <= P.ENTITY_FIELD_MAX["id"] else None
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


def _wants_peer(journey: Any, peer: Optional[bool]) -> bool:
    if isinstance(peer, bool):
        return peer
    return getattr(getattr(journey, "_sink", None), "peer_propagation", False) is True


def inject_http_headers(headers: T, journey: Any, *, peer: Optional[bool] = None) -> T:
    """Adds the journey's headers to a dict, or (name, value) pairs to an ASGI-style list; returns it.
    With ``peer=True`` (or the recorder's ``peer_propagation``) the peer protocol's headers go too."""
    try:
        fields = context_fields(journey.context(), _wants_peer(journey, peer))
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


def inject_message_attributes(attributes: T, journey: Any, *, peer: Optional[bool] = None, sqs: bool = False) -> T:
    """The same names as the headers, as string values, or with ``sqs=True`` as SQS attribute
    values ``{"DataType": "String", "StringValue": ...}``; the peer's are its attribute names."""
    try:
        fields = context_fields(journey.context(), _wants_peer(journey, peer), P.PEER_ATTRIBUTES)
        if hasattr(attributes, "__setitem__"):
            for name, value in fields.items():
                attributes[name] = {"DataType": "String", "StringValue": value} if sqs else value  # type: ignore[index]
    except Exception:
        pass
    return attributes


_PEER_ATTRIBUTE_NAMES = tuple(P.PEER_ATTRIBUTES[field] for field in ("journeyId", "entityType", "entityId"))


def extract_message_context(attributes: Any) -> Optional[JourneyContext]:
    """The journey in queue message attributes (SQS, Pub/Sub, AMQP or Kafka headers as a dict):
    jtrace's names first, then the peer's attribute names, then the peer's header names."""
    try:
        found = _read(attributes, _ALL)
        context = _own_context(found)
        if context is None:
            peer = _read_attributes(attributes, _PEER_ATTRIBUTE_NAMES)
            context = _peer_context(*(peer.get(name) for name in _PEER_ATTRIBUTE_NAMES))
        if context is None:
            context = _peer_context(found.get(PEER_JOURNEY_HEADER), found.get(PEER_ENTITY_TYPE_HEADER), found.get(PEER_ENTITY_ID_HEADER))
        return context
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
            carried = message.get(PEER_ENVELOPE_KEY)
            if isinstance(carried, dict):
                # The peer's envelope: its payload is `data`, with or without a usable journey.
                names = P.PEER_ENVELOPE_FIELDS
                context = _peer_context(carried.get(names["journeyId"]), carried.get(names["entityType"]), carried.get(names["entityId"]))
                return context, message.get(P.PEER_ENVELOPE_DATA_KEY)
    except Exception:
        pass
    return None, message
