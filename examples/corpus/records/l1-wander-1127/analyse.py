"""Reads runs.txt (run.sh's output): how each probe figure follows the multiply's rate, and what
pricing each run at the median run's time moved by the L1 read around it would have given."""
import re
import statistics as st
import sys

KEYS = ["add_ns", "fma_gflops", "l1axpy_GBs", "l1read_GBs"]


def corr(x, y):
    mx, my = st.mean(x), st.mean(y)
    sx = sum((a - mx) ** 2 for a in x) ** 0.5
    sy = sum((b - my) ** 2 for b in y) ** 0.5
    return sum((a - mx) * (b - my) for a, b in zip(x, y)) / sx / sy


def figure(text, key):
    return float(re.search(key + r" ([\d.]+)", text).group(1))


rows = []
for line in open(sys.argv[1] if len(sys.argv) > 1 else "runs.txt"):
    before, runs, after = line.split("|")[:3]  # a fourth field, if any, is a note
    seconds = [float(x) for x in re.findall(r'"seconds": ([\d.]+)', runs)]
    rows.append((st.median(seconds), seconds, [figure(before, k) for k in KEYS],
                 [figure(after, k) for k in KEYS]))
t = [r[0] for r in rows]
every = [s for r in rows for s in r[1]]
print(f"{len(rows)} runs; the median repetition of each: {min(t):.3f} .. {max(t):.3f} s, "
      f"median {st.median(t):.3f}; single repetitions {min(every):.3f} .. {max(every):.3f} s")
for i, key in enumerate(KEYS):
    around = [(r[2][i] + r[3][i]) / 2 for r in rows]
    print(f"{key:11s} {min(min(r[2][i], r[3][i]) for r in rows):7.3g} .. "
          f"{max(max(r[2][i], r[3][i]) for r in rows):7.3g}   correlation of the mean around a "
          f"run with its rate: {corr([1 / x for x in t], around):.2f}")


def ratio(p, m):
    return max(p, m) / min(p, m)


reads = [(r[2][3] + r[3][3]) / 2 for r in rows]
usual = st.median(reads)
median_time = st.median(t)
plain = [ratio(median_time, m) for m in t]
moved = [ratio(median_time * usual / read, m) for m, read in zip(t, reads)]
for name, e in (("priced at the median run", plain), ("moved by the L1 read around it", moved)):
    print(f"{name:32s} mean E {st.mean(e):.3f}, largest {max(e):.2f}, above 1.3: "
          f"{sum(x > 1.3 for x in e)}")
