"""DTensor over real ranks against torch 2.13's DTensor.

ranks/dtensor_case.py runs the same program under torch (gloo, mp.spawn) and under
numtorch (its socket transport, numtorch.multiprocessing.spawn), on 3 ranks (1-d mesh,
uneven shards) and on 4 ranks (2x2 mesh); every rank records meshes, local shapes and
offsets, layouts after redistribution, operation placements and values, gradients and three
AdamW steps, and FSDP2 (fully_shard) training. Each record must be equal in the two runs.
"""

import json
import os
import socket
import sys

import pytest

from . import _launch

CASE = os.path.join(_launch.RANKS, "dtensor_case.py")
WORLDS = (3, 4)



def _port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = {w: tmp_path_factory.mktemp(f"dtensor{w}") for w in WORLDS}
    cmds = [[sys.executable, CASE, str(out[w]), str(_port()), lib, str(w)]
            for w in WORLDS for lib in ("torch", "numtorch")]
    procs = _launch.run_all(cmds, timeout=400)
    for p in procs:
        assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    return out


def _load(path, lib, world):
    got = []
    for r in range(world):
        with open(os.path.join(path, f"{lib}{r}.json")) as f:
            got.append(json.load(f))
    return got


@pytest.mark.parametrize("world", WORLDS)
def test_dtensor_matches_torch_on_every_rank(runs, world):
    ours = _load(runs[world], "numtorch", world)
    theirs = _load(runs[world], "torch", world)
    bad = []
    for r, (a, b) in enumerate(zip(ours, theirs)):
        assert set(a) == set(b), f"rank {r}: records {sorted(set(a) ^ set(b))} differ"
        for key in b:
            if a[key] != b[key]:
                bad.append(f"rank {r} {key}:\n  numtorch {a[key]}\n  torch    {b[key]}")
    assert not bad, "\n".join(bad[:10])
    assert len(theirs[0]) >= (67 if world == 3 else 19)
