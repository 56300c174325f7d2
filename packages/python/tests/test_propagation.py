"""Propagation through every header shape, read from real requests: a plain dict, a WSGI environ
(wsgiref), an ASGI scope's byte pairs, http.server's message; jtrace's own carriers and the peer's."""

import json
import os
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from wsgiref.simple_server import WSGIRequestHandler, make_server

import pytest

import jtrace
from helpers import Receiver

FIXTURES = json.load(open(os.path.join(os.path.dirname(__file__), "fixtures", "header-sets.json"), encoding="utf-8"))
SETS = FIXTURES["sets"]


def shape(context):
    if context is None:
        return None
    return {"journeyId": context.journey_id, "entity": list(context.entity) if context.entity else None,
            "parentEventId": context.parent_event_id}


def send_raw(port, headers):
    block = "POST / HTTP/1.1\r\n" + "".join(f"{name}: {value}\r\n" for name, value in headers) + "content-length: 0\r\nconnection: close\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port)) as connection:
        connection.sendall(block.encode("latin-1"))
        while connection.recv(65536):
            pass


@pytest.mark.parametrize("case", SETS, ids=[case["name"] for case in SETS])
def test_recorded_header_sets_through_real_servers(case):
    seen = {}

    def app(environ, start_response):
        seen["wsgi"] = shape(jtrace.extract_http_context(environ))
        start_response("204 No Content", [])
        return [b""]

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args):
            pass

    wsgi = make_server("127.0.0.1", 0, app, handler_class=Quiet)
    threading.Thread(target=wsgi.handle_request, daemon=True).start()
    send_raw(wsgi.server_port, case["headers"])
    wsgi.server_close()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            seen["message"] = shape(jtrace.extract_http_context(self.headers))
            seen["dict"] = shape(jtrace.extract_http_context(dict(self.headers.items())))
            # An ASGI scope carries the same headers as lower-case byte pairs.
            scope = {"type": "http", "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in self.headers.items()]}
            seen["asgi"] = shape(jtrace.extract_http_context(scope))
            seen["asgi-list"] = shape(jtrace.extract_http_context(scope["headers"]))
            self.send_response(204)
            self.end_headers()

    plain = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=plain.handle_request, daemon=True).start()
    send_raw(plain.server_address[1], case["headers"])
    plain.server_close()
    assert seen == {key: case["expect"] for key in ("wsgi", "message", "dict", "asgi", "asgi-list")}


@pytest.mark.parametrize("case", FIXTURES["envelopes"])
def test_json_envelopes(case):
    context, payload = jtrace.unwrap_message(case["message"])
    got = shape(context)
    if got is not None:
        got.pop("parentEventId")
    assert got == case["expect"] and payload == case["payload"]


def test_injection_is_jtraces_own_and_adds_the_peers_only_when_asked():
    receiver = Receiver()
    try:
        recorder = jtrace.create_recorder(endpoint=receiver.url, api_key="k", service_name="s", environment="e", on_diagnostic=lambda d: None)
        journey = recorder.start_journey({"type": "order", "id": "ord/1 é"})
        headers = jtrace.inject_http_headers({}, journey)
        assert sorted(headers) == ["x-jtrace-entity", "x-jtrace-journey-id"]
        assert headers["x-jtrace-entity"] == "order;ord%2F1%20%C3%A9"
        assert shape(jtrace.extract_http_context(headers)) == {"journeyId": journey.journey_id, "entity": ["order", "ord/1 é"], "parentEventId": None}
        journey.record("received", "r")
        both = jtrace.inject_http_headers({}, journey, peer=True)
        assert both["x-wayscribe-journey-id"] == journey.journey_id
        # The peer carries only ids of its own character set: this entity id stays out.
        assert "x-wayscribe-entity-id" not in both and "x-jtrace-parent-event-id" in both
        plain = recorder.start_journey({"type": "customer", "id": "18492"})
        peer = jtrace.inject_http_headers([(b"host", b"x")], plain, peer=True)
        assert (b"x-wayscribe-entity-id", b"18492") in peer
        message = jtrace.wrap_message({"id": 1}, plain)
        context, payload = jtrace.unwrap_message(json.loads(json.dumps(message)))
        assert context.journey_id == plain.journey_id and payload == {"id": 1}
        # A journey started by a peer service, continued here, records under the peer's id.
        peer_context = jtrace.extract_http_context({"x-wayscribe-journey-id": "jrn_peer1"})
        continued = recorder.continue_journey(context=peer_context, entity={"type": "order", "id": "1"})
        assert continued.journey_id == "jrn_peer1" and continued.entity == ("order", "1")
        assert recorder.continue_journey(context=peer_context).entity == ("unknown", "unknown")
        attributes = jtrace.inject_message_attributes({}, plain, peer=True, sqs=True)
        assert attributes["wayscribeJourneyId"] == {"DataType": "String", "StringValue": plain.journey_id}
        assert shape(jtrace.extract_message_context({k: v for k, v in attributes.items() if k.startswith("wayscribe")}))["journeyId"] == plain.journey_id
        recorder.shutdown(5)
    finally:
        receiver.close()


