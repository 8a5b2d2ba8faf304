"""Prints the milliseconds one pass of custodian.fit.weigh over the corpus takes (best of runs,
cold: the token costs it remembers are forgotten before each pass). Run by bench/weigh-languages.ts."""

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "clients" / "python"))
from custodian import fit  # noqa: E402

docs = pathlib.Path(__file__).resolve().parents[1] / "test" / "fixtures" / "fit-corpus" / "docs"
texts = [p.read_text(encoding="utf-8") for p in sorted(docs.iterdir())]
runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
best_cold = best_warm = float("inf")
for _ in range(runs):
    fit._COSTS.clear()
    start = time.perf_counter()
    for t in texts:
        fit.weigh(t)
    best_cold = min(best_cold, time.perf_counter() - start)
    start = time.perf_counter()
    for t in texts:
        fit.weigh(t)
    best_warm = min(best_warm, time.perf_counter() - start)
print(f"{best_cold * 1000:.3f} {best_warm * 1000:.3f}")
