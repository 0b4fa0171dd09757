"""Pickled views keep their storage, offset and strides as torch 2.13's do; numpy(force=True)
refuses the dtypes NumPy lacks as torch does (oracle: real torch at test time)."""

import copy
import io
import pickle

import pytest

from tests.oracle import same


def _geometry(t):
    return (t.float(), t.dtype, t.storage_offset(), t.untyped_storage().size(), t.stride(), t.is_contiguous())


VIEWS = {
    "slice": lambda lib: lib.arange(10.)[3:7],
    "step": lambda lib: lib.arange(10.).view(2, 5)[:, 1::2],
    "transposed_tail": lambda lib: lib.arange(12.).view(3, 4).t()[2:],
    "expand": lambda lib: lib.arange(4.)[None].expand(3, 4),
    "empty_tail": lambda lib: lib.arange(6.)[6:],
    "bfloat16": lambda lib: lib.arange(8.).to(lib.bfloat16)[2:6],
    "int_diag": lambda lib: lib.arange(16).view(4, 4).diagonal(),
    "whole": lambda lib: lib.arange(5.),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_pickle_keeps_view_geometry(name):
    same(lambda lib: _geometry(pickle.loads(pickle.dumps(VIEWS[name](lib)))))


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_deepcopy_and_save_keep_view_geometry(name):
    def run(lib):
        v = VIEWS[name](lib)
        buf = io.BytesIO()
        lib.save(v, buf)
        buf.seek(0)
        return _geometry(copy.deepcopy(v)), _geometry(lib.load(buf))

    same(run)


def test_two_views_in_one_pickle_do_not_share():
    def run(lib):
        x = lib.arange(10.)
        a, b = pickle.loads(pickle.dumps([x[2:5], x[4:8]]))
        a[2] = 100.
        return a, b, a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()

    same(run)


def test_pickled_view_writes_stay_in_its_storage():
    def run(lib):
        w = pickle.loads(pickle.dumps(lib.arange(10.)[3:7]))
        w.mul_(-1)
        return w, lib.tensor(w.untyped_storage().tolist()[:8])

    same(run)


def test_pickled_view_keeps_requires_grad_and_parameter_class():
    def run(lib):
        p = lib.nn.Parameter(lib.arange(6.).view(2, 3))
        q = pickle.loads(pickle.dumps(p))
        v = pickle.loads(pickle.dumps(p.detach()[1:].requires_grad_()))
        return type(q).__name__, q, v.requires_grad, v.storage_offset()

    same(run)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "uint16", "bool"])
@pytest.mark.parametrize("force", [False, True])
def test_numpy_force_on_dtypes_numpy_lacks(dtype, force):
    def run(lib):
        dt = getattr(lib, dtype)
        x = lib.zeros(3).to(dt)
        return x.numpy(force=force).tolist()

    same(run)


def test_numpy_force_still_detaches():
    same(lambda lib: lib.ones(2, requires_grad=True).numpy(force=True).tolist())


@pytest.mark.parametrize("name", ["slice", "step", "expand", "empty_tail"])
def test_multiprocessing_reducer_keeps_view_geometry(name):
    def run(lib):
        from importlib import import_module
        from multiprocessing.reduction import ForkingPickler

        import_module(lib.__name__ + ".multiprocessing")  # registers the tensor reducers
        w = pickle.loads(bytes(ForkingPickler.dumps(VIEWS[name](lib))))
        return _geometry(w) + (w.is_shared(),)

    same(run)
