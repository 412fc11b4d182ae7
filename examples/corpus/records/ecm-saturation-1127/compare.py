"""Compares two rescorings of the same checks' records, point by point: OLD and NEW are folders of
rescore.sh outputs, one subfolder a check (its profile's name), as run.sh writes them."""
import csv
import glob
import os
import statistics as st
import sys

OLD, NEW = sys.argv[1], sys.argv[2]
PROGRAMS = ["stream", "stencil", "cg", "transpose", "matmul", "random_update", "heat"]
every_old, every_new = [], []
for folder in sorted(glob.glob(os.path.join(OLD, "*"))):
    name = os.path.basename(folder)
    old_e, new_e, changed = [], [], []
    for program in PROGRAMS:
        before = os.path.join(OLD, name, program + ".csv")
        after = os.path.join(NEW, name, program + ".csv")
        if not (os.path.exists(before) and os.path.exists(after)):
            continue
        was = {r["n"]: r for r in csv.DictReader(open(before)) if not r["setting"]}
        now = {r["n"]: r for r in csv.DictReader(open(after)) if not r["setting"]}
        for n in was:
            a, b = float(was[n]["error_ratio"]), float(now[n]["error_ratio"])
            old_e.append(a)
            new_e.append(b)
            if abs(a - b) > 1e-9:
                changed.append(f"{program} n{n} {a:.2f}->{b:.2f}")
    if not old_e:
        continue
    every_old += old_e
    every_new += new_e
    print(f"{name:16s} old {st.mean(old_e):.3f}/{max(old_e):.2f}/{sum(e > 1.3 for e in old_e)}  "
          f"new {st.mean(new_e):.3f}/{max(new_e):.2f}/{sum(e > 1.3 for e in new_e)}  "
          + "; ".join(changed))
print(f"all {len(every_old)} points: mean E old {st.mean(every_old):.3f}, new {st.mean(every_new):.3f}; "
      f"above 1.3 old {sum(e > 1.3 for e in every_old)}, new {sum(e > 1.3 for e in every_new)}")
