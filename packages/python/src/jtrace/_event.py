"""One protocol 0.1 envelope from a recorded step: capture, redaction with the server's rules,
error masking, then fitting to the limits; serialized once, when the step is recorded."""

from __future__ import annotations

import datetime
import hashlib
import hmac
import math
import traceback
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Set

from . import _protocol as P
from ._capture import (
    ROOT_LEVEL, UNCAPTURABLE, dumps, fit_aliases, fit_envelope_size, fit_error_message, fit_field, fit_label,
    fit_metadata, is_missing, is_well_formed, storable_text, timestamp_text, to_wire_value,
)
from ._masking import is_secret_looking_name, mask_credential_text
from ._rules import REDACTED, Redactor

MIN_JOURNEY_ID_SECRET_BYTES = 32
_DERIVATION_LABEL = "journey-id/v1"


def random_journey_id() -> str:
    return f"jrn_{uuid.uuid4()}"


def new_event_id() -> str:
    return f"evt_{uuid.uuid4()}"


def derive_journey_id(secret: str, environment: str, entity_type: str, entity_id: str) -> Optional[str]:
    """Event protocol 4.6: ``jrn_`` and 32 hex of HMAC-SHA256 over length-prefixed UTF-8 fields."""
    if not all(is_well_formed(part) for part in (environment, entity_type, entity_id)):
        return None
    mac = hmac.new(secret.encode("utf-8"), digestmod=hashlib.sha256)
    for part in (_DERIVATION_LABEL, environment, entity_type, entity_id):
        data = part.encode("utf-8")
        mac.update(len(data).to_bytes(4, "big") + data)
    return "jrn_" + mac.hexdigest()[:32]


def is_usable_secret(secret: Any) -> bool:
    return isinstance(secret, str) and is_well_formed(secret) and len(secret.encode("utf-8")) >= MIN_JOURNEY_ID_SECRET_BYTES


@dataclass
class Diagnostic:
    kind: str
    message: str
    detail: Optional[Dict[str, Any]] = None


@dataclass
class BuilderSettings:
    service: str
    environment: str
    redactor: Redactor
    capture_stack: bool
    max_event_bytes: int
    runtime: Dict[str, Any]
    deployment: Optional[Dict[str, Any]]
    report: Callable[[Diagnostic], None]
    reported_names: Set[str] = field(default_factory=set)


@dataclass
class Built:
    id: str
    name: str
    json: str


_secret_cache: Dict[str, bool] = {}


def _looks_secret(key: str) -> bool:
    verdict = _secret_cache.get(key)
    if verdict is None:
        verdict = is_secret_looking_name(key)
        if len(_secret_cache) >= 10_000:
            _secret_cache.clear()
        _secret_cache[key] = verdict
    return verdict


def _visit_names(settings: BuilderSettings, root: str, node: Any, path: List[str]) -> None:
    if len(path) > 63:
        return
    if isinstance(node, list):
        path.append("[*]")
        for item in node:
            _visit_names(settings, root, item, path)
        path.pop()
    elif isinstance(node, dict):
        for key, item in node.items():
            path.append("." + key)
            if item != REDACTED and _looks_secret(key):
                where = root + "".join(path)
                if (root + " " + where) not in settings.reported_names:
                    settings.reported_names.add(root + " " + where)
                    settings.report(Diagnostic(
                        "unredacted_secret_name",
                        f"A secret-looking name no rule covers was sent as it is: {where}. Add a redaction rule if it holds a secret.",
                        {"field": root, "name": key, "path": where},
                    ))
            _visit_names(settings, root, item, path)
            path.pop()


def captured_root(settings: BuilderSettings, root: str, value: Any) -> Any:
    captured, flagged = to_wire_value(value, ROOT_LEVEL, math.ceil(settings.max_event_bytes / 2), _looks_secret)
    if is_missing(captured) or captured is None:
        return None
    redacted = settings.redactor.redact_in_place(captured)
    if flagged:
        _visit_names(settings, root, redacted, [])
    return redacted


