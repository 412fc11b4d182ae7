"""The L1 ports rule's exponent, from the block-side records: for each folder v14-<profile>/ given,
every point's measured median T, its L1 time M (the v9 price of the same run, v9-priced-again.csv:
v9 has no chain) and its chain C (v14's counts, N^3/BS^2 (BS/2 + 1) K store-to-load round trips and
N^3/BS K FMA latencies, over n ranks, at the profile's store_load and fma latencies). Prints, over
the points with BS >= 24, the mean E of (C^p + M^p)^(1/p) for several p and of the max, and per
folder the mean E of the prediction as recorded (matmul-bs.csv), of the max and of v9.

    python3 examples/corpus/records/matmul-block-side-1205/analyse.py \\
        examples/corpus/records/matmul-block-side-1205/v14-epyc-vm-1205{t,u,v,w}

The exponent in predict/predictor.cpp (2.5) was chosen from this output for 1205t to w; for the
folders recorded after it (1206 to 1206d) the recorded prediction is the rule's, blind."""
import csv
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDS = os.path.dirname(HERE)


def latency(profile_text, kernel):
    match = re.search(r"\n    " + re.escape(kernel) + r":\n      value: ([0-9.eE+-]+)", profile_text)
    if not match:
        sys.exit(f"analyse.py: the profile has no compute.kernels.{kernel}")
    return float(match.group(1))


def points(folder):
    profile = os.path.basename(os.path.normpath(folder))[len("v14-"):]
    text = open(os.path.join(RECORDS, profile, profile + ".yaml")).read()
    round_trip, fma = latency(text, "store_load.latency"), latency(text, "fma.latency")
    v9 = {(r["setting"], r["n"]): float(r["predicted_seconds"])
          for r in csv.DictReader(open(os.path.join(folder, "v9-priced-again.csv")))}
    for r in csv.DictReader(open(os.path.join(folder, "matmul-bs.csv"))):
        s = dict(kv.split("=") for kv in r["setting"].split(","))
        size, side, k, n = float(s["N"]), float(s["BS"]), float(s["K"]), int(r["n"])
        chain = (size**3 / side**2 * (side / 2 + 1) * k * round_trip + size**3 / side * k * fma) / n
        yield (side, float(r["measured_median_seconds"]), v9[(r["setting"], r["n"])], chain,
               float(r["predicted_seconds"]))


def error(t, p):
    return max(t, p) / min(t, p)


def p_norm(p):
    return lambda m, c: (m**p + c**p) ** (1 / p)


folders = sys.argv[1:] or sys.exit(__doc__)
everything = [(f, pt) for f in folders for pt in points(f)]
wide = [pt for _, pt in everything if pt[0] >= 24]
print(f"{len(wide)} points with BS >= 24:")
for name, combine in [(f"p = {p:g}", p_norm(p)) for p in (1.5, 2, 2.5, 3, 4, 6)] + [("max", max)]:
    errors = [error(t, combine(m, c)) for _, t, m, c, _ in wide]
    bias = math.exp(sum(math.log(t / combine(m, c)) for _, t, m, c, _ in wide) / len(wide))
    print(f"  {name:8} mean E {sum(errors) / len(errors):.3f}, largest {max(errors):.2f}, "
          f"geometric mean T / P {bias:.3f}")
for folder in folders:
    mine = [pt for f, pt in everything if f == folder]
    for label, keep in (("all", lambda side: True), ("BS 32 to 64", lambda side: 32 <= side <= 64)):
        chosen = [pt for pt in mine if keep(pt[0])]
        if not chosen:
            continue
        mean = lambda e: sum(e) / len(e)
        print(f"{os.path.basename(os.path.normpath(folder))}, {label} ({len(chosen)} points): "
              f"recorded {mean([error(t, r) for _, t, _, _, r in chosen]):.3f}, "
              f"max {mean([error(t, max(m, c)) for _, t, m, c, _ in chosen]):.3f}, "
              f"v9 {mean([error(t, m) for _, t, m, _, _ in chosen]):.3f}")
