"""Host values to JSON the server accepts (event protocol 9.1), and fitting to its limits.

Strings are measured as the server measures them: UTF-16 units for payload strings (9.1),
code points for fields (2.2). The host's value is only read, never changed.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import decimal
import enum
import json
import math
import re
import uuid
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import _protocol as P

CIRCULAR = "[CIRCULAR]"
# A payload holding a value that could not be read (a property or mapping that raises, a
# projection that raises) is replaced whole: with a hole in it, it would read as complete.
UNCAPTURABLE = "[UNCAPTURABLE]"
# Also what a payload deeper than the envelope allows becomes (9.1): it cannot be sent whole.
PAYLOAD_TOO_LARGE = "[PAYLOAD_TOO_LARGE]"
KEY_TOO_LONG = "[KEY_TOO_LONG]"
MESSAGE_TRUNCATED = "[TRUNCATED]"
ELLIPSIS = "\u2026"
ROOT_LEVEL = 2
# Python ints beyond a double's exact range are sent as text, as the Node SDK sends a BigInt.
_SAFE_INTEGER = 2**53 - 1
# Strings this short never need truncating (a code point is at most two UTF-16 units).
_SHORT = P.MAX_STRING_UNITS // 2
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def storable_text(text: str, nul_allowed: bool = False) -> str:
    """Text the server stores in the clear (2.7 step 6): an unpaired surrogate becomes U+FFFD and
    U+0000 is removed (cases sdk/lone-surrogate and sdk/nul-byte); ``nul_allowed`` keeps U+0000
    where the server encrypts (entity id, alias values)."""
    if text.isascii():
        return text if "\x00" not in text else text.replace("\x00", "") if not nul_allowed else text
    if _UNSTORABLE.search(text) is None:
        return text
    fixed = _SURROGATE.sub("\ufffd", text)
    return fixed if nul_allowed else fixed.replace("\x00", "")


def timestamp_text(value: datetime.datetime) -> str:
    """A protocol timestamp: UTC, milliseconds, ``Z`` (a naive datetime is taken as UTC)."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=datetime.timezone.utc)
    return value.astimezone(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def is_well_formed(text: str) -> bool:
    return _SURROGATE.search(text) is None


def utf16_units(text: str) -> int:
    return len(text) + len(_ASTRAL.findall(text)) if len(text) * 2 > P.MAX_STRING_UNITS else len(text)


def _marker(removed: int) -> str:
    return f"[TRUNCATED: {removed} characters removed]"


def truncate_string(text: str, maximum: int = P.MAX_STRING_UNITS) -> str:
    """At most ``maximum`` UTF-16 units, marker included; a CRLF before it when the text has CRLF."""
    units = len(text) + len(_ASTRAL.findall(text))
    if units <= maximum:
        return text
    separator = "\r\n" if "\r\n" in text else ""
    keep = maximum - len(separator) - len(_marker(units))
    keep = maximum - len(separator) - len(_marker(units - keep))
    encoded = text.encode("utf-16-le", "surrogatepass")
    head = encoded[: keep * 2]
    last = int.from_bytes(head[-2:], "little") if head else 0
    if 0xD800 <= last <= 0xDBFF:
        keep -= 1
        head = head[:-2]
    return head.decode("utf-16-le", "surrogatepass") + separator + _marker(units - keep)


def cut_with_marker(text: str, maximum: int, marker: str) -> str:
    storable = storable_text(text)
    if len(storable) <= maximum:
        return storable
    return storable[: maximum - len(marker)] + marker


def fit_field(text: str, maximum: int) -> str:
    return cut_with_marker(text, maximum, ELLIPSIS)


def fit_label(label: Any) -> Optional[str]:
    if not isinstance(label, str):
        return None
    # Judged once storable: a label of U+0000 and spaces is blank then.
    storable = storable_text(label)
    if storable.strip() == "":
        return None
    return cut_with_marker(storable, P.EVENT_FIELD_MAX["journeyLabel"], ELLIPSIS)


def fit_error_message(message: str) -> str:
    # Checked once storable: a message of only U+0000 is empty then.
    return cut_with_marker(storable_text(message) or "Error", P.ERROR_FIELD_MAX["message"], MESSAGE_TRUNCATED)


def fit_aliases(aliases: Any, displayable: Any) -> Tuple[Optional[Dict[str, str]], Optional[List[str]]]:
    fitted: Optional[Dict[str, str]] = None
    if isinstance(aliases, dict):
        fitted = {}
        for kind, value in aliases.items():
            if not isinstance(kind, str) or not isinstance(value, str):
                continue
            if len(kind) > P.ALIAS_TYPE_MAX or len(value) > P.ALIAS_VALUE_MAX:
                continue
            storable = storable_text(kind)
            if storable:  # a type of only U+0000 is empty once storable, which the server refuses
                fitted[storable] = storable_text(value, True)
    listed: Optional[List[str]] = None
    if isinstance(displayable, (list, tuple)):
        listed = [storable_text(t) for t in displayable if isinstance(t, str) and len(t) <= P.ALIAS_TYPE_MAX]
        listed = [t for t in listed if t]
        listed = listed[: P.MAX_DISPLAYABLE_ALIASES]
    return fitted, listed


def fit_metadata(metadata: Dict[str, Any]) -> Dict[str, Any]:
    dropped = 0
    out: Dict[str, Any] = {}
    for key, value in metadata.items():
        if len(key) > P.METADATA_KEY_MAX:
            dropped += 1
        else:
            out[key] = value
    if dropped:
        out[KEY_TOO_LONG] = dropped
    return out


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def fit_envelope_size(envelope: Dict[str, Any], max_bytes: int) -> str:
    """The larger payload becomes ``[PAYLOAD_TOO_LARGE]``, then the other, then metadata goes (9.1)."""
    text = dumps(envelope)
    if len(text) * 3 <= max_bytes or len(text.encode("utf-8")) <= max_bytes:
        return text
    size = len(text.encode("utf-8"))
    event = envelope["event"]
    sizes = [(len(dumps(event[k]).encode("utf-8")), k) for k in ("input", "output") if k in event]
    for nbytes, key in sorted(sizes, key=lambda pair: -pair[0]):
        event[key] = PAYLOAD_TOO_LARGE
        size -= nbytes - len(dumps(PAYLOAD_TOO_LARGE))
        if size <= max_bytes:
            return dumps(envelope)
    event.pop("metadata", None)
    return dumps(envelope)


class _Walk:
    __slots__ = ("ancestors", "flag_key", "flagged", "values_left", "chars_left", "unreadable")

    def __init__(self, flag_key: Optional[Callable[[str], bool]], max_values: int) -> None:
        self.ancestors: List[int] = []
        self.flag_key = flag_key
        self.flagged = False
        self.values_left = max_values
        # Every value takes at least 2 bytes of JSON (max_values is half the envelope), every
        # character at least one: text past the whole envelope cannot fit, so the copy stops there.
        self.chars_left = max_values * 2
        self.unreadable = False

    def stop_unreadable(self) -> Any:
        """A value could not be read: the walk stops and the payload becomes UNCAPTURABLE."""
        self.unreadable = True
        self.values_left = -1
        return _MISSING


_MISSING = object()


def to_wire_value(value: Any, level: int = ROOT_LEVEL, max_values: int = P.DEFAULT_MAX_EVENT_PAYLOAD_BYTES // 2,
                  flag_key: Optional[Callable[[str], bool]] = None) -> Tuple[Any, bool]:
    """A JSON-safe copy (``_MISSING`` to leave out) and whether ``flag_key`` held for a key."""
    walk = _Walk(flag_key, max_values)
    captured = _capture(value, level, walk)
    if walk.unreadable:
        return UNCAPTURABLE, walk.flagged
    if walk.values_left < 0:
        return PAYLOAD_TOO_LARGE, walk.flagged
    return captured, walk.flagged


def is_missing(value: Any) -> bool:
    return value is _MISSING


def _capture(value: Any, level: int, walk: _Walk) -> Any:
    walk.values_left -= 1
    if walk.values_left < 0:
        return _MISSING
    kind = type(value)
    if kind is str:
        text = storable_text(truncate_string(value) if len(value) * 2 > P.MAX_STRING_UNITS else value)
        walk.chars_left -= len(text)
        if walk.chars_left < 0:
            walk.values_left = -1
            return _MISSING
        return text
    if value is None or kind is bool:
        return value
    if kind is int:
        return value if -_SAFE_INTEGER <= value <= _SAFE_INTEGER else str(value)
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is dict:
        return _container(value, level, walk, lambda: value.items(), True)
    if kind is list or kind is tuple:
        return _container(value, level, walk, lambda: value, False)
    try:
        return _special(value, level, walk)
    except Exception:
        return walk.stop_unreadable()


def _special(value: Any, level: int, walk: _Walk) -> Any:
    if isinstance(value, enum.Enum):
        return _capture(value.value, level, walk)
    if isinstance(value, str):
        return _capture(str.__str__(value), level, walk)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return _capture(int(value), level, walk)
    if isinstance(value, float):
        return _capture(float(value), level, walk)
    if isinstance(value, datetime.datetime):
        # As the protocol writes instants, so the same moment reads alike from every SDK.
        return timestamp_text(value)
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, (decimal.Decimal, uuid.UUID)):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"[{type(value).__name__}: {memoryview(value).nbytes} bytes]"
    if callable(value) and not isinstance(value, BaseException):
        return _MISSING
    if isinstance(value, BaseException):
        fields = {"name": type(value).__name__, "message": str(value)}
        fields.update({k: v for k, v in _attributes(value).items() if k not in fields})
        return _container(value, level, walk, lambda: fields.items(), True)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _container(value, level, walk, lambda: ((f.name, getattr(value, f.name)) for f in dataclasses.fields(value)), True)
    if isinstance(value, dict) or hasattr(value, "items") and hasattr(value, "keys"):
        return _container(value, level, walk, lambda: value.items(), True)
    if hasattr(value, "_asdict"):
        return _container(value, level, walk, lambda: value._asdict().items(), True)
    if isinstance(value, (list, tuple, set, frozenset)):
        return _container(value, level, walk, lambda: value, False)
    attributes = _attributes(value)
    if attributes:
        return _container(value, level, walk, lambda: attributes.items(), True)
    return _capture(str(value), level, walk)


