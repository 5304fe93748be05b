"""Checks the files of `segments-bench export` against the report.json they came from, read by
real third-party software: InfluxDB 1.x (the PyPI `influxdb` client reading back what the server
stored from the line-protocol file), a Prometheus Pushgateway (its /metrics after the push,
parsed by PyPI `prometheus-client`), and Python's csv and json modules for the other three.

Usage:
  python export_check.py influx REPORT INFLUX_FILE INFLUX_URL DATABASE [STDERR_FILE]
      creates DATABASE, POSTs INFLUX_FILE to /write?db=DATABASE&precision=ns (must answer 204),
      reads every point back and compares it with REPORT; with STDERR_FILE, also checks that
      the export named each non-finite figure it left out there.
  python export_check.py prometheus REPORT PROMETHEUS_FILE PUSHGATEWAY_URL
      PUTs PROMETHEUS_FILE to /metrics/job/segments-bench/instance/ci, GETs /metrics and compares.
  python export_check.py files REPORT CSV_FILE SMALLER_JSON BIGGER_JSON
      the csv and the two github-action-benchmark JSON files.
REPORT is a report.json or its directory. Exits 0 when every check passes, 1 otherwise (one
FAIL line per mismatch, at most 50 of them), 64 on a usage error.
"""
import calendar
import csv
import datetime
import json
import math
import os
import re
import sys

FAILURES = []
MAX_SHOWN = 50


def fail(message):
    FAILURES.append(message)


def finish(summary):
    """Prints the failures (or the summary line when there are none); returns the exit status."""
    for message in FAILURES[:MAX_SHOWN]:
        print("FAIL " + message)
    if len(FAILURES) > MAX_SHOWN:
        print(f"FAIL … and {len(FAILURES) - MAX_SHOWN} more")
    if FAILURES:
        print(f"{summary.split(':')[0]}: {len(FAILURES)} mismatches")
        return 1
    print(summary)
    return 0


# --- What report.json implies -------------------------------------------------------------------

# A latency's statistics in the spec's order: (csv statistic, influx field, prometheus quantile,
# report.json key). min is the lowest recorded bucket; p50, min, max and mean need count > 0; p90…
# p99.99 are present where report.json has them.
STATISTICS = [
    ("min", "min_ns", None, None),
    ("p50", "p50_ns", "0.5", "p50"),
    ("p90", "p90_ns", "0.9", "p90"),
    ("p99", "p99_ns", "0.99", "p99"),
    ("p99.9", "p99_9_ns", "0.999", "p999"),
    ("p99.99", "p99_99_ns", "0.9999", "p9999"),
    ("max", "max_ns", None, "max"),
    ("mean", "mean_ns", None, "mean"),
]
TIME_UNITS = {"ns", "µs", "us", "ms", "s"}
# The latency statistics in json-smaller-is-better: all but the count.
JSON_STATISTICS = {"min", "p50", "p90", "p99", "p99.9", "p99.99", "max", "mean"}


def number(value):
    """A report.json number: the encoder writes non-finite values as "NaN", "Infinity", "-Infinity"."""
    if isinstance(value, str):
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[value]
    return value


def slug(name):
    """ReportFormat.slug: lowercased; each run of anything but ASCII letters and digits is one "-",
    none at either end; "unnamed" when nothing is left."""
    result, pending = "", False
    for character in name.lower():
        if character.isascii() and character.isalnum():
            if pending and result:
                result += "-"
            pending = False
            result += character
        else:
            pending = True
    return result or "unnamed"


def better_choices(figure):
    """The `better` value of a figure, as a one-element set: its own direction, else its unit's (a
    time is lower, a rate per second higher), else its gate rule's (lowerIsBetter and atMost lower,
    higherIsBetter higher, mustEqual(0) lower); "" when none of these says."""
    direction = figure.get("direction")
    if direction:
        return {{"lowerIsBetter": "lower", "higherIsBetter": "higher"}[direction]}
    if figure["unit"] in TIME_UNITS:
        return {"lower"}
    if figure["unit"].endswith("/s"):
        return {"higher"}
    gate = figure.get("gate") or {}
    if "lowerIsBetter" in gate or "atMost" in gate:
        return {"lower"}
    if "higherIsBetter" in gate:
        return {"higher"}
    if "mustEqual" in gate:
        expected = gate["mustEqual"]
        expected = expected.get("_0") if isinstance(expected, dict) else expected
        return {"lower"} if number(expected) == 0 else {""}
    return {""}


