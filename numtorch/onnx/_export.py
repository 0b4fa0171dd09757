"""``export``: trace the model, solve the dynamic axes, convert, and write the ModelProto."""

import contextlib
import inspect
import os
import warnings

import numpy as np

from . import _dynamic, _trace
from ._builder import Builder, tensor_type
from ._convert import Converter
from ._enums import TrainingMode
from ._onnx import onnx_modules
from .errors import OnnxExporterError, OnnxExporterWarning

DEFAULT_OPSET = 20
MIN_OPSET, MAX_OPSET = 11, 23
_EXPORTING = [False]


def is_exporting():
    return _EXPORTING[0]


def export_model(model, args, kwargs, f, *, input_names, output_names, opset_version,
                 dynamic_axes, export_params, keep_initializers_as_inputs, training,
                 do_constant_folding, custom_opsets, verbose, external_data):
    """Export and return the ModelProto (written to ``f`` when given)."""
    from . import _ops_loss, _ops_math, _ops_nn, _ops_rnn, _ops_shape  # noqa: F401

    onnx = onnx_modules()[0]
    opset = DEFAULT_OPSET if opset_version is None else int(opset_version)
    if not MIN_OPSET <= opset <= MAX_OPSET:
        raise OnnxExporterError(f"Unsupported onnx_opset_version: {opset} (numtorch exports "
                                f"opsets {MIN_OPSET} to {MAX_OPSET})")
    args, kwargs = _normalize_args(args, kwargs)
    flat = _trace.flatten((args, kwargs))
    in_names = _input_names(model, args, kwargs, input_names)
    out_count_hint = list(output_names or [])
    dynamic_axes = _check_dynamic_axes(dynamic_axes, in_names, out_count_hint)
    symbols = _symbols(dynamic_axes, in_names, flat)
    setup = (_param_names(model), opset)  # what every Trace starts from
    with _mode(model, training), _exporting():
        first, outputs = _run(model, args, kwargs, setup)
        info = None
        if symbols:
            info, again = _solve(model, args, kwargs, setup, symbols, (first, outputs))
            first, outputs = again
    b = Builder(opset, fold=do_constant_folding)
    graph_inputs = [(first.inputs[i], b.reserve(n)) for i, n in enumerate(in_names)]
    conv = Converter(first, info, b, graph_inputs, export_params, do_constant_folding)
    for k, sym in enumerate(symbols):
        index, dim = sym.sources[0]
        conv.input_of[k] = (in_names[index], dim)
    conv.run()
    out_names = _output_names(output_names, len(outputs))
    result = _outputs(conv, b, first, outputs, out_names)
    model_proto = _assemble(onnx, b, conv, first, flat, in_names, result, symbols, info,
                            dynamic_axes, opset, custom_opsets, keep_initializers_as_inputs)
    if verbose:
        print(onnx.printer.to_text(model_proto.graph))
    if f is not None:
        save(model_proto, f, external_data)
    return model_proto


# -- arguments ---------------------------------------------------------------------------------


def _normalize_args(args, kwargs):
    from ..autograd import graph

    if isinstance(args, graph.Tensor):
        args = (args,)
    elif not isinstance(args, tuple):
        args = (args,) if not isinstance(args, list) else tuple(args)
    kwargs = dict(kwargs or {})
    if args and isinstance(args[-1], dict):  # torch's convention: a trailing dict is kwargs
        kwargs = {**args[-1], **kwargs}
        args = args[:-1]
    return args, kwargs


def _input_names(model, args, kwargs, given):
    """One name per input tensor: the given ones, then forward's parameter names."""
    from ..autograd import graph

    try:
        fn = model.forward if hasattr(model, "forward") else model
        sig = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        sig = []
    params = []
    for p in sig:
        if p.kind == p.VAR_POSITIONAL:  # *args: one name per remaining argument
            params += [f"{p.name}_{j}" for j in range(len(args) - len(params))]
            break
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            params.append(p.name)
    names = []

    def walk(obj, base):
        if isinstance(obj, graph.Tensor):
            names.append(base)
        elif isinstance(obj, (tuple, list)):
            for i, o in enumerate(obj):
                walk(o, f"{base}_{i}")
        elif isinstance(obj, dict):
            for k, o in obj.items():
                walk(o, f"{base}_{k}")
    for i, a in enumerate(args):
        walk(a, params[i] if i < len(params) else f"input_{i}")
    for k, a in kwargs.items():
        walk(a, k)
    given = list(given or [])
    if len(given) > len(names):
        raise ValueError(f"input_names has {len(given)} names for {len(names)} input tensors")
    out = given + names[len(given):]
    seen = set()
    for i, n in enumerate(out):  # nested names may collide with given ones
        while n in seen:
            n = n + "_"
        out[i] = n
        seen.add(n)
    return out


