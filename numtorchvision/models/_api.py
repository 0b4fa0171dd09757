"""The model registry and the pretrained-weights enums.

Every builder (``resnet18``, ``vit_b_16``, ...) is registered by name so that
:func:`get_model` and :func:`list_models` find it; the weights it accepts are one
:class:`WeightsEnum` subclass, named in the builder's ``weights`` annotation, whose members
hold the checkpoint URL, the matching preprocessing and the metadata.
"""

import fnmatch
import importlib
import inspect
import sys
import typing
from dataclasses import dataclass
from enum import Enum
from functools import partial
from typing import Any, Callable, Dict

from numtorch.hub import load_state_dict_from_url

__all__ = ["WeightsEnum", "Weights", "get_model", "get_model_builder", "get_model_weights",
           "get_weight", "list_models", "register_model"]


@dataclass
class Weights:
    """One set of pretrained weights.

    Attributes:
        url (str): where the checkpoint is downloaded from.
        transforms (Callable): builds the evaluation preprocessing the weights expect
            (a constructor, so that nothing is instantiated until asked for).
        meta (dict): facts about the weights: ``categories``, ``num_params``, ``min_size``,
            ``recipe``, ``_metrics``, ...
    """

    url: str
    transforms: Callable
    meta: Dict[str, Any]

    def __eq__(self, other):
        if not isinstance(other, Weights):
            return NotImplemented
        if self.url != other.url or self.meta != other.meta:
            return False
        a, b = self.transforms, other.transforms
        if isinstance(a, partial) and isinstance(b, partial):
            # two partials of the same preset are equal when built the same way
            return (a.func, a.args, a.keywords) == (b.func, b.args, b.keywords)
        return a == b


class WeightsEnum(Enum):
    """Base class of the ``*_Weights`` enums; each member's value is a :class:`Weights`."""

    @classmethod
    def verify(cls, obj):
        """Turn ``obj`` (None, a member, or a member's name as a string) into a member.

        Raises:
            KeyError: a string naming no member.
            TypeError: a member of another weights enum, or any other object.
        """
        if obj is None:
            return None
        if type(obj) is str:
            return cls[obj.replace(cls.__name__ + ".", "")]
        if not isinstance(obj, cls):
            raise TypeError(f"Invalid Weight class provided; expected {cls.__name__} but "
                            f"received {obj.__class__.__name__}.")
        return obj

    def get_state_dict(self, *args, **kwargs):
        """Download (once, into the hub cache) and load this member's checkpoint.

        Arguments go to :func:`numtorch.hub.load_state_dict_from_url`.
        """
        return load_state_dict_from_url(self.url, *args, **kwargs)

    def __repr__(self):
        return f"{self.__class__.__name__}.{self._name_}"

    @property
    def url(self):
        return self.value.url

    @property
    def transforms(self):
        return self.value.transforms

    @property
    def meta(self):
        return self.value.meta


BUILTIN_MODELS = {}


def register_model(name=None):
    """Decorator that records a model builder under ``name`` (default: its own name).

    Raises:
        ValueError: the name is taken already.
    """
    def record(fn):
        key = fn.__name__ if name is None else name
        if key in BUILTIN_MODELS:
            raise ValueError(f"An entry is already registered under the name '{key}'.")
        BUILTIN_MODELS[key] = fn
        return fn

    return record


def _as_filters(patterns):
    return [patterns] if isinstance(patterns, str) else list(patterns)


def list_models(module=None, include=None, exclude=None):
    """Sorted names of the registered models.

    Args:
        module (module, optional): only builders defined directly in this package (for
            example ``numtorchvision.models``).
        include (str or iterable of str, optional): shell-style patterns (``fnmatch``); a
            name matching any of them is kept.
        exclude (str or iterable of str, optional): patterns applied afterwards; a name
            matching any of them is dropped.
    """
    names = {k for k, fn in BUILTIN_MODELS.items()
             if module is None or fn.__module__.rsplit(".", 1)[0] == module.__name__}
    chosen = names
    if include:
        chosen = set()
        for pat in _as_filters(include):
            chosen |= set(fnmatch.filter(names, pat))
    if exclude:
        for pat in _as_filters(exclude):
            chosen -= set(fnmatch.filter(names, pat))
    return sorted(chosen)


def get_model_builder(name):
    """The builder function registered under ``name`` (case-insensitive).

    Raises:
        ValueError: no model has that name.
    """
    name = name.lower()
    if name not in BUILTIN_MODELS:
        raise ValueError(f"Unknown model {name}")
    return BUILTIN_MODELS[name]


def get_model(name, **config):
    """Build the model registered under ``name``; ``config`` goes to its builder."""
    return get_model_builder(name)(**config)


def get_model_weights(name):
    """The weights enum class a model builder accepts.

    Args:
        name (str or callable): a registered model name or the builder itself.
    """
    fn = get_model_builder(name) if isinstance(name, str) else name
    return _enum_of_builder(fn)


def _enum_of_builder(fn):
    params = inspect.signature(fn).parameters
    if "weights" not in params:
        raise ValueError("The method is missing the 'weights' argument.")
    ann = params["weights"].annotation
    if isinstance(ann, str):  # postponed annotations: evaluate in the builder's module
        ann = eval(ann, sys.modules[fn.__module__].__dict__)
    for cand in (ann, *typing.get_args(ann)):
        if isinstance(cand, type) and issubclass(cand, WeightsEnum):
            return cand
    raise ValueError("The WeightsEnum class for the specific method couldn't be retrieved. "
                     "Make sure the typing info is correct.")


def get_weight(name):
    """A weights member from its full name, e.g. ``"ResNet50_Weights.IMAGENET1K_V2"``.

    Raises:
        ValueError: the name is not ``<Enum>.<member>`` or names no known enum.
        KeyError: the enum has no such member.
    """
    parts = name.split(".")
    if len(parts) != 2:
        raise ValueError(f"Invalid weight name provided: '{name}'.")
    enum_name, member = parts
    package = importlib.import_module(__name__.rsplit(".", 1)[0])
    # the enums are exported by the models package and by its sub-packages' __init__
    spaces = [package] + [m for _, m in inspect.getmembers(package, inspect.ismodule)
                          if getattr(m, "__file__", "").endswith("__init__.py")]
    for space in spaces:
        cand = space.__dict__.get(enum_name)
        if isinstance(cand, type) and issubclass(cand, WeightsEnum):
            return cand[member]
    raise ValueError(f"The weight enum '{enum_name}' for the specific method couldn't be "
                     f"retrieved.")