def test_queue_attributes_of_both_sdks_and_sqs_shapes():
    sqs = {"x-jtrace-journey-id": {"DataType": "String", "StringValue": "jrn_q"},
           "x-jtrace-entity": {"DataType": "String", "StringValue": "order;42"}}
    assert shape(jtrace.extract_message_context(sqs)) == {"journeyId": "jrn_q", "entity": ["order", "42"], "parentEventId": None}
    peer = {"wayscribeJourneyId": "jrn_123", "wayscribeEntityType": "customer", "wayscribeEntityId": "18492"}
    assert shape(jtrace.extract_message_context(peer)) == {"journeyId": "jrn_123", "entity": ["customer", "18492"], "parentEventId": None}
    peer_sqs = {"wayscribeJourneyId": {"DataType": "String", "StringValue": "jrn_9"}}
    assert shape(jtrace.extract_message_context(peer_sqs)) == {"journeyId": "jrn_9", "entity": None, "parentEventId": None}
    assert jtrace.extract_message_context({"wayscribeJourneyId": "not-a-journey"}) is None


def test_the_recorder_option_writes_the_peers_carriers_unless_a_call_says_otherwise():
    recorder = jtrace.create_recorder(endpoint="http://127.0.0.1:9", api_key="k", service_name="s", environment="e",
                                      peer_propagation=True, on_diagnostic=lambda d: None)
    journey = recorder.start_journey({"type": "order", "id": "42"})
    assert jtrace.inject_http_headers({}, journey)["x-wayscribe-entity-id"] == "42"
    assert "x-wayscribe-journey-id" not in jtrace.inject_http_headers({}, journey, peer=False)
    recorder.shutdown(0)


PEER_VECTORS = json.load(open(os.path.join(os.path.dirname(__file__), "..", "..", "node", "test", "peer-carriers.json"), encoding="utf-8"))


def as_expected(context):
    if context is None:
        return None
    out = {"journeyId": context.journey_id}
    if context.entity is not None:
        out["entity"] = {"type": context.entity[0], "id": context.entity[1]}
    return out


@pytest.mark.parametrize("case", PEER_VECTORS["http"], ids=[case["name"] for case in PEER_VECTORS["http"]])
def test_peer_vectors_http(case):
    assert as_expected(jtrace.extract_http_context(case["headers"])) == case["expected"]


@pytest.mark.parametrize("case", PEER_VECTORS["messageAttributes"], ids=[case["name"] for case in PEER_VECTORS["messageAttributes"]])
def test_peer_vectors_message_attributes(case):
    assert as_expected(jtrace.extract_message_context(case["attributes"])) == case["expected"]


@pytest.mark.parametrize("case", PEER_VECTORS["envelopes"], ids=[case["name"] for case in PEER_VECTORS["envelopes"]])
def test_peer_vectors_envelopes(case):
    context, payload = jtrace.unwrap_message(case["message"])
    assert as_expected(context) == case["expected"] and payload == case["payload"]