def _output_names(given, count):
    given = list(given or [])
    if count == 1 and not given:
        return ["output"]
    return given[:count] + [f"output_{i}" for i in range(len(given), count)]


def _check_dynamic_axes(dynamic_axes, in_names, out_names):
    if not dynamic_axes:
        return {}
    out = {}
    for key, axes in dynamic_axes.items():
        if key not in in_names and key not in out_names and not key.startswith("output"):
            warnings.warn(f"Provided key {key} for dynamic axes is not a valid input/output "
                          "name", UserWarning, stacklevel=4)
        if isinstance(axes, dict):
            out[key] = {int(d): str(n) for d, n in axes.items()}
        else:
            out[key] = {int(d): f"{key}_dynamic_axes_{i + 1}" for i, d in enumerate(axes)}
    return out


def _symbols(dynamic_axes, in_names, flat):
    """The dynamic axes of the inputs, one Symbol per distinct name."""
    by_name = {}
    for index, name in enumerate(in_names):
        for dim, sym_name in dynamic_axes.get(name, {}).items():
            rank = flat[index].dim()
            d = dim % rank if rank else dim
            if not 0 <= d < max(rank, 1):
                raise IndexError(f"dynamic axis {dim} of input '{name}' is out of range")
            size = int(flat[index].shape[d])
            sym = by_name.get(sym_name)
            if sym is None:
                by_name[sym_name] = _dynamic.Symbol(sym_name, [(index, d)], [size])
            else:
                sym.sources.append((index, d))
    return list(by_name.values())


def _param_names(model):
    """``id(array) -> name`` of every parameter and buffer (non-persistent ones too)."""
    names = {}
    if hasattr(model, "named_parameters"):
        for key, t in [*model.named_parameters(), *model.named_buffers()]:
            if t is not None:
                names.setdefault(id(t._array), key)
    return names


# -- tracing -----------------------------------------------------------------------------------


@contextlib.contextmanager
def _mode(model, training):
    was = getattr(model, "training", None)
    if was is not None and training != TrainingMode.PRESERVE:
        model.train(training == TrainingMode.TRAINING)
    try:
        yield
    finally:
        if was is not None and training != TrainingMode.PRESERVE:
            model.train(was)


@contextlib.contextmanager
def _exporting():
    _EXPORTING[0] = True
    try:
        yield
    finally:
        _EXPORTING[0] = False


def _run(model, args, kwargs, setup):
    """One traced forward pass: (trace, flat outputs)."""
    from .. import no_grad

    tr = _trace.Trace(*setup)
    for t in _trace.flatten((args, kwargs)):
        tr.inputs.append(tr.new_value(t))
    with no_grad(), _trace.installed(tr, model):
        out = model(*args, **kwargs)
    return tr, _trace.flatten(out) if not _is_tensor(out) else [out]


def _is_tensor(x):
    from ..autograd import graph

    return isinstance(x, graph.Tensor)


def _resized(args, kwargs, symbols, trace_index):
    """The example inputs with every dynamic axis at its size for trace ``trace_index``."""
    from .. import from_numpy

    flat = _trace.flatten((args, kwargs))
    changes = {}
    for sym in symbols:
        for index, dim in sym.sources:
            changes.setdefault(index, []).append((dim, sym.sizes[trace_index]))
    new = {}
    for index, dims in changes.items():
        arr = _trace.host(flat[index].detach()._array)
        for dim, size in dims:
            arr = np.take(arr, np.arange(size) % arr.shape[dim], axis=dim)
        new[index] = from_numpy(np.asarray(arr, order="C")).to(flat[index].device)
    counter = iter(range(len(flat)))

    def rebuild(obj):
        if _is_tensor(obj):
            i = next(counter)
            return new.get(i, obj)
        if isinstance(obj, tuple):
            return tuple(rebuild(o) for o in obj)
        if isinstance(obj, list):
            return [rebuild(o) for o in obj]
        if isinstance(obj, dict):
            return {k: rebuild(v) for k, v in obj.items()}
        return obj
    return rebuild(args), rebuild(kwargs)


