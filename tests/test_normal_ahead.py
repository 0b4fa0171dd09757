"""Repeated small float32 normal draws computed ahead (``numtorch/_normal_ahead32.py``) give
exactly torch's values whatever else draws from the stream in between: other samplers,
reseeds, saved and restored states, generator objects, other sizes and dtypes."""

import pickle

import numpy as np
import pytest
import torch

import numtorch as nt


def _seq(lib, program):
    lib.manual_seed(7)
    gen = lib.Generator().manual_seed(3)
    saved = None
    out = []
    for step in program:
        kind, arg = step
        if kind == "randn":
            out.append(lib.randn(arg))
        elif kind == "randn_gen":
            out.append(lib.randn(arg, generator=gen))
        elif kind == "rand":
            out.append(lib.rand(arg))
        elif kind == "randint":
            out.append(lib.randint(0, 1000, (arg,)))
        elif kind == "randn64":
            out.append(lib.randn(arg, dtype=lib.float64))
        elif kind == "normal_":
            out.append(lib.empty(arg).normal_(2.0, 3.0))
        elif kind == "dropout":
            out.append(lib.nn.functional.dropout(lib.ones(arg), 0.5))
        elif kind == "seed":
            lib.manual_seed(arg)
        elif kind == "save":
            saved = lib.get_rng_state()
        elif kind == "restore":
            lib.set_rng_state(saved)
        elif kind == "randn_half":
            out.append(lib.randn(arg, dtype=lib.bfloat16).float())
    return [o.numpy() for o in out]


PROGRAMS = {
    "loop": [("randn", 32)] * 200,
    "loop16": [("randn", 16)] * 300,
    "loop256": [("randn", 256)] * 20,
    "interleaved": [("randn", 32), ("randn", 32), ("rand", 5), ("randn", 32), ("randn", 32),
                    ("randint", 3), ("randn", 32)] * 30,
    "sizes": [("randn", 32), ("randn", 32), ("randn", 48), ("randn", 48), ("randn", 32)] * 40,
    "reseed": [("randn", 32)] * 70 + [("seed", 7)] + [("randn", 32)] * 70 + [("seed", 8)] +
              [("randn", 32)] * 5,
    "restore": [("randn", 32)] * 3 + [("save", None)] + [("randn", 32)] * 90 +
               [("restore", None)] + [("randn", 32)] * 90,
    "generator": [("randn", 32), ("randn_gen", 32)] * 100 + [("randn_gen", 32)] * 80,
    "mixed": [("randn", 32), ("randn", 32), ("normal_", 32), ("randn64", 32), ("dropout", 40),
              ("randn_half", 32), ("randn", 32), ("randn", 17), ("randn", 3)] * 25,
    "wrap": [("randn", 208)] * 30 + [("randn", 32)] * 100,  # past refills of the 624 words
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_values_as_torch(name):
    got, want = _seq(nt, PROGRAMS[name]), _seq(torch, PROGRAMS[name])
    assert len(got) == len(want)
    for i, (a, b) in enumerate(zip(got, want)):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b, err_msg=str(i))


def test_state_after_a_served_call_is_torch_state():
    for lib in (nt, torch):
        lib.manual_seed(0)
        for _ in range(50):
            lib.randn(32)
    assert np.array_equal(np.asarray(nt.get_rng_state()), np.asarray(torch.get_rng_state()))
    assert np.array_equal(nt.rand(9).numpy(), torch.rand(9).numpy())


def test_generator_pickles_and_copies_mid_loop():
    g = nt.Generator().manual_seed(1)
    for _ in range(5):
        nt.randn(32, generator=g)
    twin = pickle.loads(pickle.dumps(g)) if hasattr(g, "__reduce__") else None
    state = g.get_state()
    a = [nt.randn(32, generator=g).numpy() for _ in range(3)]
    g.set_state(state)
    b = [nt.randn(32, generator=g).numpy() for _ in range(3)]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    if twin is not None:
        np.testing.assert_array_equal(nt.randn(32, generator=twin).numpy(), b[0])