def _attributes(value: Any) -> Dict[str, Any]:
    found: Dict[str, Any] = {}
    try:
        found.update({k: v for k, v in vars(value).items() if not k.startswith("_")})
    except TypeError:
        pass
    for slot in getattr(type(value), "__slots__", ()) or ():
        if isinstance(slot, str) and not slot.startswith("_") and hasattr(value, slot):
            found[slot] = getattr(value, slot)
    return found


def _container(value: Any, level: int, walk: _Walk, members: Callable[[], Any], mapping: bool) -> Any:
    marker = id(value)
    if marker in walk.ancestors:
        return CIRCULAR
    if level >= P.MAX_DEPTH:
        # Deeper than the envelope allows: the payload is replaced whole, like one too large.
        walk.values_left = -1
        return _MISSING
    walk.ancestors.append(marker)
    try:
        # Leaves (most of a payload) are copied inline: a call per leaf is most of the cost in Python.
        # Each does what _capture does for it, budgets included.
        flag_key = walk.flag_key
        if mapping:
            out: Dict[str, Any] = {}
            width = 0
            for key, item in members():
                if width >= P.MAX_WIDTH or walk.values_left < 0:
                    break
                kind = type(item)
                if kind is str and len(item) <= _SHORT:
                    walk.values_left -= 1
                    captured = item if item.isascii() and "\x00" not in item else storable_text(item)
                    walk.chars_left -= len(captured)
                    if walk.values_left < 0 or walk.chars_left < 0:
                        walk.values_left = -1
                        break
                elif item is None or kind is bool or (kind is int and -_SAFE_INTEGER <= item <= _SAFE_INTEGER):
                    walk.values_left -= 1
                    if walk.values_left < 0:
                        break
                    captured = item
                else:
                    captured = _capture(item, level + 1, walk)
                    if captured is _MISSING:
                        continue
                if type(key) is str and key.isascii() and "\x00" not in key:
                    name = key
                else:
                    name = storable_text(key if type(key) is str else _key_text(key))
                if flag_key is not None and not walk.flagged and flag_key(name):
                    walk.flagged = True
                out[name] = captured
                width += 1
            return out
        items: List[Any] = []
        append = items.append
        for item in members():
            if len(items) >= P.MAX_WIDTH or walk.values_left < 0:
                break
            kind = type(item)
            if kind is str and len(item) <= _SHORT:
                walk.values_left -= 1
                captured = item if item.isascii() and "\x00" not in item else storable_text(item)
                walk.chars_left -= len(captured)
                if walk.values_left < 0 or walk.chars_left < 0:
                    walk.values_left = -1
                    break
                append(captured)
            elif item is None or kind is bool or (kind is int and -_SAFE_INTEGER <= item <= _SAFE_INTEGER):
                walk.values_left -= 1
                if walk.values_left < 0:
                    break
                append(item)
            else:
                captured = _capture(item, level + 1, walk)
                append(None if captured is _MISSING else captured)
        return items
    except Exception:
        return walk.stop_unreadable()
    finally:
        walk.ancestors.pop()


def _key_text(key: Any) -> str:
    if isinstance(key, bytes):
        return base64.b64encode(key).decode("ascii") if not key.isascii() else key.decode("ascii")
    return str(key)
