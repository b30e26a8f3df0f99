#!/usr/bin/env python3
"""Writes the two small Azure Monitor exports of the worked example in docs/calibration.md.

The container is `shop/events`, today keyed by /tenantId, with 4 physical partitions; the
sample is fixtures/events.jsonl (3,000 documents standing for 30,000,000). Both files are
deterministic:

- sizes.csv: CDBPartitionKeyStatistics as the portal exports it (CSV, `TimeGenerated [UTC]`),
  the three tenants the service reports (over about 1 GB).
- ru.json: CDBPartitionKeyRUConsumption as `az monitor log-analytics query -o json` writes it,
  one hour (10:00 to 11:00 UTC) in 10-minute rows. Tenant t2 writes hard; t1 reads.

The PartitionKeyRangeId of each tenant is where a new 4-partition container puts its EPK
(`pkadvisor epk --ranges 4`), so the ids line up with the projected layout.

Usage: python3 examples/observed/make_exports.py [path/to/pkadvisor]
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PKADVISOR = sys.argv[1] if len(sys.argv) > 1 else "target/debug/pkadvisor"

# RU/s per (tenant, operation) over the hour.
LOAD = {
    "t2": {"Create": 400.0, "Read": 20.0},
    "t1": {"Read": 150.0, "Create": 50.0},
    "t3": {"Upsert": 30.0},
    "t4": {"Create": 12.0},
    "t5": {"Read": 8.0},
    "t6": {"Create": 6.0},
}
# SizeKb per tenant (the service reports keys over about 1 GB).
SIZES = {"t1": 3_900_000, "t2": 2_450_000, "t3": 3_400_000}
STEP_MIN = 10


def range_of(tenant, bounds):
    """The initial physical partition (0-based) of a tenant's EPK among `bounds`."""
    line = json.dumps({"version": "V2", "values": [tenant]}) + "\n"
    epk = subprocess.run(
        [PKADVISOR, "epk", "--batch", "-"], input=line, capture_output=True, text=True, check=True
    ).stdout.strip()
    return sum(1 for b in bounds if b and epk >= b)


def main():
    out = subprocess.run(
        [PKADVISOR, "epk", "--ranges", "4"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    bounds = [b for b in out[1:-1]]
    rows = []
    steps = 60 // STEP_MIN
    for tenant, ops in LOAD.items():
        rid = str(range_of(tenant, bounds))
        for op, ru_per_sec in ops.items():
            # steps + 1 rows from 10:00 to 11:00: the window is 3,600 s, and the RU of the
            # whole hour is spread evenly over the rows.
            for i in range(steps + 1):
                minute = i * STEP_MIN
                t = f"2026-11-24T{10 + minute // 60:02d}:{minute % 60:02d}:00Z"
                rows.append({
                    "TableName": "PrimaryResult",
                    "TimeGenerated": t,
                    "DatabaseName": "shop",
                    "CollectionName": "events",
                    "RegionName": "West Europe",
                    "PartitionKey": json.dumps([tenant]),
                    "PartitionKeyRangeId": rid,
                    "OperationName": op,
                    "RequestCharge": f"{ru_per_sec * 3600 / (steps + 1):.4f}",
                })
    with open(os.path.join(HERE, "ru.json"), "w") as f:
        json.dump(rows, f, indent=1)
        f.write("\n")
    with open(os.path.join(HERE, "sizes.csv"), "w") as f:
        f.write("TimeGenerated [UTC],DatabaseName,CollectionName,RegionName,PartitionKey,SizeKb\n")
        for tenant, kb in SIZES.items():
            key = json.dumps([tenant]).replace('"', '""')
            f.write(f'2026-11-24T11:00:00Z,shop,events,West Europe,"{key}",{kb}\n')


if __name__ == "__main__":
    main()
