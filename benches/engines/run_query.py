#!/usr/bin/env python3
"""Runs a `pkadvisor sql` query in an engine over a JSON Lines file and writes the key
statistics. Usage:
  run_query.py duckdb QUERY.sql OUT.csv            (the query names its own source)
  run_query.py spark  QUERY.sql OUT.jsonl SOURCE.jsonl   (registered as the view `events`)
Prints the engine's wall time (query only, engine start excluded) to stderr."""
import csv
import json
import sys
import time


def duckdb_run(query, out):
    import duckdb
    con = duckdb.connect()
    # A session time zone far from UTC: the query must not depend on it.
    con.execute("SET TimeZone = 'America/New_York'")
    t0 = time.time()
    cur = con.execute(query)
    cols = [d[0] for d in cur.description]
    rows = cur.fetchall()
    elapsed = time.time() - t0
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for r in rows:
            w.writerow(["" if v is None else v for v in r])
    return elapsed, len(rows)


def spark_run(query, out, source):
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[2]").appName("pkadvisor-engines")
             .config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "4")
             .config("spark.sql.session.timeZone", "America/New_York")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    spark.read.text(source).createOrReplaceTempView("events")
    t0 = time.time()
    rows = spark.sql(query).collect()
    elapsed = time.time() - t0
    with open(out, "w") as f:
        for r in rows:
            f.write(json.dumps(r.asDict()) + "\n")
    spark.stop()
    return elapsed, len(rows)


def main():
    engine, query_file, out = sys.argv[1:4]
    query = open(query_file).read()
    if engine == "duckdb":
        elapsed, n = duckdb_run(query, out)
    elif engine == "spark":
        elapsed, n = spark_run(query, out, sys.argv[4])
    else:
        sys.exit(f"unknown engine {engine}")
    print(f"{engine}: query {elapsed:.2f}s, {n} key-statistics rows", file=sys.stderr)


if __name__ == "__main__":
    main()
