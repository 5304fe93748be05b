"""The harness's OTLP/HTTP metrics export, decoded by opentelemetry-proto (OpenTelemetry's own
Python bindings of the OTLP messages).

Runs an OTLP/HTTP receiver on a free loopback port (POST /v1/metrics, application/x-protobuf,
answered with an empty ExportMetricsServiceResponse), runs one short `segments-bench run fleet`
that exports to it, and checks the last export it received against the run's report.

Usage: otlp_check.py path/to/segments-bench
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.metrics.v1.metrics_pb2 import AggregationTemporality

bench = sys.argv[1]
requests = []  # decoded ExportMetricsServiceRequest, in arrival order
problems = []
lock = threading.Lock()


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path != "/v1/metrics":
            problems.append(f"POST to {self.path}, not /v1/metrics")
            self.send_response(404)
            self.end_headers()
            return
        content_type = self.headers.get("Content-Type", "")
        if content_type != "application/x-protobuf":
            problems.append(f"Content-Type {content_type!r}, not application/x-protobuf")
        request = ExportMetricsServiceRequest()
        request.ParseFromString(body)
        with lock:
            requests.append(request)
        answer = ExportMetricsServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
threading.Thread(target=server.serve_forever, daemon=True).start()
endpoint = f"http://127.0.0.1:{server.server_address[1]}"
run_id = f"otlp-check-{os.getpid()}"

with tempfile.TemporaryDirectory() as work:
    command = [bench, "run", "fleet", "--quick", "--devices", "40", "--duration", "3",
               "--otlp-endpoint", endpoint, "--otlp-interval-seconds", "1", "--run-id", run_id,
               "--out", os.path.join(work, "report")]
    print("OTLP: " + " ".join(command))
    finished = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if finished.returncode != 0:
        sys.exit(f"OTLP: segments-bench exited {finished.returncode}:\n{finished.stdout[-3000:]}\n{finished.stderr[-3000:]}")
    report = json.load(open(os.path.join(work, "report", "report.json")))
server.shutdown()

assert not problems, problems
assert len(requests) >= 2, f"expected periodic exports (interval 1 s over a 3 s run) and a last one, got {len(requests)}"
fleet = next(r for r in report["scenarios"] if r["scenario"] == "fleet")


def figure(name):
    return next(f["value"] for f in fleet["figures"] if f["name"] == name)


def attributes(point):
    return {a.key: a.value.string_value for a in point.attributes}


# The last export holds the totals (cumulative temporality): every metric by name.
last = requests[-1]
metrics = {}
for resource_metrics in last.resource_metrics:
    service = {a.key: a.value.string_value for a in resource_metrics.resource.attributes}.get("service.name")
    assert service == "segments-bench", f"resource service.name {service!r}"
    for scope_metrics in resource_metrics.scope_metrics:
        for metric in scope_metrics.metrics:
            metrics[metric.name] = metric
print(f"OTLP: {len(requests)} exports received; the last has {sorted(metrics)}")

expected_labels = {"host", "scenario", "run_id"}


def only_point(name, kind):
    metric = metrics.get(name)
    assert metric is not None, f"no {name} in the last export"
    assert metric.WhichOneof("data") == kind, f"{name} is a {metric.WhichOneof('data')}, not a {kind}"
    points = getattr(metric, kind).data_points
    assert len(points) == 1, f"{name}: {len(points)} data points, expected 1 (one scenario, no per-device series)"
    labels = attributes(points[0])
    assert set(labels) == expected_labels, f"{name}: attributes {labels}"
    assert labels["scenario"] == "fleet" and labels["run_id"] == run_id and labels["host"], f"{name}: attributes {labels}"
    return metric, points[0]


for name, report_figure in [("segments_bench_events_total", "fleet.eventsTracked"),
                            ("segments_bench_lost_events_total", "fleet.lostEvents")]:
    metric, point = only_point(name, "sum")
    assert metric.sum.is_monotonic, f"{name} is not monotonic"
    assert metric.sum.aggregation_temporality == AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE, name
    value = point.as_int if point.WhichOneof("value") == "as_int" else point.as_double
    assert value == figure(report_figure), f"{name}: exported {value}, the report's {report_figure} is {figure(report_figure)}"
    print(f"OTLP: {name} {value} = the report's {report_figure}")
assert figure("fleet.eventsTracked") > 0, "the run tracked no events"
only_point("segments_bench_deliveries_total", "sum")
only_point("segments_bench_achieved_rate", "gauge")

# Each latency: LatencyBuckets' bounds (seconds) and the report's recorded values in them.
bounds = [round(2 ** (k / 4)) for k in range(28, 145)]
histogram = metrics.get("segments_bench_latency_seconds")
assert histogram is not None and histogram.WhichOneof("data") == "histogram", "no latency histogram in the last export"
assert histogram.histogram.aggregation_temporality == AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE
points = {attributes(p)["latency"]: p for p in histogram.histogram.data_points}
checked = 0
for latency in fleet["latencies"]:
    recorded = latency.get("recorded", [])
    total = sum(r["count"] for r in recorded)
    if total == 0:
        continue
    point = points.get(latency["name"])
    assert point is not None, f"no histogram for latency {latency['name']}; have {sorted(points)}"
    labels = attributes(point)
    assert set(labels) == expected_labels | {"latency"} and labels["run_id"] == run_id, labels
    assert [round(b * 1e9) for b in point.explicit_bounds] == bounds, f"{latency['name']}: bounds differ from LatencyBuckets"
    expected = [0] * (len(bounds) + 1)
    for r in recorded:
        expected[next((i for i, b in enumerate(bounds) if b >= r["value"]), len(bounds))] += r["count"]
    assert point.count == total, f"{latency['name']}: exported count {point.count}, the report recorded {total}"
    assert list(point.bucket_counts) == expected, f"{latency['name']}: bucket counts differ from the report's values"
    exact_sum = sum(r["value"] * r["count"] for r in recorded) / 1e9
    assert math.isclose(point.sum, exact_sum, rel_tol=1e-3), f"{latency['name']}: sum {point.sum} s, the report's {exact_sum} s"
    print(f"OTLP: {latency['name']}: {total} values, buckets and sum as the report's")
    checked += 1
assert checked > 0, "no latency had recorded values"
print(f"OTLP: passed ({checked} latencies)")