class Report:
    def __init__(self, path):
        if os.path.isdir(path):
            path = os.path.join(path, "report.json")
        with open(path, encoding="utf-8") as handle:
            raw = json.load(handle)
        self.started_at = raw["startedAt"]
        self.timestamp_ns = timestamp_ns(raw["startedAt"])
        self.git = raw["gitRevision"]
        self.tool_version = raw.get("toolVersion", "")
        machine = raw.get("machine", {})
        self.host = machine.get("hostname", "")
        self.cpu_model = machine.get("cpuModel", "")
        self.figures = []  # (scenario, figure dict with a float value)
        self.latencies = []  # (scenario, slug, latency dict, [(csv statistic, influx field, quantile, value)])
        for scenario in raw["scenarios"]:
            name = scenario["scenario"]
            for figure in scenario.get("figures", []):
                figure = dict(figure, value=float(number(figure["value"])))
                self.figures.append((name, figure))
            for latency in scenario.get("latencies", []):
                self.latencies.append((name, slug(latency["name"]), latency, statistics(latency)))
        self.duplicates = []
        seen = set()
        for scenario, figure in self.figures:
            if (scenario, figure["name"]) in seen:
                self.duplicates.append(f"figure {scenario} / {figure['name']}")
            seen.add((scenario, figure["name"]))
        seen = set()
        for scenario, latency_slug, latency, _ in self.latencies:
            if (scenario, latency_slug) in seen:
                self.duplicates.append(f"latency {scenario} / {latency['name']} (slug {latency_slug})")
            seen.add((scenario, latency_slug))

    def refuse_duplicates(self):
        """Figures or latency slugs named twice in a scenario: every format would hold one series
        for both, so the comparison cannot tell them apart."""
        for duplicate in self.duplicates:
            fail(f"report.json names the {duplicate} twice in one scenario")


def statistics(latency):
    count = latency["count"]
    result = []
    for label, field, quantile, key in STATISTICS:
        if label == "min":
            if count > 0:
                recorded = [bucket["value"] for bucket in latency.get("recorded", []) if bucket["count"] > 0]
                result.append((label, field, quantile, min(recorded) if recorded else None))
        elif label in ("p50", "max", "mean"):
            if count > 0:
                result.append((label, field, quantile, latency[key]))
        elif key in latency:
            result.append((label, field, quantile, latency[key]))
    return result


def timestamp_ns(text):
    """An ISO 8601 time (`2026-11-27T18:39:36Z`, maybe with a fraction or an offset) in ns since
    the epoch, without a float's rounding."""
    match = re.fullmatch(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:?\d\d)", text)
    if not match:
        raise ValueError(f"report.json startedAt is not an ISO 8601 time: {text!r}")
    base = datetime.datetime.strptime(match.group(1), "%Y-%m-%dT%H:%M:%S")
    seconds = calendar.timegm(base.timetuple())
    zone = match.group(3)
    if zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        seconds -= sign * (int(digits[:2]) * 3600 + int(digits[2:]) * 60)
    fraction = int((match.group(2) or "0").ljust(9, "0"))
    return seconds * 1_000_000_000 + fraction


def same(a, b, relative=0.0):
    """Equal, NaN equal to NaN, infinities by sign; within `relative` for finite values."""
    if a is None or b is None or isinstance(a, bool) or isinstance(b, bool):
        return a is b
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return a == b or abs(a - b) <= relative * max(abs(a), abs(b))


# --- InfluxDB ----------------------------------------------------------------------------------

