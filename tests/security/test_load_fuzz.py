"""A fixed seeded run of the checkpoint fuzzer (see ``_fuzz.py``) against torch 2.13.

150 mutants of checkpoints saved by torch and by numtorch (zip and legacy formats, weights_only
on and off, some with mmap=True) are loaded by both libraries, each in a forked child under an
address-space and CPU limit and a timeout. numtorch must never crash, hang or run out of
memory, must load exactly what torch loads from each mutant (or the intact data where only a
part it does not read was damaged), and must refuse the rest with torch's class, or with a
RuntimeError/UnpicklingError where torch fails inside its own code.
``python -m tests.security.fuzz_main SEED N`` runs a bigger set by hand.
"""

import collections

import pytest

from tests.security import _fuzz

SEED, CASES = 39, 150


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    workdir = str(tmp_path_factory.mktemp("fuzz"))
    cases = _fuzz.make_cases(SEED, CASES, workdir)
    return (cases, _fuzz.run_cases("torch", cases, workdir, timeout=600),
            _fuzz.run_cases("numtorch", cases, workdir, timeout=600))


def test_every_mutant_is_loaded_or_refused_as_torch_does(outcomes):
    cases, want, got = outcomes
    bad = []
    for case in cases:
        w, g = want[case["id"]], got[case["id"]]
        verdict = _fuzz.compare(case, w, g, want[f"{case['base']}-{case['weights_only']}"])
        if verdict:
            bad.append(f"case {case['id']} ({case['base']}, {case['how']}, weights_only="
                       f"{case['weights_only']}, mmap={case['mmap']}): {verdict}; torch "
                       f"{w.get('cls', w['kind'])} {w.get('msg', '')[:200]!r}; numtorch "
                       f"{g.get('cls', g['kind'])} {g.get('msg', '')[:200]!r}")
    assert not bad, "\n".join(bad)


def test_the_mutants_reach_every_outcome(outcomes):
    """The set is not trivial: mutants of every base load, and others are refused."""
    cases, want, got = outcomes
    kinds = collections.Counter((c["base"], got[c["id"]]["kind"]) for c in cases
                                if c["how"] != "none")
    for base in ("torch_zip", "torch_legacy", "numtorch_zip", "numtorch_legacy"):
        assert kinds[(base, "error")] >= 5, kinds
    assert sum(n for (_, kind), n in kinds.items() if kind == "ok") >= 20, kinds
    # the unmutated files load identically in both libraries
    for c in cases:
        if c["how"] == "none":
            assert got[c["id"]] == want[c["id"]], c["id"]