def describe_error(error: Any, settings: BuilderSettings) -> Dict[str, Any]:
    picked: Dict[str, Any] = {}
    if isinstance(error, BaseException):
        picked["type"] = type(error).__name__ or "Error"
        try:
            picked["message"] = str(error)
        except Exception:
            picked["message"] = UNCAPTURABLE
        code = getattr(error, "code", None)
        if code is None and isinstance(getattr(error, "errno", None), int):
            code = error.errno  # type: ignore[attr-defined]
        if isinstance(code, (str, int)) and not isinstance(code, bool):
            picked["code"] = str(code)
        if settings.capture_stack:
            try:
                picked["stack"] = "".join(traceback.format_exception(type(error), error, error.__traceback__))
            except Exception:
                pass
    elif isinstance(error, str):
        picked["message"] = error
    else:
        picked["type"] = type(error).__name__
        try:
            captured, _ = to_wire_value(error)
            picked["message"] = str(error) if is_missing(captured) else dumps(settings.redactor.redact(captured))
        except Exception:
            picked["message"] = "Unreadable error"
    redacted = settings.redactor.redact(picked)
    out: Dict[str, Any] = {}
    if isinstance(redacted.get("type"), str):
        out["type"] = fit_field(redacted["type"], P.ERROR_FIELD_MAX["type"]) or "Error"
    out["message"] = fit_error_message(mask_credential_text(str(redacted.get("message"))))
    if isinstance(redacted.get("code"), str):
        out["code"] = fit_field(redacted["code"], P.ERROR_FIELD_MAX["code"])
    if isinstance(redacted.get("stack"), str):
        out["stack"] = fit_field(mask_credential_text(redacted["stack"]), P.ERROR_FIELD_MAX["stack"])
    return out


def now_iso() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _timestamp(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, datetime.datetime):
        return timestamp_text(value)
    return now_iso()


_LINKS = (("parent_event_id", "parentEventId"), ("message_id", "messageId"), ("correlation_id", "correlationId"))


def build_envelope(settings: BuilderSettings, journey_id: str, entity: Dict[str, str], label: Optional[str],
                   fields: Dict[str, Any]) -> Built:
    operation = fields["operation"]
    event: Dict[str, Any] = {
        "id": new_event_id(),
        "journeyId": journey_id,
        "environment": settings.environment,
        "service": settings.service,
        "entity": {
            # A type of only U+0000 is empty once made storable.
            "type": fit_field(str(entity["type"]), P.ENTITY_FIELD_MAX["type"]) or "unknown",
            "id": storable_text(str(entity["id"]), True),
        },
        "operation": operation,
        "name": fit_field(str(fields.get("name") or ""), P.EVENT_FIELD_MAX["name"]) or operation,
        "timestamp": _timestamp(fields.get("timestamp")),
    }
    fitted_label = fit_label(label)
    if fitted_label is not None:
        event["journeyLabel"] = fitted_label
    if fields.get("aliases") is not None or fields.get("displayable_aliases") is not None:
        aliases, displayable = fit_aliases(fields.get("aliases"), fields.get("displayable_aliases"))
        if aliases is not None:
            event["aliases"] = aliases
        if displayable is not None:
            event["displayableAliases"] = displayable
    duration = fields.get("duration_ms")
    if isinstance(duration, (int, float)) and not isinstance(duration, bool) and math.isfinite(duration):
        event["durationMs"] = min(P.MAX_DURATION_MS, max(0, round(duration)))
    for key, wire in _LINKS:
        value = fields.get(key)
        if isinstance(value, str):
            event[wire] = fit_field(value, P.EVENT_FIELD_MAX[wire])
    for root in ("input", "output"):
        if root in fields:
            captured = captured_root(settings, root, fields[root])
            if captured is not None:
                event[root] = captured
    if fields.get("error") is not None:
        event["error"] = describe_error(fields["error"], settings)
    event["runtime"] = settings.runtime
    if settings.deployment is not None:
        event["deployment"] = settings.deployment
    if fields.get("metadata") is not None:
        metadata = captured_root(settings, "metadata", fields["metadata"])
        if isinstance(metadata, dict):
            event["metadata"] = fit_metadata(metadata)
    text = fit_envelope_size({"protocolVersion": P.PROTOCOL_VERSION, "event": event}, settings.max_event_bytes)
    return Built(event["id"], event["name"], text)