def _solve(model, args, kwargs, setup, symbols, first):
    """Trace again at other sizes and describe what follows the dynamic axes.

    Returns (DynInfo or None, (trace, outputs) to convert): when the first run differs from
    the others only because it found something cached by an earlier call (a mask of the same
    length), a run at the example sizes after the others becomes the reference.
    """
    plans = [lambda n, k: (n + 1 + k, n + 3 + 2 * k),
             lambda n, k: (max(n - 1, 1), max(n - 2, 1))]
    with _restored(model):  # the extra runs leave no trace on the model
        got = _try_plans(model, args, kwargs, setup, symbols, first, plans)
    if not isinstance(got, str):
        return got
    warnings.warn(f"dynamic_axes: {got}; the sizes computed inside the model are "
                  "exported as constants", OnnxExporterWarning, stacklevel=4)
    return None, first


def _try_plans(model, args, kwargs, setup, symbols, first, plans):
    """(DynInfo, reference run) from the first plan of sizes that works, else why none
    did."""
    problem = None
    for plan in plans:
        for k, sym in enumerate(symbols):
            sym.sizes = [sym.sizes[0], *plan(sym.sizes[0], k)]
        others = []
        try:
            for t in (1, 2):
                a, kw = _resized(args, kwargs, symbols, t)
                others.append(_run(model, a, kw, setup)[0])
            try:
                return _dynamic.compare([first[0], *others], symbols), first
            except _dynamic.Mismatch:
                again = _run(model, args, kwargs, setup)
                return _dynamic.compare([again[0], *others], symbols), again
        except _dynamic.Mismatch:
            problem = "the model makes different calls at other sizes"
            break  # control flow follows the sizes: no other sizes can fix that
        except (RuntimeError, ValueError, IndexError, TypeError) as e:
            problem = f"running it at other sizes failed ({type(e).__name__}: {e})"
    return problem


@contextlib.contextmanager
def _restored(model):
    """Put back the attributes and buffers of every submodule after the ``with`` block (a
    model that caches, say, a mask of the last length it saw keeps the first run's)."""
    modules = list(model.modules()) if hasattr(model, "modules") else []
    saved = [(m, dict(m.__dict__), dict(m._buffers), dict(m._parameters), dict(m._modules))
             for m in modules]
    values = [(t, t._array.copy()) for m in modules for t in m._buffers.values()
              if t is not None]
    try:
        yield
    finally:
        for m, attrs, buffers, params, children in saved:
            m.__dict__.clear()
            m.__dict__.update(attrs)
            for d, old in ((m._buffers, buffers), (m._parameters, params),
                           (m._modules, children)):
                d.clear()
                d.update(old)
        for t, arr in values:
            if t._array.shape == arr.shape:
                t._array[...] = arr


# -- assembling the model -------------------------------------------------------------------


def _outputs(conv, b, trace, outputs, out_names):
    """(name, array, value id) per model output, renaming node outputs to the wanted names."""
    result = []
    rename = {}
    claimed = set()
    for t, want in zip(outputs, out_names):
        vid = trace.value_of(t)
        if vid is None:
            arr = _trace.host(t._array)
            name = b.const(np.array(arr))
        else:
            name, arr = conv.value(vid), trace.arrays[vid]
        produced = any(name in n[2] for n in b.nodes)
        if produced and name not in claimed and name not in rename:
            rename[name] = b.reserve(want)
            claimed.add(name)
        else:
            b.nodes.append(("Identity", [name], [b.reserve(want)], {}, ""))
        result.append((want, arr, vid))
    for node in b.nodes:
        node[1][:] = [rename.get(i, i) for i in node[1]]
        node[2][:] = [rename.get(o, o) for o in node[2]]
    return result


def _value_info(onnx, name, arr, dims):
    return onnx.helper.make_tensor_value_info(name, tensor_type(arr.dtype), dims)


