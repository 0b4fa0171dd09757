"""``torch.library.opcheck``: run a custom operator's registrations against each other on
example inputs and say which agree."""

import copy

from ._library_fake import run_fake
from ._tensor import Tensor

TESTS = ("test_schema", "test_autograd_registration", "test_faketensor",
         "test_aot_dispatch_static", "test_aot_dispatch_dynamic")
DEFAULT = ("test_schema", "test_autograd_registration", "test_faketensor",
           "test_aot_dispatch_dynamic")


class OpCheckError(Exception):
    """A registration that disagrees with the operator (torch's class of the same name)."""


class MetadataMismatchError(Exception):
    """The fake implementation's output differs from the real one in shape or dtype."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason

    def __repr__(self):
        return f"MetadataMismatchError(reason={self.reason!r})"


def _flat(obj):
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, (tuple, list)):
        return [t for o in obj for t in _flat(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in _flat(o)]
    return []


def _values(op, args, kwargs):
    bound = op._signature.bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.arguments


def _schema(op, args, kwargs):
    before = {n: copy.deepcopy(v.detach()) for n, v in _values(op, args, kwargs).items()
              if isinstance(v, Tensor)}
    clones = {n: v.detach().clone() if isinstance(v, Tensor) else v
              for n, v in _values(op, args, kwargs).items()}
    pos, kws = op._split([clones[n] for n in op._names])
    with _no_grad():
        op(*pos, **kws)
    for name, old in before.items():
        new = clones[name]
        changed = old.shape != new.shape or not bool((old == new).all()
                                                     | (old.isnan() & new.isnan()).all())
        if changed and name not in op._mutates_args:
            raise RuntimeError(f"Argument {name} is not defined as mutable but was mutated")


def _no_grad():
    from .autograd.grad_mode import no_grad

    return no_grad()


def _returns_nothing(op):
    return op._signature.return_annotation in (None, type(None))


def _need_fake(op):
    # an operator that returns nothing has an implied fake implementation, as in torch
    if op._abstract_fn is None and not _returns_nothing(op):
        raise RuntimeError(f"There was no fake impl registered for {op!r}. This is necessary "
                           "for torch.compile/export/fx tracing to work. Please use "
                           f"`{op._name}.register_fake` to add an fake impl.")


def _fake(op, args, kwargs):
    _need_fake(op)
    if op._abstract_fn is None:
        return
    values = _values(op, args, kwargs)
    metas = [v.detach().to("meta") if isinstance(v, Tensor) else v
             for v in (values[n] for n in op._names)]
    reals = [v.detach().clone() if isinstance(v, Tensor) else v
             for v in (values[n] for n in op._names)]
    pos, kws = op._split(metas)
    fake_out, dynamic = run_fake(op._abstract_fn, pos, kws)
    pos, kws = op._split(reals)
    with _no_grad():
        real_out = op(*pos, **kws)
    fakes, real = _flat(fake_out), _flat(real_out)
    where = f"When comparing the output of {op._namespace}.{op._name}.default on FakeTensor " \
            "and concrete Tensors, found mismatched tensor metadata: "
    if len(fakes) != len(real):
        raise MetadataMismatchError(where + f"{len(fakes)} outputs and {len(real)} outputs "
                                    "are not the same number!")
    for f, r in zip(fakes, real):
        if (len(f.shape) != len(r.shape)) if dynamic else (f.shape != r.shape):
            raise MetadataMismatchError(where + f"Shapes {r.shape} and {f.shape} are not equal!")
        if f.dtype != r.dtype:
            raise MetadataMismatchError(where + f"Dtypes {r.dtype} and {f.dtype} are not "
                                        "equal!")


def _dispatch(op, args, kwargs):
    """Forward, then backward from a random cotangent where an output needs a gradient."""
    from . import autograd, randn_like

    _need_fake(op)
    try:
        _fake(op, args, kwargs)
    except MetadataMismatchError as e:
        if "Shapes" in e.reason:  # the backward would be built for the fake's sizes
            raise RuntimeError(f"The fake implementation's output sizes differ from the "
                               f"operator's: {e.reason}") from None
    values = _values(op, args, kwargs)
    inputs = [v.detach().clone().requires_grad_(v.requires_grad) if isinstance(v, Tensor)
              else v for v in (values[n] for n in op._names)]
    pos, kws = op._split(inputs)
    outs = [o for o in _flat(op(*pos, **kws)) if o.requires_grad]
    wants = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
    if outs and wants:
        autograd.grad(outs, wants, [randn_like(o) for o in outs], allow_unused=True)


def _autograd_registration(op, args, kwargs):
    return None


_RUNNERS = {"test_schema": _schema, "test_autograd_registration": _autograd_registration,
            "test_faketensor": _fake, "test_aot_dispatch_static": _dispatch,
            "test_aot_dispatch_dynamic": _dispatch}


def run(op, args, kwargs, test_utils, raise_exception):
    if test_utils is None:
        tests = DEFAULT
    elif isinstance(test_utils, str):
        tests = (test_utils,)
    else:
        tests = tuple(test_utils)
    if not set(tests) <= set(TESTS):
        raise ValueError(f"opcheck(op, ..., test_utils={tests}), expected test_utils to be "
                         f"subset of {TESTS} but it was not")
    results = {}
    for name in tests:
        try:
            _RUNNERS[name](op, tuple(args), kwargs)
            results[name] = "SUCCESS"
        except Exception as e:
            if raise_exception:
                raise OpCheckError(f"opcheck(op, ...): {name} failed with {e} (scroll up for "
                                   "stack trace)") from e
            results[name] = e
    return results
