"""``torch.types``: the annotation aliases real programs import."""

import torch
import torch.types as ttypes

import numtorch
import numtorch.types as ntypes

_PUBLIC = ["Number", "Device", "FileLike", "Storage", "IntLikeType", "FloatLikeType",
           "BoolLikeType", "py_sym_types", "PySymType", "_size", "_symsize", "_dtype",
           "_device", "_layout", "_qscheme", "_int", "_float", "_bool", "_complex", "_str",
           "_bytes", "_Number", "_TensorOrTensors", "_TensorOrOptionalTensors"]


def test_names_exist_and_classes_are_numtorchs():
    for name in _PUBLIC:
        assert hasattr(ttypes, name), name  # the list is torch's
        assert hasattr(ntypes, name), name
    assert ntypes._dtype is numtorch.dtype and ntypes._device is numtorch.device
    assert ntypes._int is int and ntypes._Number == ttypes._Number


def test_annotations_mention_numtorch_classes():
    import typing

    assert set(typing.get_args(ntypes.Number)) == set(typing.get_args(ttypes.Number))
    dev = typing.get_args(ntypes.Device)
    assert numtorch.device in dev and str in dev and int in dev and type(None) in dev
    assert len(dev) == len(typing.get_args(ttypes.Device))
    assert not isinstance(numtorch.ones(1).untyped_storage(), ntypes.Storage)
    assert not isinstance(torch.ones(1).untyped_storage(), ttypes.Storage)