FIGURE_MEASUREMENT = "segments_bench_figure"
LATENCY_MEASUREMENT = "segments_bench_latency"
LATENCY_FIELDS = ["count"] + [field for _, field, _, _ in STATISTICS]


def check_influx(report, influx_file, url, database, stderr_file=None):
    import requests
    from influxdb import InfluxDBClient

    report.refuse_duplicates()
    host_port = re.fullmatch(r"http://([^:/]+):(\d+)/?", url)
    client = InfluxDBClient(host=host_port.group(1), port=int(host_port.group(2)), database=database, timeout=30)
    client.create_database(database)
    with open(influx_file, "rb") as handle:
        body = handle.read()
    answer = requests.post(f"{url}/write", params={"db": database, "precision": "ns"}, data=body, timeout=60)
    lines = [line for line in body.decode("utf-8").split("\n") if line and not line.startswith("#")]
    if answer.status_code != 204:
        fail(f"POST /write of {len(lines)} lines answered {answer.status_code}, not 204: {answer.text.strip()}")
        return finish("influx: write refused")

    if stderr_file is not None:
        with open(stderr_file, encoding="utf-8", errors="replace") as handle:
            stderr = handle.read()
        for scenario, figure in report.figures:
            if not math.isfinite(figure["value"]) and figure["name"] not in stderr:
                fail(f"figure {figure['name']} = {figure['value']} left out of the influx file "
                     "without a line on standard error naming it")

    measurements = {row["name"] for row in client.query("SHOW MEASUREMENTS").get_points()}
    for extra in sorted(measurements - {FIGURE_MEASUREMENT, LATENCY_MEASUREMENT}):
        fail(f"unexpected measurement {extra}")

    # Field types as the server stored them: a type conflict would have refused the write, but
    # an integer figure value (`value=1i`) or a float count would be stored under another type.
    wanted_types = {
        FIGURE_MEASUREMENT: {"value": "float", "git_revision": "string"},
        LATENCY_MEASUREMENT: dict({field: "integer" for field in LATENCY_FIELDS}, mean_ns="float", git_revision="string"),
    }
    for measurement, wanted in wanted_types.items():
        for row in client.query(f'SHOW FIELD KEYS FROM "{measurement}"').get_points():
            key, kind = row["fieldKey"], row["fieldType"]
            if key not in wanted:
                fail(f"{measurement}: unexpected field {key} ({kind})")
            elif kind != wanted[key]:
                fail(f"{measurement}: field {key} stored as {kind}, the spec says {wanted[key]}")

    points = 0
    # Figures: one point per finite figure, tags scenario, figure, unit (none when empty), host.
    expected = {}
    for scenario, figure in report.figures:
        if math.isfinite(figure["value"]):
            expected[(scenario, figure["name"], figure["unit"] or None, report.host)] = figure["value"]
    got = {}
    for point in client.query(f'SELECT * FROM "{FIGURE_MEASUREMENT}"', epoch="ns").get_points():
        points += 1
        key = (point.get("scenario"), point.get("figure"), point.get("unit"), point.get("host"))
        if key in got:
            fail(f"figure point {key} read back twice")
        got[key] = point
        for column in sorted(set(point) - {"time", "scenario", "figure", "unit", "host", "value", "git_revision"}):
            if point[column] is not None:
                fail(f"figure point {key}: unexpected column {column} = {point[column]!r}")
    for key in sorted(set(expected) - set(got), key=str):
        fail(f"figure {key[0]} / {key[1]} (unit tag {key[2]!r}, host {key[3]!r}): no point read back")
    for key in sorted(set(got) - set(expected), key=str):
        fail(f"figure point read back that report.json does not imply: tags {key}, value {got[key].get('value')!r}")
    for key in sorted(set(got) & set(expected), key=str):
        point = got[key]
        if not same(point.get("value"), expected[key]):
            fail(f"figure {key[0]} / {key[1]}: value {point.get('value')!r} read back, report.json {expected[key]!r}")
        check_point_common(report, f"figure {key[0]} / {key[1]}", point)
    figure_points = len(got)

    # Latencies: one point per latency, tags scenario, latency (the slug), host.
    expected = {}
    for scenario, latency_slug, latency, stats in report.latencies:
        fields = {"count": latency["count"]}
        fields.update({field: value for _, field, _, value in stats})
        expected[(scenario, latency_slug, report.host)] = (latency["name"], fields)
    got = {}
    for point in client.query(f'SELECT * FROM "{LATENCY_MEASUREMENT}"', epoch="ns").get_points():
        points += 1
        key = (point.get("scenario"), point.get("latency"), point.get("host"))
        if key in got:
            fail(f"latency point {key} read back twice")
        got[key] = point
        for column in sorted(set(point) - {"time", "scenario", "latency", "host", "git_revision"} - set(LATENCY_FIELDS)):
            if point[column] is not None:
                fail(f"latency point {key}: unexpected column {column} = {point[column]!r}")
    for key in sorted(set(expected) - set(got), key=str):
        fail(f"latency {key[0]} / {expected[key][0]!r} (slug {key[1]}, host {key[2]!r}): no point read back")
    for key in sorted(set(got) - set(expected), key=str):
        fail(f"latency point read back that report.json does not imply: tags {key}")
    for key in sorted(set(got) & set(expected), key=str):
        point, (_, fields) = got[key], expected[key]
        label = f"latency {key[0]} / {key[1]}"
        for field in LATENCY_FIELDS:
            value, wanted = point.get(field), fields.get(field)
            if wanted is None and value is not None:
                fail(f"{label}: field {field} = {value!r} read back, the spec leaves it out (count {fields['count']})")
            elif wanted is not None and value is None:
                fail(f"{label}: field {field} missing, report.json has {wanted!r}")
            elif wanted is not None and not same(value, wanted):
                fail(f"{label}: field {field} = {value!r} read back, report.json {wanted!r}")
        check_point_common(report, label, point)

    implied = figure_points_implied = sum(1 for _, f in report.figures if math.isfinite(f["value"]))
    implied += len(report.latencies)
    if points != implied:
        fail(f"{points} points read back, report.json implies {implied} "
             f"({figure_points_implied} finite figures + {len(report.latencies)} latencies)")
    if len(lines) != implied:
        fail(f"the influx file has {len(lines)} lines, report.json implies {implied} points")
    return finish(f"influx: {points} points read back ({figure_points} figures, {len(got)} latencies), all equal")


