"""Checks the files of `segments-bench export` against the report.json they came from, read by
real third-party software: InfluxDB 1.x (the PyPI `influxdb` client reading back what the server
stored from the line-protocol file), a Prometheus Pushgateway (its /metrics after the push,
parsed by PyPI `prometheus-client`), and Python's csv and json modules for the other three. With
the export's standard error, also that it holds exactly the `note:` lines the spec implies: each
value left out (not a number, a second value under one name, a minimum the histogram cannot give)
and each name line protocol cannot carry as it is, and nothing else.

Usage:
  python export_check.py influx REPORT INFLUX_FILE INFLUX_URL DATABASE [STDERR_FILE]
      creates DATABASE, POSTs INFLUX_FILE to /write?db=DATABASE&precision=ns (must answer 204),
      reads every point back and compares it with REPORT.
  python export_check.py prometheus REPORT PROMETHEUS_FILE PUSHGATEWAY_URL INSTANCE [STDERR_FILE]
      PUTs PROMETHEUS_FILE to /metrics/job/segments-bench/instance/INSTANCE, GETs /metrics and
      compares that group.
  python export_check.py files REPORT CSV_FILE SMALLER_JSON BIGGER_JSON [CSV_STDERR SMALLER_STDERR BIGGER_STDERR]
      the csv and the two github-action-benchmark JSON files.
  python export_check.py craft REPORT DIRECTORY
      writes DIRECTORY/report.json: two of REPORT's scenarios with names that need escaping,
      values that are not numbers, repeated names and a latency without samples (`crafted`).
REPORT is a report.json or its directory. Exits 0 when every check passes, 1 otherwise (one
FAIL line per mismatch, at most 50 of them), 64 on a usage error.
"""
import calendar
import collections
import csv
import datetime
import fractions
import json
import math
import os
import re
import sys
import unicodedata

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
# report.json key). min is the lowest recorded bucket (when the recorded buckets hold the whole
# count); p50, max and mean need count > 0; p90 … p99.99 are present where report.json has them
# and the count supports them.
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
# LatencySummary.minimumCount: a percentile read from a file with fewer samples is dropped.
MINIMUM_COUNT = {"p90": 10, "p99": 100, "p999": 1000, "p9999": 10000}
TIME_UNITS = {"ns", "µs", "us", "ms", "s"}


def number(value):
    """A report.json number: the encoder writes non-finite values as "NaN", "Infinity", "-Infinity"."""
    if isinstance(value, str):
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[value]
    return value


def swift_double(value):
    """How Swift writes a non-finite Double in a note: nan, inf, -inf (Python's str agrees)."""
    return str(value)


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


def better(figure):
    """The `better` value of a figure: its own direction, else its unit's (a time is lower, a rate
    per second higher), else its gate rule's (lowerIsBetter and atMost lower, higherIsBetter higher,
    mustEqual(0) lower); "" when none of these says."""
    direction = figure.get("direction")
    if direction:
        return {"lowerIsBetter": "lower", "higherIsBetter": "higher"}[direction]
    if figure["unit"] in TIME_UNITS:
        return "lower"
    if figure["unit"].endswith("/s"):
        return "higher"
    gate = figure.get("gate") or {}
    if "lowerIsBetter" in gate or "atMost" in gate:
        return "lower"
    if "higherIsBetter" in gate:
        return "higher"
    if "mustEqual" in gate:
        expected = gate["mustEqual"]
        expected = expected.get("_0") if isinstance(expected, dict) else expected
        return "lower" if number(expected) == 0 else ""
    return ""


def is_control(character):
    """A character line protocol cannot carry (InfluxLineProtocol.isControl): a control character
    (category Cc) or a line or paragraph separator."""
    return unicodedata.category(character) == "Cc" or character in "\u2028\u2029"


