"""The checkpoint fuzzer run by hand: ``python -m tests.security.fuzz_main [SEED] [N]``.

Prints a count of outcomes and every case where numtorch's outcome is not acceptable next to
torch 2.13's (see ``_fuzz.compare``); the failing files stay under the printed folder.
"""

import collections
import sys
import tempfile
import time

from tests.security import _fuzz


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    workdir = tempfile.mkdtemp(prefix="ntfuzz")
    t0 = time.time()
    cases = _fuzz.make_cases(seed, n, workdir)
    want = _fuzz.run_cases("torch", cases, workdir, timeout=60 + 30 * n)
    got = _fuzz.run_cases("numtorch", cases, workdir, timeout=60 + 30 * n)
    tally, bad = collections.Counter(), []
    for case in cases:
        w, g = want[case["id"]], got[case["id"]]
        tally[(w["kind"], g["kind"])] += 1
        verdict = _fuzz.compare(case, w, g, want[f"{case['base']}-{case['weights_only']}"])
        if verdict:
            bad.append((case, verdict, w, g))
    print(f"seed {seed}: {n} cases in {time.time() - t0:.0f} s, folder {workdir}")
    for (wk, gk), count in sorted(tally.items()):
        print(f"  torch {wk:6s} numtorch {gk:6s}: {count}")
    print(f"  unacceptable: {len(bad)}")
    for case, verdict, w, g in bad:
        print(f"case {case['id']} {case['base']} {case['how']} wo={case['weights_only']} "
              f"mmap={case['mmap']}: {verdict}")
        for who, r in (("torch", w), ("numtorch", g)):
            print(f"    {who}: {r['kind']} {r.get('cls', '')} {r.get('msg', '')[:300]!r}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
