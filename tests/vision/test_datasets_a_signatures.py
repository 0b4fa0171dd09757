"""The new datasets take the same constructor arguments, in the same order and with the same
defaults, as torchvision 0.28's (users pass them by keyword and by position)."""

import inspect

import pytest
import torchvision.datasets as TD

import numtorchvision.datasets as D

NAMES = ["Caltech101", "Caltech256", "CelebA", "CLEVRClassification", "Country211", "DTD",
         "EuroSAT", "FER2013", "FGVCAircraft", "Flickr8k", "Flickr30k", "Flowers102", "Food101",
         "GTSRB", "ImageNet", "Imagenette", "INaturalist", "LFWPairs", "LFWPeople",
         "MovingMNIST", "Omniglot", "OxfordIIITPet", "PCAM", "PhotoTour", "Places365",
         "RenderedSST2", "SBU", "SEMEION", "StanfordCars", "SUN397", "USPS"]


def _params(cls):
    out = []
    for p in inspect.signature(cls).parameters.values():
        default = p.default
        if callable(default):  # the default loader: compare by name
            default = default.__name__
        out.append((p.name, p.kind, default))
    return out


@pytest.mark.parametrize("name", NAMES)
def test_same_signature(name):
    assert _params(getattr(D, name)) == _params(getattr(TD, name))
    # the same module name (pickles and deep imports name it)
    ours, theirs = getattr(D, name).__module__, getattr(TD, name).__module__
    assert ours.split(".")[-1] == theirs.split(".")[-1]


@pytest.mark.parametrize("name", NAMES)
def test_same_class_data(name):
    """The class-level tables (URLs, MD5s, file names, class names) users read or patch."""
    ours = getattr(D, name)
    shared = (TD.VisionDataset, TD.DatasetFolder, TD.ImageFolder)
    tables = {}
    for cls in reversed(getattr(TD, name).__mro__):  # the dataset's own and its bases'
        if cls.__module__.startswith("torchvision.datasets") and cls not in shared:
            tables.update(vars(cls))
    for key, value in tables.items():
        if key.startswith("__") or callable(value) or isinstance(value, (property, staticmethod,
                                                                         classmethod)):
            continue
        assert hasattr(ours, key), key
        assert getattr(ours, key) == value, key


@pytest.mark.parametrize("name", NAMES)
def test_same_methods(name):
    """Every method and property torchvision's class (or its dataset base) defines, such as
    download(), _check_exists() or category_name(), exists here too."""
    shared = (TD.VisionDataset, TD.DatasetFolder, TD.ImageFolder)
    ours = getattr(D, name)
    for cls in getattr(TD, name).__mro__:
        if not cls.__module__.startswith("torchvision.datasets") or cls in shared:
            continue
        for key, value in vars(cls).items():
            if not key.startswith("__") and (callable(value) or isinstance(value, property)):
                assert hasattr(ours, key), key