def influx_tag(value):
    """A tag value as the influx format writes it and InfluxDB stores it, scalar by scalar (a
    Python str is one): `,` `=` and space escaped; a backslash kept literally unless it comes
    before one of them, a control character or the end, where it is written `/`; a control
    character written as an escaped space. Returns (written, stored, rewritten)."""
    written, stored, rewritten = "", "", False
    for index, character in enumerate(value):
        following = value[index + 1] if index + 1 < len(value) else None
        if character in ",= ":
            written, stored = written + "\\" + character, stored + character
        elif character == "\\":
            if following is not None and following not in ",= " and not is_control(following):
                written, stored = written + "\\", stored + "\\"
            else:
                written, stored, rewritten = written + "/", stored + "/", True
        elif is_control(character):
            written, stored, rewritten = written + "\\ ", stored + " ", True
        else:
            written, stored = written + character, stored + character
    return written, stored, rewritten


def influx_string(value):
    """A string field's value as written between its quotes and as stored: quotes and backslashes
    escaped, a control character written (and stored) as a space. Returns (written, stored, rewritten)."""
    written, stored, rewritten = "", "", False
    for character in value:
        if character in '"\\':
            written, stored = written + "\\" + character, stored + character
        elif is_control(character):
            written, stored, rewritten = written + " ", stored + " ", True
        else:
            written, stored = written + character, stored + character
    return written, stored, rewritten


class Report:
    """report.json as every format writes it: the first figure and latency under each name in a
    scenario, the notes every format shares (ExportedValues.notes)."""

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
        self.run = f"git {self.git} on {self.host}, started {self.started_at}"
        self.figures = []  # (scenario, figure dict with a float value)
        self.latencies = []  # (scenario, slug, latency dict, [(csv statistic, influx field, quantile, value)])
        self.notes = []  # what every format's standard error says (ExportedValues.duplicateNotes)
        self.minimum_notes = []  # what the formats that write latency statistics say besides
        figure_names, latency_names = set(), set()
        for scenario in raw["scenarios"]:
            name = scenario["scenario"]
            for figure in scenario.get("figures", []):
                if (name, figure["name"]) in figure_names:
                    self.notes.append(f"left out a second figure named {figure['name']} in {name}")
                    continue
                figure_names.add((name, figure["name"]))
                self.figures.append((name, dict(figure, value=float(number(figure["value"])))))
            for latency in scenario.get("latencies", []):
                latency_slug = slug(latency["name"])
                if (name, latency_slug) in latency_names:
                    self.notes.append(f"left out a second latency named {latency_slug} ({latency['name']}) in {name}")
                    continue
                latency_names.add((name, latency_slug))
                self.latencies.append((name, latency_slug, latency, self.statistics(name, latency_slug, latency)))

    def statistics(self, scenario, latency_slug, latency):
        count = latency.get("count", 0)
        result = []
        if count == 0:
            return result
        for label, field, quantile, key in STATISTICS:
            if label == "min":
                recorded = [bucket for bucket in latency.get("recorded", []) if bucket["count"] > 0]
                held = sum(bucket["count"] for bucket in recorded)
                if held == count:
                    result.append((label, field, quantile, min(bucket["value"] for bucket in recorded)))
                else:
                    self.minimum_notes.append(f"left out {scenario}.{latency_slug} min: the report's recorded histogram "
                                      f"holds {held} of its {count} samples")
            elif key in MINIMUM_COUNT:
                if key in latency and count >= MINIMUM_COUNT[key]:
                    result.append((label, field, quantile, latency[key]))
            else:
                result.append((label, field, quantile, latency[key]))
        return result


def timestamp_ns(text):
    """An ISO 8601 time (`2026-11-27T18:39:36Z`, maybe with a fraction or an offset) in ns since
    the epoch, as the export has it: whole seconds, and the fraction rounded to microseconds."""
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
    digits = match.group(2) or "0"
    microseconds = math.floor(fractions.Fraction(int(digits), 10 ** len(digits)) * 1_000_000 + fractions.Fraction(1, 2))
    return seconds * 1_000_000_000 + microseconds * 1_000


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


