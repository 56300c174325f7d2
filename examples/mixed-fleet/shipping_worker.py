"""The Python half of a mixed fleet: a shipping worker that continues the journey an order service
started (in Node) from the request headers, prepares the shipping label, and finishes the journey.

Run: JTRACE_URL=... JTRACE_API_KEY=... python3 shipping_worker.py  (prints its port, stops on SIGTERM)
"""

import json
import os
import signal
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jtrace

recorder = jtrace.create_recorder(
    endpoint=os.environ["JTRACE_URL"],
    api_key=os.environ["JTRACE_API_KEY"],
    service_name="shipping-worker",
    environment=os.environ.get("JTRACE_ENVIRONMENT", "production"),
)


def to_shipping_label(order):
    """The mapping under test: it forgets the phone number, which forensics shows as lost here."""
    customer = order["customer"]
    return {"orderId": order["orderId"], "customer": {"name": customer["name"], "email": customer["email"]},
            "parcels": sum(item["quantity"] for item in order["items"])}


class Shipments(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        order = json.loads(self.rfile.read(int(self.headers["content-length"])))
        journey = recorder.continue_journey(context=jtrace.extract_http_context(self.headers),
                                            entity={"type": "order", "id": order["orderId"]})
        journey.receive("accept-shipment", order, lambda received: received)
        label = journey.transform("prepare-shipping-label", order, to_shipping_label)
        with journey.persist("store-label", label) as step:
            step.output = {**label, "labelId": f"LBL-{order['orderId']}"}
        journey.finish("shipment-ready")
        body = json.dumps({"labelId": f"LBL-{order['orderId']}"}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", int(os.environ.get("PORT", "0"))), Shipments)
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    print(server.server_address[1], flush=True)
    server.serve_forever()
    server.server_close()
    recorder.shutdown(timeout=5)


if __name__ == "__main__":
    main()
