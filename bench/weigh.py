"""The speed of custodian.fit.weigh over the fit corpus, in milliseconds. Run by bench/weigh-languages.ts.

Prints five figures on one line, the processor time (time.process_time: on a busy machine other
processes inflate wall time) measured in this fresh process:
  import  the module's import (its tables and regular expressions are built once, here);
  first   the first pass over the corpus, right after the import;
  cold    one pass with every cache of token costs emptied first (text the process has not seen),
          the best of the runs;
  new     documents the process has not seen, after it has weighed others: half the corpus
          weighed (alternate documents) to warm up, the other half timed, and the same the other
          way round; the two halves' times added, the best of the runs. A plugin's steady state.
  warm    one pass right after another (every token's cost remembered), the best of the runs.
"""

import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
docs = ROOT / "test" / "fixtures" / "fit-corpus" / "docs"
texts = [p.read_text(encoding="utf-8") for p in sorted(docs.iterdir())]
runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10

sys.path.insert(0, str(ROOT / "clients" / "python"))
start = time.process_time()
from custodian import fit  # noqa: E402

imported = time.process_time() - start


def one_pass() -> float:
    start = time.process_time()
    for t in texts:
        fit.weigh(t)
    return time.process_time() - start


def forget() -> None:
    fit._UNITS.clear()
    fit._UNCOMMON_UNITS.clear()
    fit._IS_COMMON.clear()


def new_documents() -> float:
    spent = 0.0
    for half in (0, 1):
        forget()
        for t in texts[1 - half :: 2]:
            fit.weigh(t)
        start = time.process_time()
        for t in texts[half::2]:
            fit.weigh(t)
        spent += time.process_time() - start
    return spent


first = one_pass()
best_cold = best_new = best_warm = float("inf")
for _ in range(runs):
    best_new = min(best_new, new_documents())
    forget()
    best_cold = min(best_cold, one_pass())
    best_warm = min(best_warm, one_pass())
print(" ".join(f"{s * 1000:.3f}" for s in (imported, first, best_cold, best_new, best_warm)))