def check_point_common(report, label, point):
    if point.get("time") != report.timestamp_ns:
        fail(f"{label}: time {point.get('time')!r} ns, report.json startedAt {report.started_at} is {report.timestamp_ns} ns")
    if point.get("git_revision") != report.git:
        fail(f"{label}: git_revision {point.get('git_revision')!r}, report.json {report.git!r}")


# --- Prometheus Pushgateway --------------------------------------------------------------------

PREFIX = "segments_bench_report_"
JOB, INSTANCE = "segments-bench", "ci"


def check_prometheus(report, prometheus_file, url):
    import requests
    from prometheus_client.parser import text_string_to_metric_families

    report.refuse_duplicates()
    with open(prometheus_file, "rb") as handle:
        body = handle.read()
    answer = requests.put(f"{url}/metrics/job/{JOB}/instance/{INSTANCE}", data=body,
                          headers={"Content-Type": "text/plain; version=0.0.4"}, timeout=60)
    if not 200 <= answer.status_code < 300:
        fail(f"PUT /metrics/job/{JOB}/instance/{INSTANCE} answered {answer.status_code}: {answer.text.strip()}")
        return finish("pushgateway: push refused")
    exposition = requests.get(f"{url}/metrics", timeout=60)
    exposition.raise_for_status()

    parsed = list(text_string_to_metric_families(exposition.text))
    families = {family.name: family for family in parsed if family.name.startswith(PREFIX)}
    # The pushgateway keeps a failed push's time next to the last good one's.
    for family in parsed:
        if family.name == "push_failure_time_seconds":
            for sample in family.samples:
                if sample.labels.get("job") == JOB and sample.value != 0:
                    fail(f"the pushgateway recorded a failed push for job {JOB}: {sample.labels}")

    def samples(name, kind):
        family = families.pop(name, None)
        if family is None:
            fail(f"no {name} metric after the push")
            return []
        if family.type != kind:
            fail(f"{name} is a {family.type}, the spec says {kind}")
        result = []
        for sample in family.samples:
            labels = dict(sample.labels)
            if labels.pop("job", None) != JOB or labels.pop("instance", None) != INSTANCE:
                fail(f"{sample.name}{sample.labels}: not in the group job={JOB}, instance={INSTANCE}")
                continue
            result.append((sample.name, labels, sample.value))
        return result

    series = 0
    # Figures: every figure, NaN and infinities included, in the figure's own unit.
    expected = {(scenario, figure["name"], figure["unit"]): figure["value"] for scenario, figure in report.figures}
    got = {}
    for name, labels, value in samples(PREFIX + "figure", "gauge"):
        key = (labels.pop("scenario", None), labels.pop("figure", None), labels.pop("unit", ""))
        if labels:
            fail(f"figure {key}: unexpected labels {labels}")
        if key in got:
            fail(f"figure {key} read back twice")
        got[key] = value
    compare_series("figure", expected, got, relative=1e-9)
    series += len(got)

    # The summary: quantiles where the report has the percentile, _sum = mean × count, _count.
    expected, max_expected = {}, {}
    for scenario, latency_slug, latency, stats in report.latencies:
        for _, _, quantile, value in stats:
            if quantile is not None:
                expected[(scenario, latency_slug, quantile)] = value / 1e9
        expected[(scenario, latency_slug, "_sum")] = latency["mean"] * latency["count"] / 1e9
        expected[(scenario, latency_slug, "_count")] = latency["count"]
        if latency["count"] > 0:
            max_expected[(scenario, latency_slug)] = latency["max"] / 1e9
    got = {}
    summary = PREFIX + "latency_seconds"
    for name, labels, value in samples(summary, "summary"):
        scenario, latency_slug = labels.pop("scenario", None), labels.pop("latency", None)
        if name == summary:
            part = labels.pop("quantile", None)
        elif name in (summary + "_sum", summary + "_count"):
            part = name[len(summary):]
        else:
            fail(f"unexpected sample {name}{labels}")
            continue
        if labels:
            fail(f"{name} {scenario} / {latency_slug}: unexpected labels {labels}")
        key = (scenario, latency_slug, part)
        if key in got:
            fail(f"{name} {key} read back twice")
        got[key] = value
    compare_series("latency summary", expected, got, relative=1e-9)
    series += len({key[:2] for key in got})

    got = {}
    for name, labels, value in samples(PREFIX + "latency_max_seconds", "gauge"):
        key = (labels.pop("scenario", None), labels.pop("latency", None))
        if labels:
            fail(f"latency max {key}: unexpected labels {labels}")
        got[key] = value
    compare_series("latency max", max_expected, got, relative=1e-9)
    series += len(got)

    info = samples(PREFIX + "info", "gauge")
    wanted = {"git_revision": report.git, "tool_version": report.tool_version, "host": report.host, "cpu_model": report.cpu_model}
    if len(info) != 1:
        fail(f"{len(info)} {PREFIX}info series, the spec says 1")
    for _, labels, value in info:
        if labels != wanted:
            fail(f"{PREFIX}info labels {labels}, report.json implies {wanted}")
        if value != 1:
            fail(f"{PREFIX}info = {value}, not 1")
    series += len(info)

    start = samples(PREFIX + "start_time_seconds", "gauge")
    if len(start) != 1:
        fail(f"{len(start)} {PREFIX}start_time_seconds series, the spec says 1")
    for _, labels, value in start:
        # A float of ~1.8e9 s holds ~0.2 µs: compare within a microsecond.
        if not abs(value - report.timestamp_ns / 1e9) < 1e-6:
            fail(f"{PREFIX}start_time_seconds = {value!r}, report.json startedAt {report.started_at} is {report.timestamp_ns / 1e9!r}")
    series += len(start)

    for name in sorted(families):
        fail(f"unexpected metric {name} ({families[name].type})")
    return finish(f"pushgateway: {series} series read back ({sum(1 for _ in report.figures)} figures, "
                  f"{len(report.latencies)} latency summaries, {len(max_expected)} maxima, info, start time), all equal")


