"""Reads cases as JSON on stdin and prints what the Python SDK's rules make of them, so that
packages/python/test/rules-parity.test.ts can compare every answer with the server's own code."""

import copy
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from jtrace._capture import is_missing, to_wire_value, truncate_string  # noqa: E402
from jtrace._propagation import JourneyContext, context_fields, extract_http_context  # noqa: E402
from jtrace._masking import is_secret_looking_name, mask_credential_text  # noqa: E402
from jtrace._rules import Redactor, is_valid_rule  # noqa: E402

cases = json.load(sys.stdin)


def extracted(headers):
    context = extract_http_context(headers)
    if context is None:
        return None
    out = {"journeyId": context.journey_id}
    if context.entity is not None:
        out["entity"] = {"type": context.entity[0], "id": context.entity[1]}
    if context.parent_event_id is not None:
        out["parentEventId"] = context.parent_event_id
    return out


print(json.dumps({
    "mask": [mask_credential_text(text) for text in cases["mask"]],
    "names": [is_secret_looking_name(name) for name in cases["names"]],
    "rules": [is_valid_rule(rule) for rule in cases["rules"]],
    "redact": [Redactor(case["rules"]).redact(case["value"]) for case in cases["redact"]],
    "redactInPlace": [Redactor(case["rules"]).redact_in_place(copy.deepcopy(case["value"])) for case in cases["redact"]],
    "inject": [context_fields(JourneyContext(c["journeyId"], (c["entity"]["type"], c["entity"]["id"]), c.get("parentEventId")))
               for c in cases["contexts"]],
    "extract": [extracted(headers) for headers in cases["headers"]],
    "capture": [None if is_missing(c) else c for c in (to_wire_value(value)[0] for value in cases["capture"])],
    "truncate": [truncate_string(text, 64) for text in cases["truncate"]],
}))