def check_notes(label, stderr_file, expected):
    """Standard error must hold exactly the `expected` notes (in any order), and nothing else."""
    if stderr_file is None:
        return
    with open(stderr_file, encoding="utf-8", errors="replace") as handle:
        lines = [line for line in handle.read().split("\n") if line]
    got = []
    for line in lines:
        if line.startswith("note: "):
            got.append(line[len("note: "):])
        else:
            fail(f"{label} standard error: unexpected line {line!r}")
    got, expected = collections.Counter(got), collections.Counter(expected)
    for note in sorted((expected - got).elements()):
        fail(f"{label} standard error: no line 'note: {note}'")
    for note in sorted((got - expected).elements()):
        fail(f"{label} standard error: unexpected line 'note: {note}'")


# --- InfluxDB ----------------------------------------------------------------------------------

FIGURE_MEASUREMENT = "segments_bench_figure"
LATENCY_MEASUREMENT = "segments_bench_latency"
LATENCY_FIELDS = ["count"] + [field for _, field, _, _ in STATISTICS]
INT64_MAX = 2 ** 63 - 1


def influx_expectations(report):
    """What the line-protocol file holds: {(scenario, figure, unit, host) tags as stored: value},
    {(scenario, latency, host): (name, {field: value})}, the stored git revision, and the notes
    (the file's own ahead of those every format shares)."""
    notes = list(report.notes) + list(report.minimum_notes)
    rewritten_tags, rewritten_fields = {}, {}

    def tag(value):  # the stored tag value, None where the tag is left out (an empty value)
        if not value:
            return None
        written, stored, changed = influx_tag(value)
        if changed:
            rewritten_tags[value] = stored
        return stored

    written, git, changed = influx_string(report.git)
    if changed:
        rewritten_fields[report.git] = git
    host = tag(report.host)
    figures = {}
    for scenario, figure in report.figures:
        if not math.isfinite(figure["value"]):
            notes.append(f"left out {figure['name']}: its value is {swift_double(figure['value'])}, which line protocol cannot write")
            continue
        key = (tag(scenario), tag(figure["name"]), tag(figure["unit"]), host)
        if key in figures:  # two names rewritten into one series: the first is kept
            notes.append(f"left out {figure['name']} in {scenario}: once rewritten, its series is another value's")
            continue
        figures[key] = figure["value"]
    latencies = {}
    for scenario, latency_slug, latency, stats in report.latencies:
        key = (tag(scenario), tag(latency_slug), host)
        if key in latencies:
            notes.append(f"left out latency {latency_slug} in {scenario}: once rewritten, its series is another value's")
            continue
        fields = {"count": latency["count"]}
        for label, field, _, value in stats:
            if isinstance(value, int) and value > INT64_MAX or not math.isfinite(value):
                notes.append(f"left out {scenario}.{latency_slug} {label}: {float(value)!r} ns, which line protocol cannot write")
            else:
                fields[field] = value
        latencies[key] = (latency["name"], fields)
    for original in sorted(rewritten_tags):
        notes.append(f"wrote the tag '{original}' as '{rewritten_tags[original]}': line protocol cannot carry a control "
                     "character, or a backslash before a separator or at the end")
    for original in sorted(rewritten_fields):
        notes.append(f"wrote the field '{original}' as '{rewritten_fields[original]}': line protocol cannot carry a "
                     "control character")
    return figures, latencies, git, notes


