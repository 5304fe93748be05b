"""Reads a segments-bench report's HdrHistogram interval logs (.hlog) with an independent
decoder, HdrHistogram's Python port (its HistogramLogReader and V2 histogram decoder), and checks
that every log decodes and that each latency's intervals add up to the count in report.json.

Usage: python hlog_check.py REPORT_DIR
Exits 0 when every check passes, 1 otherwise (one line per failure).
"""
import json
import os
import re
import sys

from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogReader


def tag_safe(text):
    """The harness's tag escaping (IntervalLogWriter.tagSafe)."""
    cleaned = re.sub(r"[,;:\s]", "_", text)
    return cleaned or "_"


def parse_tag(tag):
    parts = {}
    for part in (tag or "").split(";"):
        key, _, value = part.partition(":")
        parts[key] = value
    return parts


def main(directory):
    failures = []
    with open(os.path.join(directory, "report.json"), encoding="utf-8") as handle:
        report = json.load(handle)
    expected = {}
    for scenario in report.get("scenarios", []):
        for latency in scenario.get("latencies", []):
            if latency.get("intervals"):
                key = (tag_safe(scenario["scenario"]), tag_safe(latency["name"]))
                expected[key] = latency["count"]
    if not expected:
        failures.append("report.json has no latency recorded by interval")

    logs = sorted(name for name in os.listdir(directory) if name.endswith(".hlog"))
    decoded = {}
    intervals = 0
    for name in logs:
        reader = HistogramLogReader(os.path.join(directory, name), HdrHistogram(1, 60_000_000_000, 3))
        start_time = None
        while True:
            histogram = reader.get_next_interval_histogram()
            if histogram is None:
                break
            if start_time is None:
                start_time = reader.get_start_time_sec()
            intervals += 1
            tag = parse_tag(histogram.get_tag())
            if "host" not in tag:
                failures.append(f"{name}: interval without a host tag")
            key = (tag.get("scenario"), tag.get("latency"))
            decoded[key] = decoded.get(key, 0) + histogram.get_total_count()
        if not start_time:
            failures.append(f"{name}: no #[StartTime] or no interval")

    for key, count in sorted(expected.items()):
        if key not in decoded:
            failures.append(f"{key[0]} / {key[1]}: no interval log decoded")
        elif decoded[key] != count:
            failures.append(f"{key[0]} / {key[1]}: intervals add up to {decoded[key]}, report.json counts {count}")
    for key in sorted(set(decoded) - set(expected)):
        failures.append(f"{key[0]} / {key[1]}: an interval log without its latency in report.json")

    for failure in failures:
        print("FAIL " + failure)
    total = sum(decoded.values())
    print(f"hlog check: {len(logs)} logs, {intervals} intervals, {total} values decoded; "
          f"{len(expected) - len([f for f in failures if ' / ' in f])} of {len(expected)} latencies match report.json")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(64)
    sys.exit(main(sys.argv[1]))
