"""A webhook receiver for the e2e suite, verifying Standard Webhooks signatures on its own.

Usage: webhook_receiver.py PORT SECRETS_JSON LOG_JSONL FAIL_FIRST

SECRETS_JSON maps a path ("/a") to its endpoint's whsec_ secret; it is read on every request, so
the suite can add an endpoint's secret after the server generated it. A path starting with /reject
is always answered 400; of the others, the first FAIL_FIRST POSTs are answered 500. Every request is appended
to LOG_JSONL with whether its signature verified, independently of VoiceBridge's code: HMAC-SHA256
over "id.timestamp.body", the key the base64 after "whsec_", any of the space-separated v1
signatures, the timestamp within five minutes.
"""
import base64
import hashlib
import hmac
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, secrets_path, log_path, fail_first = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
lock = threading.Lock()
seen = {"posts": 0}


def verified(secret, headers, body):
    msg_id, timestamp, signatures = headers.get("webhook-id"), headers.get("webhook-timestamp"), headers.get("webhook-signature")
    if not (secret and msg_id and timestamp and signatures):
        return False
    if abs(time.time() - int(timestamp)) > 300:
        return False
    key = base64.b64decode(secret[len("whsec_"):] + "=" * (-len(secret[len("whsec_"):]) % 4))
    expected = base64.b64encode(hmac.new(key, f"{msg_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()).decode()
    return any(part.startswith("v1,") and hmac.compare_digest(part[3:], expected) for part in signatures.split(" "))


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with open(secrets_path) as f:
            secret = json.load(f).get(self.path)
        with lock:
            if self.path.startswith("/reject"):
                status = 400
            else:
                seen["posts"] += 1
                status = 500 if seen["posts"] <= fail_first else 200
            try:
                event = json.loads(body)
            except ValueError:
                event = {}
            entry = {"path": self.path, "id": self.headers.get("webhook-id"), "status": status,
                     "verified": verified(secret, self.headers, body), "type": event.get("type"),
                     "outbound_id": (event.get("data") or {}).get("outbound_id"), "content_type": self.headers.get("Content-Type"),
                     "traceparent": self.headers.get("traceparent")}
            with open(log_path, "a") as f:
                f.write(json.dumps(entry) + "\n")
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
print("receiver listening", flush=True)
server.serve_forever()