def check_influx(report, influx_file, url, database, stderr_file=None):
    import requests
    from influxdb import InfluxDBClient

    expected_figures, expected_latencies, git, notes = influx_expectations(report)
    check_notes("influx", stderr_file, notes)
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

    def check_common(label, point):
        if point.get("time") != report.timestamp_ns:
            fail(f"{label}: time {point.get('time')!r} ns, report.json startedAt {report.started_at} is {report.timestamp_ns} ns")
        if point.get("git_revision") != git:
            fail(f"{label}: git_revision {point.get('git_revision')!r}, report.json {report.git!r} implies {git!r}")

    def read_points(measurement, what, tags, fields):
        """Every point of `measurement` by its `tags` (a point read twice or a column other than
        time, the tags, `fields` and git_revision fails), and how many points were read."""
        got, read = {}, 0
        for point in client.query(f'SELECT * FROM "{measurement}"', epoch="ns").get_points():
            read += 1
            key = tuple(point.get(tag) for tag in tags)
            if key in got:
                fail(f"{what} point {key} read back twice")
            got[key] = point
            for column in sorted(set(point) - {"time", "git_revision", *tags, *fields}):
                if point[column] is not None:
                    fail(f"{what} point {key}: unexpected column {column} = {point[column]!r}")
        return got, read

    # Figures: one point per finite figure, tags scenario, figure, unit, host (each left out when empty).
    got, points = read_points(FIGURE_MEASUREMENT, "figure", ("scenario", "figure", "unit", "host"), ("value",))
    for key in sorted(set(expected_figures) - set(got), key=str):
        fail(f"figure {key[0]!r} / {key[1]!r} (unit tag {key[2]!r}, host {key[3]!r}): no point read back")
    for key in sorted(set(got) - set(expected_figures), key=str):
        fail(f"figure point read back that report.json does not imply: tags {key}, value {got[key].get('value')!r}")
    for key in sorted(set(got) & set(expected_figures), key=str):
        point = got[key]
        if not same(point.get("value"), expected_figures[key]):
            fail(f"figure {key[0]!r} / {key[1]!r}: value {point.get('value')!r} read back, report.json {expected_figures[key]!r}")
        check_common(f"figure {key[0]!r} / {key[1]!r}", point)
    figure_points = len(got)

    # Latencies: one point per latency, tags scenario, latency (the slug), host.
    got, read = read_points(LATENCY_MEASUREMENT, "latency", ("scenario", "latency", "host"), LATENCY_FIELDS)
    points += read
    for key in sorted(set(expected_latencies) - set(got), key=str):
        fail(f"latency {key[0]!r} / {expected_latencies[key][0]!r} (slug {key[1]}, host {key[2]!r}): no point read back")
    for key in sorted(set(got) - set(expected_latencies), key=str):
        fail(f"latency point read back that report.json does not imply: tags {key}")
    for key in sorted(set(got) & set(expected_latencies), key=str):
        point, (_, fields) = got[key], expected_latencies[key]
        label = f"latency {key[0]!r} / {key[1]}"
        for field in LATENCY_FIELDS:
            value, wanted = point.get(field), fields.get(field)
            if wanted is None and value is not None:
                fail(f"{label}: field {field} = {value!r} read back, the spec leaves it out (count {fields['count']})")
            elif wanted is not None and value is None:
                fail(f"{label}: field {field} missing, report.json has {wanted!r}")
            elif wanted is not None and not same(value, wanted):
                fail(f"{label}: field {field} = {value!r} read back, report.json {wanted!r}")
        check_common(label, point)

    implied = len(expected_figures) + len(expected_latencies)
    if points != implied:
        fail(f"{points} points read back, report.json implies {implied} "
             f"({len(expected_figures)} finite figures + {len(expected_latencies)} latencies)")
    if len(lines) != implied:
        fail(f"the influx file has {len(lines)} lines, report.json implies {implied} points")
    return finish(f"influx: {points} points read back ({figure_points} figures, {len(got)} latencies), all equal"
                  + (f"; {len(notes)} notes as expected" if stderr_file else ""))


# --- Prometheus Pushgateway --------------------------------------------------------------------

PREFIX = "segments_bench_report_"
JOB = "segments-bench"