def compare_series(what, expected, got, relative):
    for key in sorted(set(expected) - set(got), key=str):
        fail(f"{what} {key}: missing, report.json implies {expected[key]!r}")
    for key in sorted(set(got) - set(expected), key=str):
        fail(f"{what} {key} = {got[key]!r}: report.json implies no such series")
    for key in sorted(set(got) & set(expected), key=str):
        if not same(got[key], expected[key], relative):
            fail(f"{what} {key}: {got[key]!r} read back, report.json implies {expected[key]!r}")


# --- csv and github-action-benchmark JSON ------------------------------------------------------

HEADER = ["started_at", "git_revision", "host", "scenario", "kind", "name", "statistic", "value", "unit", "better"]


def csv_number(text):
    """A csv value: a decimal number, or nan, inf, -inf (float() alone would also take "NaN", "1_0")."""
    special = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
    if text in special:
        return special[text]
    if not re.fullmatch(r"-?\d+(\.\d+)?([eE][-+]?\d+)?", text):
        raise ValueError(text)
    return float(text)


def check_files(report, csv_file, smaller_file, bigger_file):
    report.refuse_duplicates()
    with open(csv_file, encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle, strict=True))
    if not rows or rows[0] != HEADER:
        fail(f"csv header {rows[0] if rows else None}, the spec says {HEADER}")
    expected = {}
    figure_better = {}
    for scenario, figure in report.figures:
        expected[(scenario, "figure", figure["name"], "value")] = (figure["value"], figure["unit"], better_choices(figure))
    for scenario, latency_slug, latency, stats in report.latencies:
        expected[(scenario, "latency", latency_slug, "count")] = (latency["count"], "count", {""})
        for label, _, _, value in stats:
            expected[(scenario, "latency", latency_slug, label)] = (value, "ns", {"lower"})
    got = {}
    for number_, row in enumerate(rows[1:], start=2):
        if len(row) != len(HEADER):
            fail(f"csv line {number_}: {len(row)} fields, the header has {len(HEADER)}: {row}")
            continue
        record = dict(zip(HEADER, row))
        key = (record["scenario"], record["kind"], record["name"], record["statistic"])
        if key in got:
            fail(f"csv line {number_}: {key} a second time")
        got[key] = record
        for column, wanted in (("started_at", report.started_at), ("git_revision", report.git), ("host", report.host)):
            if record[column] != wanted:
                fail(f"csv line {number_}: {column} {record[column]!r}, report.json {wanted!r}")
    for key in sorted(set(expected) - set(got), key=str):
        fail(f"csv: no row for {' / '.join(key)}, report.json has {expected[key][0]!r}")
    for key in sorted(set(got) - set(expected), key=str):
        fail(f"csv: row {' / '.join(key)} = {got[key]['value']!r} that report.json does not imply")
    for key in sorted(set(got) & set(expected), key=str):
        record, (wanted, unit, choices) = got[key], expected[key]
        label = "csv " + " / ".join(key)
        text = record["value"]
        try:
            value = csv_number(text)
        except ValueError:
            fail(f"{label}: value {text!r} is not a number")
            continue
        if key[1] == "latency" and key[3] != "mean" and not re.fullmatch(r"\d+", text):
            fail(f"{label}: value {text!r} is not written as an integer")
        if not same(value, wanted):
            fail(f"{label}: value {text!r}, report.json {wanted!r}")
        if key[1] == "figure" and not math.isfinite(wanted) and text not in ("nan", "inf", "-inf"):
            fail(f"{label}: a non-finite value written {text!r}, the spec says nan, inf or -inf")
        if record["unit"] != unit:
            fail(f"{label}: unit {record['unit']!r}, the spec implies {unit!r}")
        if record["better"] not in choices:
            fail(f"{label}: better {record['better']!r}, the spec implies {' or '.join(repr(c) for c in sorted(choices))}")
        if key[1] == "figure":
            figure_better[(key[0], key[2])] = record["better"]

    # The JSON files: smaller = every latency statistic but the count (min … max, mean), and the finite figures
    # whose better is lower; bigger = the finite figures whose better is higher. The csv's better
    # column decides where a figure goes (it is itself checked against the spec above).
    wanted_smaller, wanted_bigger = {}, {}
    for scenario, figure in report.figures:
        better = figure_better.get((scenario, figure["name"]))
        if better is None:
            choices = better_choices(figure)
            better = next(iter(choices)) if len(choices) == 1 else None
        if math.isfinite(figure["value"]) and better in ("lower", "higher"):
            target = wanted_smaller if better == "lower" else wanted_bigger
            target[figure["name"]] = (figure["unit"], figure["value"])
    for scenario, latency_slug, latency, stats in report.latencies:
        for label, _, _, value in stats:
            if label in JSON_STATISTICS:
                wanted_smaller[f"{scenario}.{latency_slug} {label}"] = ("ns", value)
    sizes = []
    for path, wanted in ((smaller_file, wanted_smaller), (bigger_file, wanted_bigger)):
        sizes.append(check_benchmark_json(path, wanted))
    return finish(f"files: csv {len(rows) - 1} rows, json {sizes[0]} smaller-is-better + {sizes[1]} bigger-is-better "
                  "entries, all equal")


