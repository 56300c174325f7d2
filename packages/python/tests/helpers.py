"""Test helpers: real local HTTP servers standing in for a jtrace server that misbehaves, the
conformance case expansion (event protocol 11.3) and comparison (11.4), and the live server."""

from __future__ import annotations

import json
import os
import re
import secrets
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Tuple

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SERVER_URL = os.environ.get("JTRACE_TEST_URL", "")
API_KEY = os.environ.get("JTRACE_TEST_API_KEY", "")
CONFORMANCE_KEY = os.environ.get("JTRACE_TEST_CONFORMANCE_KEY", "")


class Receiver:
    """A real HTTP server on 127.0.0.1; ``behave(handler, events)`` answers each batch."""

    def __init__(self, behave: Optional[Callable[[BaseHTTPRequestHandler, List[Dict[str, Any]]], None]] = None) -> None:
        self.batches: List[List[Dict[str, Any]]] = []
        self.requests = 0
        self.behave = behave or accept_all
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                events = [envelope["event"] for envelope in body.get("events", [])]
                receiver.requests += 1
                receiver.batches.append(events)
                receiver.behave(self, events)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def events(self) -> List[Dict[str, Any]]:
        return [event for batch in self.batches for event in batch]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def answer(handler: BaseHTTPRequestHandler, status: int, body: Any, headers: Optional[Dict[str, str]] = None) -> None:
    data = json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(data)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(data)


def accept_all(handler: BaseHTTPRequestHandler, events: List[Dict[str, Any]]) -> None:
    answer(handler, 200, {"data": {"results": [{"status": "accepted", "duplicate": False} for _ in events]}})


def post_json(url: str, key: str, body: Any) -> Tuple[int, Any]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"authorization": f"Bearer {key}", "content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def get_json(url: str, key: str) -> Tuple[int, Any]:
    request = urllib.request.Request(url, headers={"authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def dry_run(key: str, events: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    status, body = post_json(f"{SERVER_URL}/v1/events/batch?dryRun=true", key,
                             {"events": [{"protocolVersion": "0.1", "event": event} for event in events]})
    assert status == 200, body
    return body["data"]["results"]  # type: ignore[no-any-return]


# --- conformance cases (11.3, 11.4) ---------------------------------------------------------
MATCHERS = ("$matches", "$absent")


def run_token() -> str:
    return secrets.token_hex(6)


def expand(value: Any, run: str, host_tag: Optional[Callable[[str, Any, Callable[[Any], Any]], Any]] = None) -> Any:
    again = lambda inner: expand(inner, run, host_tag)  # noqa: E731
    if isinstance(value, str):
        return value.replace("{{run}}", run)
    if isinstance(value, list):
        return [again(item) for item in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        tag, argument = next(iter(value.items()))
        if tag.startswith("$"):
            if tag in MATCHERS or tag == "$literal":
                return _literal(value if tag in MATCHERS else argument, run)
            if tag == "$string":
                return again(argument["char"]) * argument["count"]
            if tag == "$array":
                return [again(argument["value"]) for _ in range(argument["count"])]
            if tag == "$nest":
                nested = again(argument["leaf"])
                for _ in range(argument["depth"]):
                    nested = {"n": nested}
                return nested
            if tag == "$concat":
                return "".join(str(again(piece)) if not isinstance(again(piece), bool) else str(again(piece)).lower() for piece in argument)
            if host_tag is None:
                raise ValueError(f"{tag} is an sdk-only host tag")
            return host_tag(tag, argument, again)
    return {key.replace("{{run}}", run): again(item) for key, item in value.items()}


def _literal(value: Any, run: str) -> Any:
    if isinstance(value, str):
        return value.replace("{{run}}", run)
    if isinstance(value, list):
        return [_literal(item, run) for item in value]
    if isinstance(value, dict):
        return {key.replace("{{run}}", run): _literal(item, run) for key, item in value.items()}
    return value


def _absent(value: Any) -> bool:
    return isinstance(value, dict) and value == {"$absent": True}


def exact(actual: Any, expected: Any, path: str, out: List[str]) -> None:
    if isinstance(expected, dict) and len(expected) == 1 and isinstance(expected.get("$matches"), str):
        if not isinstance(actual, str) or re.search(expected["$matches"], actual) is None:
            out.append(f"{path}: {str(actual)[:120]!r} does not match /{expected['$matches']}/")
        return
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            out.append(f"{path}: expected an array of {len(expected)}, got {str(actual)[:120]}")
            return
        for index, item in enumerate(expected):
            exact(actual[index], item, f"{path}[{index}]", out)
        return
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            out.append(f"{path}: expected an object, got {str(actual)[:120]}")
            return
        wanted = [key for key in expected if not _absent(expected[key])]
        extra = [key for key in actual if key not in wanted]
        if extra:
            out.append(f"{path}: unexpected keys {extra}")
        for key in wanted:
            if key not in actual:
                out.append(f"{path}.{key}: missing")
            else:
                exact(actual[key], expected[key], f"{path}.{key}", out)
        return
    if type(actual) is not type(expected) and not (isinstance(actual, (int, float)) and isinstance(expected, (int, float)) and not isinstance(actual, bool)):
        out.append(f"{path}: expected {expected!r}, got {str(actual)[:120]!r}")
    elif actual != expected:
        out.append(f"{path}: expected {str(expected)[:120]!r}, got {str(actual)[:120]!r}")


def subset(actual: Any, expected: Dict[str, Any], path: str) -> List[str]:
    out: List[str] = []
    if not isinstance(actual, dict):
        return [f"{path}: expected an object"]
    for key, value in expected.items():
        if _absent(value):
            if key in actual:
                out.append(f"{path}.{key}: should be absent")
        elif key not in actual:
            out.append(f"{path}.{key}: missing")
        else:
            exact(actual[key], value, f"{path}.{key}", out)
    return out