def check_prometheus(report, prometheus_file, url, instance, stderr_file=None):
    import requests
    from prometheus_client.parser import text_string_to_metric_families

    check_notes("prometheus", stderr_file, report.notes + report.minimum_notes)
    with open(prometheus_file, "rb") as handle:
        body = handle.read()
    group = f"/metrics/job/{JOB}/instance/{instance}"
    answer = requests.put(url + group, data=body, headers={"Content-Type": "text/plain; version=0.0.4"}, timeout=60)
    if not 200 <= answer.status_code < 300:
        fail(f"PUT {group} answered {answer.status_code}: {answer.text.strip()}")
        return finish("pushgateway: push refused")
    exposition = requests.get(f"{url}/metrics", timeout=60)
    exposition.raise_for_status()

    # Only this group's samples: the pushgateway may hold other groups (another report's push).
    families = {}
    for family in text_string_to_metric_families(exposition.text):
        mine = [sample for sample in family.samples
                if sample.labels.get("job") == JOB and sample.labels.get("instance") == instance]
        if family.name == "push_failure_time_seconds":
            # The pushgateway keeps a failed push's time next to the last good one's.
            for sample in mine:
                if sample.value != 0:
                    fail(f"the pushgateway recorded a failed push for {group}: {sample.labels}")
        elif family.name.startswith(PREFIX) and mine:
            families[family.name] = (family.type, mine)

    def samples(name, kind):
        family = families.pop(name, None)
        if family is None:
            fail(f"no {name} metric in {group} after the push")
            return []
        if family[0] != kind:
            fail(f"{name} is a {family[0]}, the spec says {kind}")
        result = []
        for sample in family[1]:
            labels = dict(sample.labels)
            del labels["job"], labels["instance"]
            result.append((sample.name, labels, sample.value))
        return result

    series = 0
    # Figures: every figure, NaN and infinities included, in the figure's own unit (an empty label
    # is no label).
    expected = {(scenario, figure["name"], figure["unit"]): figure["value"] for scenario, figure in report.figures}
    got = {}
    for name, labels, value in samples(PREFIX + "figure", "gauge"):
        key = (labels.pop("scenario", ""), labels.pop("figure", ""), labels.pop("unit", ""))
        if labels:
            fail(f"figure {key}: unexpected labels {labels}")
        if key in got:
            fail(f"figure {key} read back twice")
        got[key] = value
    compare_series("figure", expected, got, relative=1e-9)
    series += len(got)

    # The summary: quantiles where the report has the percentile, _sum = mean × count, _count.
    expected, max_expected, min_expected = {}, {}, {}
    for scenario, latency_slug, latency, stats in report.latencies:
        for _, _, quantile, value in stats:
            if quantile is not None:
                expected[(scenario, latency_slug, quantile)] = value / 1e9
        expected[(scenario, latency_slug, "_sum")] = latency["mean"] * latency["count"] / 1e9
        expected[(scenario, latency_slug, "_count")] = latency["count"]
        if latency["count"] > 0:
            max_expected[(scenario, latency_slug)] = latency["max"] / 1e9
        for label, _, _, value in stats:
            if label == "min":
                min_expected[(scenario, latency_slug)] = value / 1e9
    got = {}
    summary = PREFIX + "latency_seconds"
    for name, labels, value in samples(summary, "summary"):
        scenario, latency_slug = labels.pop("scenario", ""), labels.pop("latency", "")
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

    for which, wanted_extremes in (("min", min_expected), ("max", max_expected)):
        got = {}
        for name, labels, value in samples(PREFIX + f"latency_{which}_seconds", "gauge"):
            key = (labels.pop("scenario", ""), labels.pop("latency", ""))
            if labels:
                fail(f"latency {which} {key}: unexpected labels {labels}")
            got[key] = value
        compare_series(f"latency {which}", wanted_extremes, got, relative=1e-9)
        series += len(got)

    info = samples(PREFIX + "info", "gauge")
    wanted = {"git_revision": report.git, "tool_version": report.tool_version, "host": report.host, "cpu_model": report.cpu_model}
    wanted = {key: value for key, value in wanted.items() if value}
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
        fail(f"unexpected metric {name} ({families[name][0]})")
    return finish(f"pushgateway: {series} series read back ({sum(1 for _ in report.figures)} figures, "
                  f"{len(report.latencies)} latency summaries, {len(min_expected)} minima, {len(max_expected)} maxima, info, start time), "
                  "all equal" + (f"; {len(report.notes) + len(report.minimum_notes)} notes as expected" if stderr_file else ""))


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


