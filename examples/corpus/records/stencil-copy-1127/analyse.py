"""Reads runs.txt (run.sh's output): the stencil's sweep rate at two ranks (its bytes as the copy
counts them, 16 B a point, over the median repetition) against the copy and triad just before and
after it."""
import re
import statistics as st
import sys

N, K = 4096, 30
moved = 16 * (N - 2) ** 2 * K
ratios = []
for line in open(sys.argv[1] if len(sys.argv) > 1 else "runs.txt"):
    before, runs, after = line.split("|")
    c0, t0 = map(float, re.search(r"copy ([\d.]+) triad ([\d.]+)", before).groups())
    c1, t1 = map(float, re.search(r"copy ([\d.]+) triad ([\d.]+)", after).groups())
    seconds = st.median(float(x) for x in runs.split(":")[1].split())
    rate = moved / seconds / 1e9
    ratios.append(rate / ((c0 + c1) / 2))
    print(f"copy {c0:.1f} / {c1:.1f}, triad {t0:.1f} / {t1:.1f} GB/s; stencil {seconds:.3f} s = "
          f"{rate:.1f} GB/s: {rate / ((c0 + c1) / 2):.2f} of the copy, "
          f"{rate / ((t0 + t1) / 2):.2f} of the triad")
print(f"the stencil's rate over the copy's around it: {min(ratios):.2f} .. {max(ratios):.2f}, "
      f"mean {st.mean(ratios):.2f}")
