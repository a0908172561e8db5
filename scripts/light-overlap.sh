#!/usr/bin/env bash
# Where the overlap goes: for every policy at its training-chosen
# operating point (no sweep variants) that scripts/operating-points.sh
# evaluated in OUTDIR, per chain size, the mean overlap per window, the
# share of its overlap hours spent in light windows (reactive
# interruption <= 2 h, windows.csv's load_class) and, for reference, the
# share of the reactive policy's interruption hours those windows hold
# and the interruption reduction. A policy that sees how large an
# interruption would be spends little overlap where little is lost.
# Usage: scripts/light-overlap.sh PROTOCOL OUTDIR
set -euo pipefail
P=${1:?protocol: ls6 or mirage-ls6}
D=${2:?output directory}
python3 - "$P" "$D" <<'PY'
import csv, os, sys
from collections import defaultdict

p, d = sys.argv[1], sys.argv[2]
agg = defaultdict(lambda: defaultdict(float))
order = []
with open(os.path.join(d, p + "-val", "windows.csv")) as f:
    for row in csv.DictReader(f):
        pol = row["policy"]
        if "@" in pol:
            continue
        if ":" in pol:
            kind, model = pol.split(":", 1)
            pol = kind + ":" + os.path.basename(model).removeprefix(p + "-").removeprefix(kind + "-")
        key = (pol, int(row["chain_nodes"]))
        if key not in agg:
            order.append(key)
        a = agg[key]
        light = row["load_class"] == "light"
        ov = float(row["overlap_h"])
        react = max(int(row["reactive_r_sec"]), 0) / 3600
        a["windows"] += 1
        a["overlap"] += ov
        a["interruption"] += float(row["interruption_h"])
        a["reactive"] += react
        if light:
            a["light_windows"] += 1
            a["light_overlap"] += ov
            a["light_reactive"] += react
print("# %s-val: overlap spent in light windows (reactive interruption <= 2 h)" % p)
print("%-26s %5s %7s %7s %7s %8s %9s" % ("policy", "nodes", "windows", "red%", "ov_h", "light%ov", "light%int"))
for pol, n in sorted(order, key=lambda k: (k[1], k[0])):
    a = agg[(pol, n)]
    share = lambda x, y: 100 * x / y if y > 0 else float("nan")
    red = 100 * (1 - a["interruption"] / a["reactive"]) if a["reactive"] > 0 else float("nan")
    print("%-26s %5d %7d %7.1f %7.2f %8.1f %9.1f" % (pol, n, a["windows"], red, a["overlap"] / a["windows"],
          share(a["light_overlap"], a["overlap"]), share(a["light_reactive"], a["reactive"])))
PY