def benchmark_json_expectations(report, direction):
    """The entries of the JSON file for `direction` ("lower" or "higher") in the export's order (every
    latency statistic for lower, then the figures better that way), {name: (unit, value, extra)}, the
    first entry under a name kept; and the file's notes after those every format shares."""
    entries, notes = {}, list(report.notes) + (list(report.minimum_notes) if direction == "lower" else [])

    def add(name, unit, value, extra):
        if not math.isfinite(value):
            notes.append(f"left out {name}: its value is {swift_double(value)}, which JSON cannot write")
        elif name in entries:
            notes.append(f"left out a second entry named {name}")
        else:
            entries[name] = (unit, value, extra)

    if direction == "lower":
        for scenario, latency_slug, latency, stats in report.latencies:
            for label, _, _, value in stats:
                add(f"{scenario}.{latency_slug} {label}", "ns", float(value), f"{latency['count']} samples; {report.run}")
    for _, figure in report.figures:
        if better(figure) == direction:
            add(figure["name"], figure["unit"], figure["value"], report.run)
    undirected = [figure["name"] for _, figure in report.figures if not better(figure)]
    if undirected:
        more = f" and {len(undirected) - 1} more" if len(undirected) > 1 else ""
        notes.append(f"left out {len(undirected)} figure{'' if len(undirected) == 1 else 's'} that say neither lower "
                     f"nor higher is better ({undirected[0]}{more}): the csv, influx and prometheus formats hold them")
    return entries, notes


def check_files(report, csv_file, smaller_file, bigger_file, csv_stderr=None, smaller_stderr=None, bigger_stderr=None):
    check_notes("csv", csv_stderr, report.notes + report.minimum_notes)
    with open(csv_file, encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle, strict=True))
    if not rows or rows[0] != HEADER:
        fail(f"csv header {rows[0] if rows else None}, the spec says {HEADER}")
    expected = {}
    for scenario, figure in report.figures:
        expected[(scenario, "figure", figure["name"], "value")] = (figure["value"], figure["unit"], better(figure))
    for scenario, latency_slug, latency, stats in report.latencies:
        expected[(scenario, "latency", latency_slug, "count")] = (latency["count"], "count", "")
        for label, _, _, value in stats:
            expected[(scenario, "latency", latency_slug, label)] = (value, "ns", "lower")
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
        record, (wanted, unit, wanted_better) = got[key], expected[key]
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
        if record["better"] != wanted_better:
            fail(f"{label}: better {record['better']!r}, the spec implies {wanted_better!r}")

    # The JSON files: smaller = every latency statistic but the count (min … max, mean), and the
    # finite figures better lower; bigger = the finite figures better higher; one entry per name.
    sizes, notes = [], 0
    for path, direction, stderr_file in ((smaller_file, "lower", smaller_stderr), (bigger_file, "higher", bigger_stderr)):
        wanted, wanted_notes = benchmark_json_expectations(report, direction)
        check_notes(os.path.basename(path), stderr_file, wanted_notes)
        notes += len(wanted_notes) if stderr_file else 0
        sizes.append(check_benchmark_json(path, wanted))
    if csv_stderr:
        notes += len(report.notes) + len(report.minimum_notes)
    return finish(f"files: csv {len(rows) - 1} rows, json {sizes[0]} smaller-is-better + {sizes[1]} bigger-is-better "
                  "entries, all equal" + (f"; {notes} notes as expected" if csv_stderr or smaller_stderr or bigger_stderr else ""))


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
        got[name] = (unit, value, extra)
    for name in sorted(set(wanted) - set(got)):
        fail(f"{label}: no entry {name!r}, report.json implies {wanted[name][:2]}")
    for name in sorted(set(got) - set(wanted)):
        fail(f"{label}: entry {name!r} = {got[name][:2]} that the spec does not put in this file")
    for name in sorted(set(got) & set(wanted)):
        if got[name][0] != wanted[name][0]:
            fail(f"{label} {name!r}: unit {got[name][0]!r}, report.json {wanted[name][0]!r}")
        if not same(got[name][1], wanted[name][1]):
            fail(f"{label} {name!r}: value {got[name][1]!r}, report.json {wanted[name][1]!r}")
        if got[name][2] != wanted[name][2]:
            fail(f"{label} {name!r}: extra {got[name][2]!r}, report.json implies {wanted[name][2]!r}")
    return len(entries)


