#!/usr/bin/env python3
"""Independent check of a gateway Parquet lake with two readers the gateway
does not use itself: pyarrow.dataset (hive partitioning) and DuckDB
(read_parquet(..., hive_partitioning=true)).

Usage:
    check_lake.py LAKE_DIR [--expect JSON | --expect-file PATH]   (else stdin)

The expectation is a JSON object:
    {
      "count": 3,                       # exact number of rows in the lake
      "schema_version": 1,              # optional: every file's metadata value
      "rows": {                         # optional: rows keyed "<org_id>/<request_id>"
        "org-1/req-1": {"model": "gpt-4o", "total_tokens": 12, "cost_usd": null,
                        "started_at": "2026-03-14T12:00:00.123456Z",
                        "date": "2026-03-14",
                        "policy_hits": [{"policy": "pii.email", "stage": "output"}]}
      }
    }

Only the columns named for a row are compared (and only the keys named inside
a struct); lists must have the same length. Timestamps are compared as
instants (expected as ISO-8601 text), floats with a 1e-9 relative tolerance,
the hive "date" column as YYYY-MM-DD text. Every row is also checked for
unique (org_id, request_id) and for date == UTC date of received_at.

Prints one line per reader and per mismatch; exits 0 when both readers agree
with the expectation, 1 on any mismatch, 2 on bad usage or unreadable input.
"""

import argparse
import datetime as dt
import glob
import json
import math
import os
import sys

import duckdb
import pyarrow.dataset as ds
import pyarrow.parquet as pq

SCHEMA_VERSION_KEY = b"gateway.lake.schema_version"


def read_pyarrow(lake):
    root = os.path.join(lake, "traces")
    if not os.path.isdir(root):
        return []
    # pyarrow ignores files starting with "." or "_" (our temp files) itself.
    dataset = ds.dataset(root, format="parquet", partitioning="hive")
    return dataset.to_table().to_pylist()


def read_duckdb(lake):
    pattern = os.path.join(lake, "traces", "*", "*.parquet")
    if not glob.glob(pattern):
        return []
    con = duckdb.connect()
    try:
        con.execute("SET TimeZone='UTC'")
        literal = "'" + pattern.replace("'", "''") + "'"
        rel = con.sql(f"SELECT * FROM read_parquet({literal}, hive_partitioning=true)")
        # DuckDB 2.x names it to_arrow_table, 1.x arrow.
        fetch = getattr(rel, "to_arrow_table", None) or rel.arrow
        return fetch().to_pylist()
    finally:
        con.close()


def check_metadata(lake, want_version):
    problems = []
    files = sorted(glob.glob(os.path.join(lake, "traces", "*", "*.parquet")))
    for path in files:
        meta = pq.ParquetFile(path).metadata.metadata or {}
        got = meta.get(SCHEMA_VERSION_KEY)
        if got is None:
            problems.append(f"{path}: no {SCHEMA_VERSION_KEY.decode()} metadata")
        elif want_version is not None and got.decode() != str(want_version):
            problems.append(f"{path}: schema_version {got.decode()}, want {want_version}")
    return files, problems


def norm(value):
    """Normalises reader values so both readers compare alike."""
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:  # a naive timestamp would be a schema bug
            return ("naive", value.isoformat())
        return value.astimezone(dt.timezone.utc)
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def parse_instant(text):
    t = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.timezone.utc)
    return t.astimezone(dt.timezone.utc)


def mismatch(path, want, got):
    """Returns a description of the first difference, or None."""
    got = norm(got)
    if want is None or got is None:
        return None if want is None and got is None else f"{path}: want {want!r}, got {got!r}"
    if isinstance(got, dt.datetime):
        try:
            w = parse_instant(want) if isinstance(want, str) else None
        except ValueError:
            w = None
        return None if w == got else f"{path}: want {want!r}, got {got.isoformat()}"
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return f"{path}: want struct {want!r}, got {got!r}"
        for k, v in want.items():
            if k not in got:
                return f"{path}.{k}: column missing"
            m = mismatch(f"{path}.{k}", v, got[k])
            if m:
                return m
        return None
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return f"{path}: want {want!r}, got {got!r}"
        for i, (w, g) in enumerate(zip(want, got)):
            m = mismatch(f"{path}[{i}]", w, g)
            if m:
                return m
        return None
    if isinstance(want, bool) or isinstance(got, bool):
        return None if want is got else f"{path}: want {want!r}, got {got!r}"
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        if isinstance(want, int) and isinstance(got, int):
            ok = want == got
        else:
            ok = math.isclose(float(want), float(got), rel_tol=1e-9, abs_tol=1e-12)
        return None if ok else f"{path}: want {want!r}, got {got!r}"
    return None if want == got else f"{path}: want {want!r}, got {got!r}"


def check_rows(reader, rows, expect):
    problems = []
    by_key = {}
    for r in rows:
        key = f"{r.get('org_id')}/{r.get('request_id')}"
        if key in by_key:
            problems.append(f"{reader}: duplicate row {key}")
        by_key[key] = r
        received = norm(r.get("received_at"))
        date = norm(r.get("date"))
        if not isinstance(received, dt.datetime):
            problems.append(f"{reader}: {key}: received_at is not a UTC timestamp: {received!r}")
        elif date != received.date().isoformat():
            problems.append(f"{reader}: {key}: date={date} but received_at {received.isoformat()}")
    if "count" in expect and len(rows) != expect["count"]:
        problems.append(f"{reader}: count {len(rows)}, want {expect['count']}")
    for key, cols in (expect.get("rows") or {}).items():
        got = by_key.get(key)
        if got is None:
            problems.append(f"{reader}: row {key} missing")
            continue
        m = mismatch(f"{reader}: {key}", cols, got)
        if m:
            problems.append(m)
    return problems


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("lake", help="lake directory (holding traces/)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--expect", help="expectation JSON text")
    g.add_argument("--expect-file", help="file holding the expectation JSON")
    args = ap.parse_args(argv)
    try:
        if args.expect is not None:
            expect = json.loads(args.expect)
        elif args.expect_file is not None:
            with open(args.expect_file) as f:
                expect = json.load(f)
        else:
            expect = json.load(sys.stdin)
    except (OSError, ValueError) as e:
        print(f"check_lake: bad expectation: {e}", file=sys.stderr)
        return 2
    if not isinstance(expect, dict):
        print("check_lake: the expectation must be a JSON object", file=sys.stderr)
        return 2

    files, problems = check_metadata(args.lake, expect.get("schema_version"))
    print(f"files: {len(files)}")
    for reader, read in (("pyarrow", read_pyarrow), ("duckdb", read_duckdb)):
        try:
            rows = read(args.lake)
        except Exception as e:  # any reader failure is a finding, not a crash
            problems.append(f"{reader}: cannot read lake: {type(e).__name__}: {e}")
            continue
        print(f"{reader}: {len(rows)} rows")
        problems.extend(check_rows(reader, rows, expect))
    for p in problems:
        print(f"MISMATCH {p}")
    print("OK" if not problems else f"FAILED: {len(problems)} mismatch(es)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
