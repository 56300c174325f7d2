"""jtrace: record what happens to a record as it crosses your services (event protocol 0.1)."""

from ._event import Diagnostic, derive_journey_id
from ._journey import Journey, JourneyGroup, Step
from ._propagation import (
    JourneyContext,
    extract_http_context,
    extract_message_context,
    inject_http_headers,
    inject_message_attributes,
    unwrap_message,
    wrap_message,
)
from ._recorder import Recorder, create_recorder
from ._version import SDK_VERSION as __version__

__all__ = [
    "Diagnostic",
    "Journey",
    "JourneyContext",
    "JourneyGroup",
    "Recorder",
    "Step",
    "create_recorder",
    "derive_journey_id",
    "extract_http_context",
    "extract_message_context",
    "inject_http_headers",
    "inject_message_attributes",
    "unwrap_message",
    "wrap_message",
    "__version__",
]