# --- A crafted report --------------------------------------------------------------------------

# Every character a format must escape or quote: space, comma, equals sign, double quote, a
# backslash before a letter (kept as it is in line protocol), a combining mark (U+0301) after a
# comma and after a quote (one Character each in Swift, two scalars), an emoji.
CRAFTED_HOST = 'ci runner, rack=3 "east"\\dc ,\u0301x "\u0301y \U0001F600'
COMBINING = "\u0301"


def craft(raw):
    """A report made from `raw` (a report.json's object) to exercise what the given report may not:
    two of its scenarios (the one whose latencies are smallest, one with figures), a few of their
    figures and a latency with samples, plus figures and latencies named with characters every
    format escapes, NaN and infinite figures, a figure and a latency (by slug) repeated in one
    scenario, a figure named as a JSON latency entry, a latency without samples, one whose recorded
    buckets fall short of its count, one of 10 samples whose file still has a p99, a start with a
    fraction of a second. One figure name holds a backslash before a comma and one a tab, which
    line protocol rewrites (to `/` and an escaped space) with a note, the tab's into the name of a
    third figure, which line protocol leaves out with a note; nothing ends in a backslash."""
    scenarios = raw.get("scenarios", [])

    def latency_size(scenario):
        return sum(len(json.dumps(latency.get("recorded", []))) for latency in scenario.get("latencies", []))

    with_samples = [s for s in scenarios if any(latency.get("count", 0) > 0 for latency in s.get("latencies", []))]
    first = min(with_samples, key=latency_size) if with_samples else {"scenario": "crafted", "figures": []}
    others = [s for s in scenarios if s is not first and s.get("figures")]
    second = min(others, key=lambda s: len(json.dumps(s))) if others else {"scenario": "crafted-too", "figures": []}
    a = first["scenario"]
    b = f'{second["scenario"]} "copy", \u00e9=1 \U0001F600'

    def kept(figures):  # a few of the report's own figures (with their gates and directions)
        return [dict(figure) for figure in figures[:6]]

    # 10 samples: p90 supported, the p99 an older file may still hold dropped.
    tiny = {"name": "tiny, 10 samples", "definition": "crafted", "count": 10, "p50": 120, "p90": 250, "p99": 250,
            "max": 250, "mean": 166.0, "coordinatedOmissionCorrected": False,
            "recorded": [{"value": 100, "count": 3}, {"value": 120, "count": 3}, {"value": 250, "count": 4}]}
    real = next((dict(latency) for latency in first.get("latencies", []) if latency.get("count", 0) > 0), tiny)
    real.pop("intervals", None)
    real_slug = slug(real["name"])
    short = dict(real, name="short history", recorded=real["recorded"][:-1])
    empty = {"name": 'never, "once"', "definition": "crafted", "count": 0, "p50": 0, "max": 0, "mean": 0,
             "coordinatedOmissionCorrected": False, "recorded": []}
    figures_a = kept(first.get("figures", [])) + [
        {"name": f'{a}.weird, name = "quoted"{COMBINING} x', "value": 1234.5, "unit": "ns", "summary": "crafted"},
        {"name": f'{a}.rate "per", x=y', "value": 250000.0, "unit": "ops/s", "summary": "crafted"},
        {"name": f'{a}.emoji \U0001F600 ,{COMBINING} "{COMBINING} end', "value": 0.75, "unit": "ratio",
         "direction": "higherIsBetter", "summary": "crafted"},
        {"name": f"{a}.not a number", "value": "NaN", "unit": "ns", "summary": "crafted"},
        {"name": f"{a}.infinite, up", "value": "Infinity", "unit": "ops/s", "summary": "crafted"},
        {"name": f"{a}.minus infinity", "value": "-Infinity", "unit": "ratio", "summary": "crafted"},
        {"name": f'{a}.twice = "dup"', "value": 1.0, "unit": "count", "direction": "lowerIsBetter", "summary": "crafted"},
        {"name": f'{a}.twice = "dup"', "value": 2.0, "unit": "count", "direction": "lowerIsBetter", "summary": "crafted"},
        {"name": f"{a}.{real_slug} p50", "value": 1.0, "unit": "ns", "summary": "named as a JSON latency entry"},
        {"name": f"{a}.back\\,slash", "value": 3.0, "unit": "count", "summary": "crafted"},
        {"name": f"{a}.tab\there", "value": 4.0, "unit": "count", "summary": "crafted"},
        # Rewritten, the tab's name is this one's: line protocol keeps the first and notes the second.
        {"name": f"{a}.tab here", "value": 5.0, "unit": "count", "summary": "crafted"},
        {"name": f"{a}.no unit", "value": 7.0, "unit": "", "summary": "crafted"},
    ]
    latencies_a = [real, dict(real, name=real["name"].upper() + "!"), short, empty]
    fraction = datetime.datetime.fromtimestamp(timestamp_ns(raw["startedAt"]) // 1_000_000_000, datetime.timezone.utc)
    crafted = {key: value for key, value in raw.items() if key not in ("scenarios", "interrupted", "mergedFrom")}
    crafted.update(
        startedAt=fraction.strftime("%Y-%m-%dT%H:%M:%S") + ".250Z",
        gitRevision=f'{raw.get("gitRevision", "unknown")[:12]} "{COMBINING}quoted\\path',
        machine=dict(raw.get("machine", {}), hostname=CRAFTED_HOST),
        scenarios=[
            {"scenario": a, "summary": "crafted", "figures": figures_a, "latencies": latencies_a},
            {"scenario": b, "summary": "crafted", "figures": kept(second.get("figures", [])), "latencies": [tiny]},
        ])
    return crafted


def write_crafted(report_path, directory):
    if os.path.isdir(report_path):
        report_path = os.path.join(report_path, "report.json")
    with open(report_path, encoding="utf-8") as handle:
        raw = json.load(handle)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "report.json"), "w", encoding="utf-8") as handle:
        json.dump(craft(raw), handle, ensure_ascii=False, indent=1)
        handle.write("\n")
    return 0


def main(argv):
    commands = {
        "influx": (check_influx, (4, 5)), "prometheus": (check_prometheus, (4, 5)), "files": (check_files, (4, 7)),
    }
    if len(argv) == 4 and argv[1] == "craft":
        return write_crafted(argv[2], argv[3])
    if len(argv) < 3 or argv[1] not in commands or len(argv) - 2 not in commands[argv[1]][1]:
        print(__doc__)
        return 64
    function, _ = commands[argv[1]]
    return function(Report(argv[2]), *argv[3:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
