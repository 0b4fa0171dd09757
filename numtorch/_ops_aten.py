"""``torch.ops.aten``: the common ATen operators by their overload names
(``torch.ops.aten.add.Tensor``, ``torch.ops.aten.mm.default``), as code written against the
dispatcher (decompositions, fx graphs, custom-op fallbacks) calls them.

Each overload is its schema and a runner over numtorch's public functions; the schema does the
argument checks (so a wrong call fails with the dispatcher's wording) and the runner maps the
schema's parameters onto the numtorch function, which does the work and the autograd.
"""

import ast

from ._ops_schema import FunctionSchema

# binary pointwise ops take a Python number where the schema says Tensor, as torch's do
_NUMBERS_AS_TENSORS = {"add", "sub", "add_", "sub_", "mul", "div", "rsub", "pow", "eq", "ne", "lt", "gt", "le",
                       "ge", "where", "maximum", "minimum"}


def _default(text):
    if text in ("None", "True", "False") or text[:1] in "-0123456789.[\"":
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError):
            pass
    return None


def _call(fn, drop=()):
    """A runner that calls ``fn`` with the schema's positional parameters in order (defaults
    filled only before a given one) and the given keyword-only ones as keywords."""

    def run(schema, given):
        pos, kws = [], {}
        positional = [a for a in schema.arguments if not a.kwarg_only and a.name not in drop]
        last = max((i for i, a in enumerate(positional) if a.name in given), default=-1)
        for a in positional[:last + 1]:
            pos.append(given[a.name] if a.name in given else _default(a.default))
        for a in schema.arguments:
            if a.kwarg_only and a.name in given and a.name not in drop:
                kws[a.name] = given[a.name]
        out = fn(*pos, **kws)
        # the dispatcher returns plain tuples, not torch.return_types
        return tuple(out) if isinstance(out, tuple) else out

    return run


def _all(schema, given):
    """The values of every parameter, given or defaulted, in schema order."""
    return [given[a.name] if a.name in given else _default(a.default)
            for a in schema.arguments]


def _packed(fn):
    """A runner that passes every parameter (defaults filled) positionally to ``fn``."""
    return lambda schema, given: fn(*_all(schema, given))