def check_benchmark_json(path, wanted):
    label = os.path.basename(path)

    def refuse_constant(text):
        raise ValueError(f"{text} is not JSON")

    try:
        with open(path, encoding="utf-8") as handle:
            entries = json.load(handle, parse_constant=refuse_constant)
    except ValueError as error:
        fail(f"{label}: not strict JSON: {error}")
        return 0
    if not isinstance(entries, list):
        fail(f"{label}: a {type(entries).__name__}, github-action-benchmark wants a list")
        return 0
    got = {}
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or set(entry) != {"name", "unit", "value", "extra"}:
            fail(f"{label}[{index}]: {entry!r} is not an object of exactly name, unit, value, extra")
            continue
        name, unit, value, extra = entry["name"], entry["unit"], entry["value"], entry["extra"]
        if not (isinstance(name, str) and isinstance(unit, str) and isinstance(extra, str)):
            fail(f"{label}[{index}]: name, unit and extra must be strings: {entry!r}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            fail(f"{label}[{index}] {name!r}: value {value!r} is not a finite number")
            continue
        if name in got:
            fail(f"{label}: {name!r} twice (github-action-benchmark keys its series by name)")
        got[name] = (unit, value)
    for name in sorted(set(wanted) - set(got)):
        fail(f"{label}: no entry {name!r}, report.json implies {wanted[name]}")
    for name in sorted(set(got) - set(wanted)):
        fail(f"{label}: entry {name!r} = {got[name]} that the spec does not put in this file")
    for name in sorted(set(got) & set(wanted)):
        if got[name][0] != wanted[name][0]:
            fail(f"{label} {name!r}: unit {got[name][0]!r}, report.json {wanted[name][0]!r}")
        if not same(got[name][1], wanted[name][1]):
            fail(f"{label} {name!r}: value {got[name][1]!r}, report.json {wanted[name][1]!r}")
    return len(entries)


def main(argv):
    commands = {"influx": (check_influx, (4, 5)), "prometheus": (check_prometheus, (3,)), "files": (check_files, (4,))}
    if len(argv) < 2 or argv[1] not in commands or len(argv) - 2 not in commands[argv[1]][1]:
        print(__doc__)
        return 64
    function, _ = commands[argv[1]]
    return function(Report(argv[2]), *argv[3:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
