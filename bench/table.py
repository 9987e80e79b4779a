#!/usr/bin/env python3
"""One table of every benchmark figure with its baseline and the ratio, from Google Benchmark JSON.

Every kjarni benchmark is named CASE/VARIANT/TAG (TAG: the API and the device). Within one
(CASE, TAG) the variants whose name starts with "raw" (the raw API call) or "peer" (another
library), or ends with "_direct" (a vendor library called directly), are baselines; every other
variant is compared with the group's first baseline by name. The figure is the median of the
repetitions (run with --benchmark_repetitions=N and interleaving, so that each variant sees the
same machine noise); the ratio is the variant's median time over the baseline's (below 1: faster
than the baseline), and throughput counters (GB/s, ...) are reported beside it. A benchmark that
times kjarni and its baseline in one loop reports the ratio itself (a
counter named "<x>_over_<baseline>"); the table shows that ratio for it.

    python3 bench/table.py --csv table.csv --markdown table.md run1.json run2.json ...
"""

import argparse
import csv
import json
import re
import statistics
import sys


def is_baseline(variant):
    return variant.startswith("raw") or variant.startswith("peer") or variant.endswith("_direct")


def medians(paths):
    """{(case, variant, tag): {"time": seconds, counter: value, ...}} over every file: the median of
    the individual repetitions, or Google Benchmark's own median aggregate where a file holds only
    aggregates (--benchmark_report_aggregates_only)."""
    runs, aggregates = {}, {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            try:
                report = json.load(f)
            except json.JSONDecodeError as error:
                print(f"{path}: not JSON ({error}); skipped", file=sys.stderr)
                continue
        for b in report.get("benchmarks", []):
            if "error_occurred" in b:
                continue
            if b.get("run_type") == "aggregate":
                if b.get("aggregate_name") != "median":
                    continue
                target = aggregates
            else:
                target = runs
            # Google Benchmark appends settings ("iterations:20", "manual_time", ...) to the name.
            parts = [part for part in b["run_name"].split("/") if part not in ("manual_time", "real_time") and
                     not re.fullmatch(r"(iterations|repeats|min_time|threads):.*", part)]
            if len(parts) < 3:
                continue
            key = (parts[0], parts[1], "/".join(parts[2:]))
            unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b.get("time_unit", "ns")]
            entry = target.setdefault(key, {"time": []})
            entry["time"].append(b["real_time"] * unit)
            for name, value in b.items():
                if isinstance(value, (int, float)) and (name.endswith("/s") or name.endswith("per_second") or
                                                        "_over_" in name):
                    entry.setdefault(name, []).append(value)
    merged = {**aggregates, **runs}
    return {key: {name: statistics.median(values) for name, values in entry.items()}
            for key, entry in merged.items()}


def rows(figures):
    groups = {}
    for (case, variant, tag), figure in figures.items():
        groups.setdefault((case, tag), []).append((variant, figure))
    for (case, tag), variants in sorted(groups.items()):
        # The first by name, not by order in the files: interleaved runs list variants in a random
        # order (for transfers that makes raw_pageable the baseline, not raw_pinned).
        baselines = sorted((v for v in variants if is_baseline(v[0])), key=lambda v: v[0])
        base = baselines[0] if baselines else None
        for variant, figure in sorted(variants, key=lambda v: (not is_baseline(v[0]), v[0])):
            rate = "; ".join(f"{value:.4g} {name}" for name, value in figure.items()
                             if name != "time" and "_over_" not in name)
            ratio, baseline = "", ""
            # A ratio measured inside one loop ("kjarni_over_raw": both timed side by side) is
            # steadier than one of two benchmarks: it takes precedence.
            paired = [(name, value) for name, value in figure.items() if "_over_" in name]
            if paired:
                name, value = paired[0]
                ratio, baseline = f"{value:.3f}", name.split("_over_", 1)[1] + " (same loop)"
            elif base is not None and variant != base[0]:
                ratio, baseline = f"{figure['time'] / base[1]['time']:.3f}", base[0]
            yield {
                "case": case,
                "device": tag,
                "variant": variant,
                "median_us": f"{figure['time'] * 1e6:.3f}",
                "rate": rate,
                "baseline": baseline,
                "time_ratio": ratio,
            }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+", help="Google Benchmark --benchmark_out files (format json)")
    parser.add_argument("--csv", help="write the table as CSV here")
    parser.add_argument("--markdown", help="write the table as Markdown here (default: standard output)")
    args = parser.parse_args()
    table = list(rows(medians(args.json)))
    columns = ["case", "device", "variant", "median_us", "rate", "baseline", "time_ratio"]
    if args.csv:
        with open(args.csv, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=columns)
            writer.writeheader()
            writer.writerows(table)
    lines = ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
    lines += ["| " + " | ".join(row[c] for c in columns) + " |" for row in table]
    text = "\n".join(lines) + "\n"
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