def _runners():
    import numtorch as nt
    from .nn import functional as F

    def dims_or_all(x, dim):
        return tuple(range(x.dim())) if dim is None or len(dim) == 0 else dim

    def slice_(x, dim, start, end, step):
        index = [slice(None)] * x.dim()
        index[dim] = slice(start, end, step)
        return x[tuple(index)]

    def convolution(x, w, b, stride, padding, dilation, transposed, output_padding, groups):
        nd = x.dim() - 2
        if transposed:
            fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[nd - 1]
            return fn(x, w, b, stride, padding, output_padding, groups, dilation)
        fn = (F.conv1d, F.conv2d, F.conv3d)[nd - 1]
        return fn(x, w, b, stride, padding, dilation, groups)

    def native_layer_norm(x, shape, w, b, eps):
        dims = tuple(range(x.dim() - len(shape), x.dim()))
        mean = x.mean(dims, keepdim=True)
        rstd = (x.var(dims, unbiased=False, keepdim=True) + eps).rsqrt()
        return F.layer_norm(x, shape, w, b, eps), mean.detach(), rstd.detach()

    def embedding(w, idx, padding_idx, scale_grad_by_freq, sparse):
        return F.embedding(idx, w, None if padding_idx == -1 else padding_idx,
                           scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)

    def method(name):
        return lambda x, *a, **k: getattr(x, name)(*a, **k)

    def index(x, indices):
        return x[tuple(slice(None) if i is None else i for i in indices)]

    def to_copy(x, dtype, layout, device, pin_memory, non_blocking, memory_format):
        out = x.to(device=device, dtype=dtype, copy=True, non_blocking=non_blocking)
        return out if memory_format is None else out.contiguous(memory_format=memory_format)

    def pin_memory(x, device):
        if not nt.cuda.is_available():
            raise RuntimeError("Cannot access accelerator device when none is available.")
        return x.pin_memory()

    def sparse_mm_reduce(x, other, reduce):
        out = nt.sparse.mm(x, other, reduce)
        return out, nt.empty(0, dtype=nt.int64)

    plain = _call
    return [
        ("_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, "
         "Device? device=None, bool? pin_memory=None, bool non_blocking=False, "
         "MemoryFormat? memory_format=None) -> Tensor", _packed(to_copy)),
        ("_pin_memory(Tensor self, Device? device=None) -> Tensor", _packed(pin_memory)),
        ("_sparse_addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, "
         "Scalar alpha=1) -> Tensor",
         _packed(lambda x, m1, m2, beta, alpha: nt.sparse.addmm(x, m1, m2, beta=beta,
                                                                alpha=alpha))),
        ("_sparse_mm_reduce_impl(Tensor self, Tensor other, str reduce) -> (Tensor, Tensor)",
         _packed(sparse_mm_reduce)),
        ("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
         plain(method("add_"))),
        ("sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
         plain(method("sub_"))),
        ("flip(Tensor self, int[] dims) -> Tensor", plain(nt.flip)),
        ("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", _packed(index)),
        ("sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) "
         "-> (Tensor values, Tensor indices)",
         _packed(lambda x, stable, dim, descending: tuple(nt.sort(
             x, dim=dim, descending=descending, stable=bool(stable))))),
        ("unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
         _packed(lambda x, d: list(nt.unbind(x, d)))),
    ] + [
        ("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", plain(nt.add)),
        ("add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
         _packed(lambda x, o, alpha: nt.add(x, o, alpha=alpha))),
        ("sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", plain(nt.sub)),
        ("sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
         _packed(lambda x, o, alpha: nt.sub(x, o, alpha=alpha))),
        ("mul.Tensor(Tensor self, Tensor other) -> Tensor", plain(nt.mul)),
        ("mul.Scalar(Tensor self, Scalar other) -> Tensor", plain(nt.mul)),
        ("div.Tensor(Tensor self, Tensor other) -> Tensor", plain(nt.div)),
        ("div.Scalar(Tensor self, Scalar other) -> Tensor", plain(nt.div)),
        ("div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
         _packed(lambda x, o, mode: nt.div(x, o, rounding_mode=mode))),
        ("rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", plain(nt.rsub)),
        ("rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
         _packed(lambda x, o, alpha: nt.rsub(x, o, alpha=alpha))),
        ("pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor", plain(nt.pow)),
        ("pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor", plain(nt.pow)),
        ("pow.Scalar(Scalar self, Tensor exponent) -> Tensor", plain(nt.pow)),
    ] + [(f"{name}(Tensor self) -> Tensor", plain(getattr(nt, name)))
         for name in ("neg", "abs", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh",
                      "sigmoid", "relu", "logical_not")] + [
        ('gelu(Tensor self, *, str approximate="none") -> Tensor', plain(F.gelu)),
        ("silu(Tensor self) -> Tensor", plain(F.silu)),
        ("hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
         plain(F.hardtanh)),
        ("leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor", plain(F.leaky_relu)),
        ("clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", plain(nt.clamp)),
        ("clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
         plain(nt.clamp)),
        ("maximum(Tensor self, Tensor other) -> Tensor", plain(nt.maximum)),
        ("minimum(Tensor self, Tensor other) -> Tensor", plain(nt.minimum)),
    ] + [(f"{name}.{kind}(Tensor self, {kind} other) -> Tensor", plain(getattr(nt, name)))
         for name in ("eq", "ne", "lt", "gt", "le", "ge") for kind in ("Tensor", "Scalar")] + [
        ("where.self(Tensor condition, Tensor self, Tensor other) -> Tensor", plain(nt.where)),
        ("mm(Tensor self, Tensor mat2) -> Tensor", plain(nt.mm)),
        ("bmm(Tensor self, Tensor mat2) -> Tensor", plain(nt.bmm)),
        ("matmul(Tensor self, Tensor other) -> Tensor", plain(nt.matmul)),
        ("addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) "
         "-> Tensor", plain(nt.addmm)),
        ("linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor", plain(F.linear)),
        ("dot(Tensor self, Tensor tensor) -> Tensor", plain(nt.dot)),
        ("sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", plain(nt.sum)),
        ("sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
         "ScalarType? dtype=None) -> Tensor", plain(nt.sum)),
        ("mean(Tensor self, *, ScalarType? dtype=None) -> Tensor", plain(nt.mean)),
        ("mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) "
         "-> Tensor", plain(nt.mean)),
        ("amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
         _packed(lambda x, d, k: nt.amax(x, dims_or_all(x, d), k))),
        ("amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
         _packed(lambda x, d, k: nt.amin(x, dims_or_all(x, d), k))),
        ("argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", plain(nt.argmax)),
        ("argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", plain(nt.argmin)),
        ("max(Tensor self) -> Tensor", plain(nt.max)),
        ("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
         plain(nt.max)),
        ("min(Tensor self) -> Tensor", plain(nt.min)),
        ("min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
         plain(nt.min)),
        ("prod(Tensor self, *, ScalarType? dtype=None) -> Tensor", plain(nt.prod)),
        ("var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
         "bool keepdim=False) -> Tensor", plain(nt.var)),
        ("std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
         "bool keepdim=False) -> Tensor", plain(nt.std)),
        ("view(Tensor(a) self, SymInt[] size) -> Tensor(a)", plain(method("view"))),
        ("reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)", plain(nt.reshape)),
        ("permute(Tensor(a) self, int[] dims) -> Tensor(a)", plain(nt.permute)),
        ("transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", plain(nt.transpose)),
        ("t(Tensor(a) self) -> Tensor(a)", plain(nt.t)),
        ("unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", plain(nt.unsqueeze)),
        ("squeeze(Tensor(a) self) -> Tensor(a)", plain(nt.squeeze)),
        ("squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)", plain(nt.squeeze)),
        ("expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)",
         plain(method("expand"), drop=("implicit",))),
        ("flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)",
         plain(nt.flatten)),
        ("cat(Tensor[] tensors, int dim=0) -> Tensor", plain(nt.cat)),
        ("stack(Tensor[] tensors, int dim=0) -> Tensor", plain(nt.stack)),
        ("split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
         _packed(lambda x, n, d: list(nt.split(x, n, d)))),
        ("chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]",
         _packed(lambda x, n, d: list(nt.chunk(x, n, d)))),
        ("slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, "
         "SymInt step=1) -> Tensor(a)", _packed(slice_)),
        ("select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)", plain(nt.select)),
        ("index_select(Tensor self, int dim, Tensor index) -> Tensor", plain(nt.index_select)),
        ("gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor",
         plain(nt.gather)),
        ("narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)",
         plain(nt.narrow)),
        ("clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor", plain(nt.clone)),
        ("detach(Tensor(a) self) -> Tensor(a)", plain(nt.detach)),
        ("contiguous(Tensor(a) self, *, MemoryFormat memory_format=0) -> Tensor(a)",
         plain(method("contiguous"))),
        ("alias(Tensor(a) self) -> Tensor(a)", plain(lambda x: x.view_as(x))),
        ("_softmax(Tensor self, int dim, bool half_to_float) -> Tensor",
         _packed(lambda x, d, h: nt.softmax(x, d))),
        ("_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor",
         _packed(lambda x, d, h: nt.log_softmax(x, d))),
        ("softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
         plain(nt.softmax)),
        ("log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
         plain(nt.log_softmax)),
    ] + [(f"{name}(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, "
          f"Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) "
          f"-> Tensor", plain(getattr(nt, name), drop=("pin_memory",)))
         for name in ("zeros_like", "ones_like", "empty_like")] + [
        ("full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, "
         "Layout? layout=None, Device? device=None, bool? pin_memory=None, "
         "MemoryFormat? memory_format=None) -> Tensor", plain(nt.full_like, drop=("pin_memory",))),
    ] + [(f"{name}(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
          f"Device? device=None, bool? pin_memory=None) -> Tensor",
          plain(getattr(nt, name), drop=("pin_memory",))) for name in ("zeros", "ones")] + [
        ("arange(Scalar end, *, ScalarType? dtype=None, Layout? layout=None, "
         "Device? device=None, bool? pin_memory=None) -> Tensor",
         plain(nt.arange, drop=("pin_memory",))),
        ("arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None, "
         "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
         plain(nt.arange, drop=("pin_memory",))),
        ("full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, "
         "Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
         plain(nt.full, drop=("pin_memory",))),
        ("topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) "
         "-> (Tensor values, Tensor indices)", plain(nt.topk)),
        ("sort(Tensor self, int dim=-1, bool descending=False) "
         "-> (Tensor values, Tensor indices)", plain(nt.sort)),
        ("cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", plain(nt.cumsum)),
        ("embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, "
         "bool scale_grad_by_freq=False, bool sparse=False) -> Tensor", _packed(embedding)),
        ("dropout(Tensor input, float p, bool train) -> Tensor", plain(F.dropout)),
        ("convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, "
         "SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, "
         "SymInt groups) -> Tensor", _packed(convolution)),
        ("_convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, "
         "SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, "
         "SymInt groups, bool benchmark, bool deterministic, bool cudnn_enabled, "
         "bool allow_tf32) -> Tensor",
         _packed(lambda *args: convolution(*args[:9]))),  # (backend flags: no meaning here)
        ("conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1], "
         "SymInt[2] padding=[0, 0], SymInt[2] dilation=[1, 1], SymInt groups=1) -> Tensor",
         plain(F.conv2d)),
        ("native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, "
         "Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)", _packed(native_layer_norm)),
        ("layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, "
         "Tensor? bias=None, float eps=1.0000000000000001e-05, bool cudnn_enable=True) "
         "-> Tensor", plain(F.layer_norm, drop=("cudnn_enable",))),
        ("scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, "
         "Tensor? attn_mask=None, float dropout_p=0., bool is_causal=False, *, "
         "float? scale=None, bool enable_gqa=False) -> Tensor",
         plain(F.scaled_dot_product_attention)),
    ]


def populate(ns):
    """Add the ATen operators to the namespace ``ns`` (``torch.ops.aten``)."""
    for text, run in _runners():
        schema = FunctionSchema.parse(text, "aten")
        opname = schema.name.partition("::")[2]
        ns._packet(opname)._add(schema, run, opname in _NUMBERS_AS_TENSORS)
