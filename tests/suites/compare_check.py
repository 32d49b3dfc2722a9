#!/usr/bin/env python3
"""Independent check of `vmsim compare`: recompute every statistic,
percentage and significance marker of the CSV output from the result
files with plain Python (statistics module, a continued-fraction
incomplete beta for Welch's t-test) and require agreement to 4
significant digits. Usage: compare_check.py VMSIM DATADIR"""
import csv, io, json, math, statistics, subprocess, sys

vmsim, data = sys.argv[1], sys.argv[2]
files = [f"{data}/base.json", f"{data}/worse.json", f"{data}/same.json"]


def betacf(a, b, x):
    # Lentz's continued fraction for the incomplete beta function.
    tiny, qab, qap, qam = 1e-300, a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                   -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1 + aa * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
    return h


def betainc(a, b, x):
    if x <= 0 or x >= 1:
        return 0.0 if x <= 0 else 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(lbt) * betacf(a, b, x) / a
    return 1 - math.exp(lbt) * betacf(b, a, 1 - x) / b


def welch_p(a, b):
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    t = (statistics.mean(a) - statistics.mean(b)) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    return betainc(df / 2, 0.5, df / (df + t * t))


def best(x, pct, higher):
    k = max(1, int(len(x) * pct / 100))
    s = sorted(x)
    return statistics.harmonic_mean(s[-k:]) if higher else statistics.mean(s[:k])


def hstddev(x):
    # mmtests' calc_stddev for the harmonic mean:
    # sqrt(sum (1/x - 1/H)^2 * H^4 / n), NaN for one sample
    if len(x) < 2:
        return float("nan")
    h = statistics.harmonic_mean(x)
    return math.sqrt(sum((1 / v - 1 / h) ** 2 for v in x) * h ** 4 / len(x))


def stat(name, x, higher):
    return {
        "Min": min(x), "Max": max(x), "Stddev": statistics.stdev(x),
        "CoeffVar": 100 * statistics.stdev(x) / statistics.mean(x),
        "HStddev": hstddev(x),
        "HCoeffVar": 100 * hstddev(x) / statistics.harmonic_mean(x),
        "Hmean": statistics.harmonic_mean(x), "Amean": statistics.mean(x),
        "Median": statistics.median(x),
    }.get(name) if not name.startswith("B") else best(x, float(name.split("-")[1]), higher)


def mean(x, higher):
    return statistics.harmonic_mean(x) if higher else statistics.mean(x)


def significant(rule, b, x, higher):
    """The marker rule, recomputed: welch (0.05), mmtests-ttest (Student's
    t on the mean, n1+n2-2 df, 0.10), mmtests-ci (|diff| > 1.96 sd sum)."""
    if rule == "welch":
        return welch_p(b, x) < 0.05
    mb, mx = mean(b, higher), mean(x, higher)
    if rule == "mmtests-ci":
        sd = hstddev if higher else statistics.stdev
        return abs(mx - mb) > 1.96 * (sd(b) + sd(x))
    df = len(b) + len(x) - 2
    sp2 = ((len(b) - 1) * statistics.variance(b) + (len(x) - 1) * statistics.variance(x)) / df
    t = (mb - mx) / math.sqrt(sp2 * (1 / len(b) + 1 / len(x)))
    return betainc(df / 2, 0.5, df / (df + t * t)) < 0.10


def close(a, b):
    return abs(a - b) <= 1e-4 * max(abs(a), abs(b), 1e-12)


res = [json.load(open(f)) for f in files]
labels = [r["scheme"] for r in res]
checked = bad = 0
for rule in ("welch", "mmtests-ttest", "mmtests-ci"):
    out = subprocess.run([vmsim, "compare", "--format", "csv", "--significance", rule] + files,
                         capture_output=True, text=True, check=True).stdout
    for row in csv.DictReader(io.StringIO(out)):
        if row["section"] != "metric":
            continue
        metric, tasks = row["key"].rsplit("-", 1)
        i = labels.index(row["label"])
        higher = res[0]["metrics"][metric]["better"] == "higher"
        pt = [p for p in res[i]["results"] if p["tasks"] == int(tasks)][0]
        bpt = [p for p in res[0]["results"] if p["tasks"] == int(tasks)][0]
        x, b = pt["samples"][metric], bpt["samples"][metric]
        v, bv = stat(row["stat"], x, higher), stat(row["stat"], b, higher)
        lower_form = row["stat"] in ("Stddev", "CoeffVar", "HStddev", "HCoeffVar") or not higher
        pct = 100 - 100 * v / bv if lower_form else 100 * v / bv - 100
        ok = close(float(row["value"]), v) and abs(float(row["diff_pct"]) - pct) < 5e-4 * max(1, abs(pct))
        if row["stat"] in ("Hmean", "Amean") and i > 0:
            sig = significant(rule, b, x, higher) and abs(pct) > 0
            ok = ok and (row["significant"] == "yes") == sig
        elif row["significant"]:
            ok = ok and row["significant"] == "no" if i == 0 else ok
        checked += 1
        if not ok:
            bad += 1
            print(f"MISMATCH ({rule}) {row}: want value {v:.6g} pct {pct:.6g}")
print(f"compare_check: {checked} values checked, {bad} mismatches")
sys.exit(1 if bad or checked < 270 else 0)
