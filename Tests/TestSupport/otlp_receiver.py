"""An OTLP/HTTP traces receiver for the tests, decoding what arrives with OpenTelemetry's own
published protobuf definitions (the opentelemetry-proto package): not our encoder checked
against itself.

Prints `listening PORT` once bound on 127.0.0.1 (port 0: any), then one JSON object a line for
every span of every export: ids in hex, times in nanoseconds, attributes as plain values, and the
exporter's service.name. A body that does not decode gets 400 and a line {"error": ...}.
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.common.v1 import common_pb2

MAX_BODY = 8 * 1024 * 1024


def value(any_value: common_pb2.AnyValue):
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [value(v) for v in any_value.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: value(kv.value) for kv in any_value.kvlist_value.values}
    if kind == "bytes_value":
        return any_value.bytes_value.hex()
    return getattr(any_value, kind) if kind else None


def attributes(pairs):
    return {kv.key: value(kv.value) for kv in pairs}


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        if self.path != "/v1/traces" or length > MAX_BODY:
            self.send_response(404 if self.path != "/v1/traces" else 413)
            self.end_headers()
            return
        body = self.rfile.read(length)
        request = trace_service_pb2.ExportTraceServiceRequest()
        try:
            request.ParseFromString(body)
        except Exception as error:  # a body that is not OTLP: said, and refused
            print(json.dumps({"error": str(error)}), flush=True)
            self.send_response(400)
            self.end_headers()
            return
        for resource_spans in request.resource_spans:
            resource = attributes(resource_spans.resource.attributes)
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    print(json.dumps({
                        "service": resource.get("service.name"),
                        "content_type": self.headers.get("Content-Type"),
                        "trace_id": span.trace_id.hex(),
                        "span_id": span.span_id.hex(),
                        "parent_span_id": span.parent_span_id.hex(),
                        "name": span.name,
                        "kind": span.kind,
                        "start": span.start_time_unix_nano,
                        "end": span.end_time_unix_nano,
                        "attributes": attributes(span.attributes),
                        "events": [{"name": e.name, "time": e.time_unix_nano, "attributes": attributes(e.attributes)} for e in span.events],
                    }), flush=True)
        reply = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Receiver)
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()
