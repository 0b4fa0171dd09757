"""Helpers shared by the model builders: the old ``pretrained=`` interface, builder argument
checks, channel rounding, and the table form of the ImageNet weights entries."""

import functools
import inspect
import warnings
from collections import OrderedDict
from functools import partial

from numtorch import nn

from ._api import Weights, WeightsEnum
from ._meta import _IMAGENET_CATEGORIES

_MODELS_URL = "https://download.pytorch.org/models/"


def _make_divisible(v, divisor, min_value=None):
    """Round a channel count to a multiple of ``divisor`` (at least ``min_value``), never going
    more than 10% below ``v`` (MobileNet's and EfficientNet's width rule)."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def _quoted_list(names):
    quoted = [f"'{n}'" for n in names]
    if len(quoted) == 1:
        return quoted[0]
    if len(quoted) == 2:
        return f"{quoted[0]} and {quoted[1]}"
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]


def kwonly_to_pos_or_kw(fn):
    """Let a function with keyword-only parameters also take them positionally (the 0.12
    builders took ``pretrained`` and ``progress`` that way), with a deprecation warning."""
    names = list(inspect.signature(fn).parameters.values())
    starts = [i for i, p in enumerate(names) if p.kind == p.KEYWORD_ONLY]
    if not starts:
        raise TypeError(f"Found no keyword-only parameter on function '{fn.__name__}'")
    first = starts[0]
    kw_names = [p.name for p in names[first:]]

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        extra = args[first:]
        if extra:
            moved = dict(zip(kw_names, extra))
            warnings.warn(f"Using {_quoted_list(list(moved))} as positional parameter(s) is "
                          f"deprecated since 0.13 and may be removed in the future. Please use "
                          f"keyword parameter(s) instead.")
            kwargs.update(moved)
        return fn(*args[:first], **kwargs)

    return wrapper


def handle_legacy_interface(**weights):
    """Decorator giving a builder the old ``pretrained=True/False`` argument.

    Each keyword maps a new parameter (``weights``) to ``(old_name, default)``: ``old=True``
    becomes ``new=default`` (``default`` may be a callable taking the keyword arguments), and
    ``old=False`` becomes ``new=None``; both warn, as the old names are deprecated.
    """
    def decorate(builder):
        @kwonly_to_pos_or_kw
        @functools.wraps(builder)
        def wrapper(*args, **kwargs):
            for new, (old, default) in weights.items():
                missing = object()
                given = kwargs.get(new, missing)
                if new not in kwargs and old not in kwargs:
                    continue
                if (given is None or isinstance(given, WeightsEnum)
                        or (isinstance(given, str) and given != "legacy")):
                    continue
                positional = given is not missing  # the old flag arrived in the new slot
                if positional:
                    old_value = kwargs.pop(new)
                    kwargs[old] = old_value
                else:
                    old_value = kwargs[old]
                chosen = None
                if old_value:
                    chosen = default(kwargs) if callable(default) else default
                    if not isinstance(chosen, WeightsEnum):
                        raise ValueError(f"No weights available for model {builder.__name__}")
                if not positional:
                    warnings.warn(f"The parameter '{old}' is deprecated since 0.13 and may be "
                                  f"removed in the future, please use '{new}' instead.")
                msg = (f"Arguments other than a weight enum or `None` for '{new}' are deprecated "
                       f"since 0.13 and may be removed in the future. The current behavior is "
                       f"equivalent to passing `{new}={chosen}`.")
                if old_value:
                    msg += (f" You can also use `{new}={type(chosen).__name__}.DEFAULT` to get "
                            f"the most up-to-date weights.")
                warnings.warn(msg)
                del kwargs[old]
                kwargs[new] = chosen
            return builder(*args, **kwargs)

        return wrapper

    return decorate


def _ovewrite_named_param(kwargs, param, new_value):
    """Set ``kwargs[param]`` to what the weights need, refusing a different value the caller
    gave (the spelling is torchvision's, kept for code that imports it)."""
    if param in kwargs:
        if kwargs[param] != new_value:
            raise ValueError(f"The parameter '{param}' expected value {new_value} but got "
                             f"{kwargs[param]} instead.")
    else:
        kwargs[param] = new_value


def _ovewrite_value_param(param, actual, expected):
    """``expected``, after checking that ``actual`` is None or equal to it."""
    if actual is not None and actual != expected:
        raise ValueError(f"The parameter '{param}' expected value {expected} but got {actual} "
                         f"instead.")
    return expected


def _load_weights(model, weights, progress):
    """Load ``weights`` (a WeightsEnum member) into ``model`` strictly, checking the file's
    hash against its name as torchvision's builders do."""
    model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


class IntermediateLayerGetter(nn.ModuleDict):
    """Run the top-level children of ``model`` in order and return the outputs of those
    named in ``return_layers`` (``{child name: output name}``), stopping after the last one.

    The children must be used in registration order and only once by ``model.forward``.
    """

    _version = 2

    def __init__(self, model, return_layers):
        wanted = {str(k): str(v) for k, v in return_layers.items()}
        if not set(wanted).issubset(name for name, _ in model.named_children()):
            raise ValueError("return_layers are not present in model")
        pending = set(wanted)
        kept = OrderedDict()
        for name, child in model.named_children():
            kept[name] = child
            pending.discard(name)
            if not pending:
                break
        super().__init__(kept)
        self.return_layers = wanted

    def forward(self, x):
        out = OrderedDict()
        for name, child in self.items():
            x = child(x)
            if name in self.return_layers:
                out[self.return_layers[name]] = x
        return out


def _imagenet(file, num_params, acc1, acc5, ops, file_size, recipe, min_size=(1, 1),
              crop_size=224, resize_size=None, interpolation=None, categories=_IMAGENET_CATEGORIES,
              transform_kw=None, **meta):
    """A :class:`Weights` entry for an ImageNet-1K classifier stored at download.pytorch.org.

    ``recipe`` and the numbers are the published facts of that checkpoint; ``categories``
    defaults to the 1000 ImageNet class names (None for a backbone-only checkpoint).
    """
    from ..transforms._presets import ImageClassification
    from ..transforms.functional import InterpolationMode

    kw = {"crop_size": crop_size}
    if resize_size is not None:
        kw["resize_size"] = resize_size
    if interpolation is not None:
        kw["interpolation"] = getattr(InterpolationMode, interpolation)
    if transform_kw:
        kw.update(transform_kw)
    full = {"min_size": tuple(min_size),
            "categories": categories,
            "num_params": num_params, "recipe": recipe,
            "_metrics": {"ImageNet-1K": {"acc@1": acc1, "acc@5": acc5}},
            "_ops": ops, "_file_size": file_size}
    full.update(meta)
    return Weights(url=_MODELS_URL + file, transforms=partial(ImageClassification, **kw),
                   meta=full)


def _build(make, weights, progress, kwargs, **required):
    """Build ``make(**kwargs)`` and load ``weights`` into it when given.

    With weights, ``num_classes`` must equal the number of the weights' categories and each
    ``required`` parameter must have the value the checkpoint was trained with (set when the
    caller left it out, a ValueError when the caller chose another).
    """
    if weights is not None:
        if weights.meta.get("categories") is not None:
            _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
        for name, value in required.items():
            _ovewrite_named_param(kwargs, name, value)
    model = make(**kwargs)
    if weights is not None:
        _load_weights(model, weights, progress)
    return model
