#!/usr/bin/env bash
# The operating points' CV overlap against their validation overlap:
# for every tree policy (forest, xgboost; each target) and estimate rule
# that scripts/operating-points.sh trained and evaluated in OUTDIR, at its
# training-chosen point and per chain size, print the interruption
# reduction vs reactive, the mean overlap and zero-interruption share on
# validation (PROTOCOL-val/metrics.json), the CV overlap of the point
# from its manifest (mean over the training windows, the largest time
# block's, the bound its budget rule held within the budget, and k for
# the nested rule) and whether the validation overlap is within the
# budget. The last lines count the points within budget and compare the
# best reduction within budget with the goal (80 % on 1-node chains,
# 90 % on 8-node chains).
# Usage: scripts/operating-points-table.sh PROTOCOL OUTDIR
set -euo pipefail
P=${1:?protocol: ls6 or mirage-ls6}
D=${2:?output directory}
python3 - "$P" "$D" <<'PY'
import json, os, sys

p, d = sys.argv[1], sys.argv[2]
metrics = json.load(open(os.path.join(d, p + "-val", "metrics.json")))
pols = metrics["policies"]
goal = {"1": 0.80, "8": 0.90}
rows = []
for name in sorted(pols):
    if "@" in name or ":" not in name:
        continue
    kind, model = name.split(":", 1)
    if kind not in ("forest", "xgboost", "slurm-estimate"):
        continue
    mf = os.path.join(model, "manifest.json")
    if not os.path.exists(mf):
        continue
    op = json.load(open(mf)).get("operating_point")
    if not op:
        continue
    rule = op.get("budget_rule") or ("every-block" if op.get("budget_every_block") else "mean")
    label = kind + ":" + os.path.basename(model).removeprefix(p + "-").removeprefix(kind + "-")
    for chain, v in sorted(pols[name]["by_chain_nodes"].items(), key=lambda kv: int(kv[0])):
        cp = op["by_chain_nodes"].get(chain, op["default"])
        bound = cp.get("cv_overlap_bound_h")
        if bound is None:
            bound = cp["max_block_overlap_h"] if rule == "every-block" else cp["mean_overlap_h"]
        rows.append(dict(policy=label, chain=chain, rule=rule, param=op["param"], value=cp["value"],
                         red=v["interruption_reduction"], ov=v["mean_overlap_h"], zero=v["zero_interruption_share"],
                         cv_mean=cp["mean_overlap_h"], cv_max=cp["max_block_overlap_h"], bound=bound,
                         k=cp.get("cv_bound_k", 0.0), cv_within=cp["within_budget"],
                         budget=op["overlap_budget_h"], tree=kind != "slurm-estimate"))
hdr = "%-26s %5s %-11s %-8s %9s %7s %7s %6s %7s %7s %7s %5s %6s" % (
    "policy", "nodes", "rule", "param", "value", "red%", "valOv_h", "zero%", "cvMean", "cvMaxBl", "cvBound", "k", "within")
print("# %s: training-chosen operating points, CV (training windows) vs %s-val" % (p, p))
print(hdr)
for r in rows:
    within = r["ov"] <= r["budget"] + 1e-9
    r["within"] = within
    print("%-26s %5s %-11s %-8s %9.4g %7.1f %7.2f %6.1f %7.2f %7.2f %7.2f %5.2g %6s" % (
        r["policy"], r["chain"], r["rule"], r["param"], r["value"], 100 * r["red"], r["ov"], 100 * r["zero"],
        r["cv_mean"], r["cv_max"], r["bound"], r["k"], "yes" if within else "NO"))
tree = [r for r in rows if r["tree"]]
print("# tree points within budget on validation: %d of %d" % (sum(r["within"] for r in tree), len(tree)))
for chain in sorted({r["chain"] for r in tree}, key=int):
    ok = [r for r in tree if r["chain"] == chain and r["within"]]
    best = max(ok, key=lambda r: r["red"]) if ok else None
    g = goal.get(chain)
    if best:
        print("# %s-node chains: best reduction within budget %.1f %% (%s), goal %s: %s" % (
            chain, 100 * best["red"], best["policy"], "%.0f %%" % (100 * g) if g else "-",
            ("met" if best["red"] >= g else "not met") if g else "-"))
    else:
        print("# %s-node chains: no tree point within budget" % chain)
PY