def _dims(name, arr, shape, dynamic_axes, symbols):
    named = dynamic_axes.get(name, {})
    dims = []
    for d, size in enumerate(arr.shape):
        if d in named:
            dims.append(named[d])
            continue
        s = shape[d] if shape is not None else size
        if isinstance(s, _dynamic.Sym):
            if s.key == (1, s.factors, 0, 1, 0) and len(s.factors) == 1:
                dims.append(symbols[s.factors[0]].name)
            else:
                dims.append(f"{name}_dim_{d}")
        elif isinstance(s, _dynamic.Unknown):
            dims.append(f"{name}_dim_{d}")
        else:
            dims.append(int(size))
    return dims


def _assemble(onnx, b, conv, trace, flat, in_names, result, symbols, info, dynamic_axes, opset,
              custom_opsets, keep_initializers_as_inputs):
    shapes = info.shapes if info is not None else {}
    inputs = []
    for index, name in enumerate(in_names):
        arr = _trace.host(flat[index]._array)
        inputs.append(_value_info(onnx, name, arr, _dims(name, arr, None, dynamic_axes,
                                                         symbols)))
    for name, arr in conv.param_inputs:
        inputs.append(_value_info(onnx, name, arr, list(arr.shape)))
    outputs = [_value_info(onnx, name, arr, _dims(name, arr, shapes.get(vid), dynamic_axes,
                                                  symbols)) for name, arr, vid in result]
    nodes = _live_nodes(b, [name for name, _, _ in result])
    used = {i for n in nodes for i in n[1]} | {name for name, _, _ in result}
    inits = [(n, a) for n, a in b.initializers.items() if n in used]
    if keep_initializers_as_inputs:  # every initializer, as torch lists them
        inputs += [_value_info(onnx, n, a, list(a.shape)) for n, a in inits]
    b.nodes = nodes
    graph = onnx.helper.make_graph(
        b.to_proto_nodes(), "main_graph", inputs, outputs,
        initializer=[_tensor(onnx, n, a) for n, a in inits])
    opsets = [onnx.helper.make_opsetid("", opset)]
    for domain, version in (custom_opsets or {}).items():
        opsets.append(onnx.helper.make_opsetid(domain, int(version)))
    for domain in sorted({n[4] for n in nodes if n[4]} -
                         set((custom_opsets or {}).keys())):
        opsets.append(onnx.helper.make_opsetid(domain, 1))
    model = onnx.helper.make_model(graph, opset_imports=opsets, producer_name="numtorch",
                                   producer_version=_version())
    model.ir_version = min(model.ir_version, _ir_version(onnx, opset))
    return model


def _ir_version(onnx, opset):
    try:
        return onnx.helper.find_min_ir_version_for(
            [onnx.helper.make_opsetid("", opset)], ignore_unknown=True)
    except Exception:  # noqa: BLE001 - an old onnx without the table: keep make_model's
        return onnx.IR_VERSION


def _version():
    from .. import __version__

    return __version__


def _tensor(onnx, name, arr):
    arr = np.asarray(arr)
    if arr.dtype.name == "bfloat16":
        t = onnx.helper.make_tensor(name, onnx.TensorProto.BFLOAT16, arr.shape,
                                    arr.view(np.uint16).tobytes(), raw=True)
        return t
    return onnx.numpy_helper.from_array(arr if arr.flags.c_contiguous else arr.copy(), name)


def _live_nodes(b, outputs):
    """The nodes the outputs depend on, in their order."""
    needed = set(outputs)
    keep = []
    for node in reversed(b.nodes):
        if any(o in needed for o in node[2]):
            keep.append(node)
            needed.update(i for i in node[1] if i)
    return keep[::-1]


def save(model_proto, f, external_data=True):
    """Write ``model_proto`` to a path or a binary file-like object."""
    onnx = onnx_modules()[0]
    if isinstance(f, (str, os.PathLike)):
        big = model_proto.ByteSize() > 2_000_000_000 if external_data else False
        onnx.save_model(model_proto, os.fspath(f), save_as_external_data=big,
                        all_tensors_to_one_file=True,
                        location=os.path.basename(os.fspath(f)) + ".data")
        return
    if hasattr(f, "write"):
        f.write(model_proto.SerializeToString())
        return
    raise TypeError(f"f must be a path or a writable binary file object, not "
                    f"{type(f).__name__}")

