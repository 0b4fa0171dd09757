"""Session 51 quantization parity, against real torch at test time: converted modules given
a float tensor (a forgotten QuantStub) raise torch's dispatcher error for the op they run;
the quantized functional helpers that torch runs on float tensors do so; the eager
entry points warn (deprecation, observer construction) as often as torch's."""

import warnings

import pytest
import torch

import numtorch as nt


def _error(T, build, make_input):
    mod = build(T)
    x = make_input(T)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            mod(*x) if isinstance(x, tuple) else mod(x)
        except Exception as e:  # noqa: BLE001 - the class is compared
            return type(e), str(e).split("\n")[0]
    return None, None


def _first_line(msg):
    # torch's first line goes on to list the dispatch keys the op has kernels for; numtorch
    # stops after the sentences that name the op and backend
    cut = msg.find("possible resolutions.")
    return msg[:cut + len("possible resolutions.")] if cut >= 0 else msg


_MODULES = {
    "Linear": (lambda T: T.ao.nn.quantized.Linear(4, 3), lambda T: T.randn(2, 4)),
    "LinearReLU": (lambda T: T.ao.nn.intrinsic.quantized.LinearReLU(4, 3),
                   lambda T: T.randn(2, 4)),
    "LinearLeakyReLU": (lambda T: T.ao.nn.intrinsic.quantized.LinearLeakyReLU(4, 3, 0.1),
                        lambda T: T.randn(2, 4)),
    "LinearTanh": (lambda T: T.ao.nn.intrinsic.quantized.LinearTanh(4, 3),
                   lambda T: T.randn(2, 4)),
    "Conv1d": (lambda T: T.ao.nn.quantized.Conv1d(1, 2, 3), lambda T: T.randn(1, 1, 5)),
    "Conv2d": (lambda T: T.ao.nn.quantized.Conv2d(1, 2, 3), lambda T: T.randn(1, 1, 5, 5)),
    "Conv2d_reflect": (lambda T: T.ao.nn.quantized.Conv2d(1, 2, 3, padding=1,
                                                          padding_mode="reflect"),
                       lambda T: T.randn(1, 1, 5, 5)),
    "Conv3d": (lambda T: T.ao.nn.quantized.Conv3d(1, 2, 3), lambda T: T.randn(1, 1, 4, 4, 4)),
    "ConvReLU1d": (lambda T: T.ao.nn.intrinsic.quantized.ConvReLU1d(1, 2, 3),
                   lambda T: T.randn(1, 1, 5)),
    "ConvReLU2d": (lambda T: T.ao.nn.intrinsic.quantized.ConvReLU2d(1, 2, 3),
                   lambda T: T.randn(1, 1, 5, 5)),
    "ConvReLU3d": (lambda T: T.ao.nn.intrinsic.quantized.ConvReLU3d(1, 2, 3),
                   lambda T: T.randn(1, 1, 4, 4, 4)),
    "ConvAdd2d": (lambda T: T.ao.nn.intrinsic.quantized.ConvAdd2d(1, 2, 3),
                  lambda T: (T.randn(1, 1, 5, 5), T.randn(1, 2, 3, 3))),
    "ConvAddReLU2d": (lambda T: T.ao.nn.intrinsic.quantized.ConvAddReLU2d(1, 2, 3),
                      lambda T: (T.randn(1, 1, 5, 5), T.randn(1, 2, 3, 3))),
    "ConvTranspose1d": (lambda T: T.ao.nn.quantized.ConvTranspose1d(1, 2, 3),
                        lambda T: T.randn(1, 1, 5)),
    "ConvTranspose2d": (lambda T: T.ao.nn.quantized.ConvTranspose2d(1, 2, 3),
                        lambda T: T.randn(1, 1, 5, 5)),
    "ConvTranspose3d": (lambda T: T.ao.nn.quantized.ConvTranspose3d(1, 2, 3),
                        lambda T: T.randn(1, 1, 4, 4, 4)),
    "ReLU6": (lambda T: T.ao.nn.quantized.ReLU6(), lambda T: T.randn(3)),
    "ReLU6_inplace": (lambda T: T.ao.nn.quantized.ReLU6(inplace=True), lambda T: T.randn(3)),
    "BatchNorm2d": (lambda T: T.ao.nn.quantized.BatchNorm2d(1), lambda T: T.randn(1, 1, 2, 2)),
    "BatchNorm3d": (lambda T: T.ao.nn.quantized.BatchNorm3d(2),
                    lambda T: T.randn(1, 2, 2, 2, 2)),
    "BNReLU2d": (lambda T: T.ao.nn.intrinsic.quantized.BNReLU2d(2),
                 lambda T: T.randn(1, 2, 2, 2)),
    "BNReLU3d": (lambda T: T.ao.nn.intrinsic.quantized.BNReLU3d(2),
                 lambda T: T.randn(1, 2, 2, 2, 2)),
    "LayerNorm": (lambda T: T.ao.nn.quantized.LayerNorm(
        [2], T.nn.Parameter(T.ones(2)), T.nn.Parameter(T.zeros(2)), 1.0, 0),
        lambda T: T.randn(2, 2)),
    "GroupNorm": (lambda T: T.ao.nn.quantized.GroupNorm(
        1, 2, T.nn.Parameter(T.ones(2)), T.nn.Parameter(T.zeros(2)), 1.0, 0),
        lambda T: T.randn(1, 2, 2, 2)),
    "InstanceNorm2d": (lambda T: T.ao.nn.quantized.InstanceNorm2d(
        2, T.nn.Parameter(T.ones(2)), T.nn.Parameter(T.zeros(2)), 1.0, 0),
        lambda T: T.randn(1, 2, 2, 2)),
    "Hardswish": (lambda T: T.ao.nn.quantized.Hardswish(1.0, 0), lambda T: T.randn(3)),
    "LeakyReLU": (lambda T: T.ao.nn.quantized.LeakyReLU(1.0, 0), lambda T: T.randn(3)),
    "Sigmoid": (lambda T: T.ao.nn.quantized.Sigmoid(1.0, 0), lambda T: T.randn(3)),
    "Softmax": (lambda T: T.ao.nn.quantized.Softmax(dim=1), lambda T: T.randn(2, 3)),
    "ELU": (lambda T: T.ao.nn.quantized.ELU(1.0, 0), lambda T: T.randn(3)),
    "QFunctional_add": (lambda T: T.ao.nn.quantized.QFunctional().add,
                        lambda T: (T.randn(2), T.randn(2))),
    "QFunctional_mul": (lambda T: T.ao.nn.quantized.QFunctional().mul,
                        lambda T: (T.randn(2), T.randn(2))),
    "QFunctional_add_relu": (lambda T: T.ao.nn.quantized.QFunctional().add_relu,
                             lambda T: (T.randn(2), T.randn(2))),
    "QFunctional_cat": (lambda T: T.ao.nn.quantized.QFunctional().cat,
                        lambda T: [T.randn(2), T.randn(2)]),
    "QFunctional_add_scalar": (lambda T: T.ao.nn.quantized.QFunctional().add_scalar,
                               lambda T: (T.randn(2), 1.0)),
    "QFunctional_mul_scalar": (lambda T: T.ao.nn.quantized.QFunctional().mul_scalar,
                               lambda T: (T.randn(2), 2.0)),
    "QFunctional_matmul": (lambda T: T.ao.nn.quantized.QFunctional().matmul,
                           lambda T: (T.randn(2, 2), T.randn(2, 2))),
    "ops_cat_relu": (lambda T: lambda xs: T.ops.quantized.cat_relu(xs, 0, 0.1, 0),
                     lambda T: [T.randn(2), T.randn(2)]),
    "ops_batch_norm2d": (lambda T: lambda x: T.ops.quantized.batch_norm2d(
        x, T.ones(2), T.zeros(2), T.zeros(2), T.ones(2), 1e-5, 0.1, 0),
        lambda T: T.randn(1, 2, 2, 2)),
    "ops_relu6": (lambda T: T.ops.quantized.relu6, lambda T: T.randn(3)),
    "dynamic_Linear_quantized_input": (
        lambda T: T.ao.nn.quantized.dynamic.Linear(4, 3),
        lambda T: T.quantize_per_tensor(T.randn(2, 4), 0.1, 0, T.quint8)),
    "dynamic_LinearReLU_quantized_input": (
        lambda T: T.ao.nn.intrinsic.quantized.dynamic.LinearReLU(4, 3),
        lambda T: T.quantize_per_tensor(T.randn(2, 4), 0.1, 0, T.quint8)),
    "dynamic_Conv2d_quantized_input": (
        lambda T: T.ao.nn.quantized.dynamic.Conv2d(2, 2, 3),
        lambda T: T.quantize_per_tensor(T.randn(1, 2, 4, 4), 0.1, 0, T.quint8)),
}


@pytest.mark.parametrize("name", sorted(_MODULES))
def test_quantized_module_wrong_input_error(name):
    build, make_input = _MODULES[name]
    t_cls, t_msg = _error(torch, build, make_input)
    n_cls, n_msg = _error(nt, build, make_input)
    assert t_cls is not None
    assert n_cls is t_cls, (n_cls, n_msg, t_msg)
    assert _first_line(n_msg) == _first_line(t_msg)


def _functional_float(T, which):
    qF = T.ao.nn.quantized.functional
    T.manual_seed(0)
    vals = [((i * 37) % 23 - 11) / 4.0 for i in range(72)]  # exact in float32
    x = T.tensor(vals, dtype=T.float32).reshape(1, 2, 6, 6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if which == "leaky_relu":
                y = qF.leaky_relu(x, 0.2)
            elif which == "leaky_relu_inplace":
                y = qF.leaky_relu(x, 0.2, True)
                assert y is x
            elif which == "leaky_relu_rescale":
                y = qF.leaky_relu(x, 0.2, False, 0.1, 0)
            elif which == "max_pool2d":
                y = qF.max_pool2d(x, 2)
            elif which == "max_pool2d_stride_pad":
                y = qF.max_pool2d(x, 3, 2, 1, ceil_mode=True)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e)
    return y.dtype, tuple(y.shape), y.detach().numpy().tolist()


@pytest.mark.parametrize("which", ["leaky_relu", "leaky_relu_inplace", "leaky_relu_rescale",
                                   "max_pool2d", "max_pool2d_stride_pad"])
def test_quantized_functional_float_input(which):
    t = _functional_float(torch, which)
    n = _functional_float(nt, which)
    assert str(n[0]) == str(t[0]).replace("torch.", "numtorch.") or n[0] == t[0] or \
        str(n[0]).replace("numtorch.", "torch.") == str(t[0])
    assert n[1:] == t[1:]


def _counts(T, case):
    tq, nn = T.ao.quantization, T.nn
    T.manual_seed(0)

    def mk(qat=False):
        m = nn.Sequential(tq.QuantStub(), nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(),
                          nn.Flatten(), nn.Linear(18, 4), tq.DeQuantStub())
        return m.train() if qat else m.eval()

    x = T.randn(2, 1, 5, 5)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        if case in ("prepare_x86", "prepare_fbgemm", "prepare_qnnpack"):
            m = mk()
            m.qconfig = tq.get_default_qconfig(case.split("_")[1])
            tq.prepare(m)
        elif case == "prepare_default":
            m = mk()
            m.qconfig = tq.default_qconfig
            tq.prepare(m)
        elif case == "propagate":
            m = mk()
            m.qconfig = tq.get_default_qconfig("x86")
            tq.propagate_qconfig_(m)
        elif case == "quantize":
            m = mk()
            m.qconfig = tq.get_default_qconfig("x86")
            tq.quantize(m, lambda mm, a: mm(a), [x])
        elif case == "prepare_qat":
            m = mk(True)
            m.qconfig = tq.get_default_qat_qconfig("x86")
            tq.prepare_qat(m)
        elif case == "quantize_qat":
            m = mk(True)
            m.qconfig = tq.get_default_qat_qconfig("x86")
            tq.quantize_qat(m, lambda mm, a: mm(a), [x])
        elif case == "quantize_dynamic":
            tq.quantize_dynamic(mk(), {nn.Linear}, dtype=T.qint8)
        elif case == "quantize_dynamic_f16":
            tq.quantize_dynamic(mk(), {nn.Linear}, dtype=T.float16)
        elif case == "prepare_qat_fx":
            import importlib
            qfx = importlib.import_module(T.__name__ + ".ao.quantization.quantize_fx")
            m = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU()).train()
            qfx.prepare_qat_fx(m, tq.get_default_qat_qconfig_mapping("x86"), (x,))
    deprecations = sum("torch.ao.quantization is deprecated" in str(r.message) for r in w)
    observers = sum("Please use quant_min and quant_max" in str(r.message) for r in w)
    return deprecations, observers


@pytest.mark.parametrize("case", ["prepare_x86", "prepare_fbgemm", "prepare_qnnpack",
                                  "prepare_default", "propagate", "quantize", "prepare_qat",
                                  "quantize_qat", "quantize_dynamic", "quantize_dynamic_f16"])
def test_warning_counts(case):
    assert _counts(nt, case) == _counts(torch, case)


def test_prepare_qat_fx_deprecation_count():
    assert _counts(nt, "prepare_qat_fx")[0] == _counts(torch, "prepare_qat_fx")[0]


def test_nested_deprecation_hidden_by_default_filters():
    # the nested entry points' warnings come from inside the library: the default filters
    # (DeprecationWarning shown for __main__ only) hide them as torch's
    def where(T):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            T.ao.quantization.quantize_dynamic(T.nn.Sequential(T.nn.Linear(2, 2)))
        return sorted(("site-packages" in r.filename or "/numtorch/" in r.filename)
                      for r in w if "is deprecated" in str(r.message))
    assert where(nt) == where(torch)


def _activation_dtype_case(T, engine, which, qdtype):
    nnq, nniq = T.ao.nn.quantized, T.ao.nn.intrinsic.quantized
    old = T.backends.quantized.engine
    T.backends.quantized.engine = engine
    try:
        T.manual_seed(0)
        qd = getattr(T, qdtype)
        xl = T.quantize_per_tensor(T.randn(2, 4), 0.1, 0, qd)
        xc = T.quantize_per_tensor(T.randn(1, 2, 4, 4), 0.1, 0, qd)
        x3 = T.quantize_per_tensor(T.randn(1, 2, 4, 4, 4), 0.1, 0, qd)
        build = {"Linear": lambda: nnq.Linear(4, 3)(xl),
                 "LinearReLU": lambda: nniq.LinearReLU(4, 3)(xl),
                 "Conv1d": lambda: nnq.Conv1d(2, 2, 3)(xc[0]),
                 "Conv2d": lambda: nnq.Conv2d(2, 2, 3)(xc),
                 "ConvReLU2d": lambda: nniq.ConvReLU2d(2, 2, 3)(xc),
                 "Conv3d": lambda: nnq.Conv3d(2, 2, 3)(x3),
                 "ConvTranspose1d": lambda: nnq.ConvTranspose1d(2, 2, 3)(xc[0]),
                 "ConvTranspose2d": lambda: nnq.ConvTranspose2d(2, 2, 3)(xc)}[which]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                y = build()
            except Exception as e:  # noqa: BLE001
                return type(e).__name__, str(e).split("\n")[0]
        # (a fresh module's weight is torch's uninitialised memory: values are compared in
        # test_onednn_linear_qint8_activations)
        return str(y.dtype).split(".")[-1], y.q_scale(), tuple(y.shape)
    finally:
        T.backends.quantized.engine = old


@pytest.mark.parametrize("engine", ["x86", "fbgemm", "qnnpack", "onednn"])
@pytest.mark.parametrize("which", ["Linear", "LinearReLU", "Conv1d", "Conv2d", "ConvReLU2d",
                                   "Conv3d", "ConvTranspose1d", "ConvTranspose2d"])
def test_quantized_module_non_quint8_input(engine, which):
    # torch's kernels take quint8 activations only (oneDNN's linear also takes qint8 and
    # then returns qint8); numtorch computed on them and returned quint8
    assert _activation_dtype_case(nt, engine, which, "qint8") == \
        _activation_dtype_case(torch, engine, which, "qint8")


@pytest.mark.parametrize("engine", ["x86", "qnnpack", "onednn"])
def test_quantized_linear_qint32_input(engine):
    assert _activation_dtype_case(nt, engine, "Linear", "qint32") == \
        _activation_dtype_case(torch, engine, "Linear", "qint32")


def _onednn_qint8_linear(T, trial, relu):
    old = T.backends.quantized.engine
    T.backends.quantized.engine = "onednn"
    try:
        vals = [((i * 37) % 29 - 14) / 7.0 for i in range(5 * 16)]
        wv = [((i * 53) % 31 - 15) / 40.0 for i in range(8 * 16)]
        cls = T.ao.nn.intrinsic.quantized.LinearReLU if relu else T.ao.nn.quantized.Linear
        m = cls(16, 8)
        w = T.quantize_per_channel(T.tensor(wv).reshape(8, 16),
                                   T.tensor([0.004 + 0.001 * i for i in range(8)]),
                                   T.zeros(8, dtype=T.long), 0, T.qint8)
        m.set_weight_bias(w, T.tensor([0.5 - 0.2 * i for i in range(8)]) if trial else None)
        m.scale, m.zero_point = [0.05, 0.11, 0.02][trial], [0, 3, -5][trial]
        x = T.quantize_per_tensor(T.tensor(vals).reshape(5, 16), 0.04, [0, 2, -3][trial],
                                  T.qint8)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = m(x)
        return str(y.dtype).split(".")[-1], y.q_zero_point(), y.int_repr().flatten().tolist()
    finally:
        T.backends.quantized.engine = old


@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("trial", [0, 1, 2])
def test_onednn_linear_qint8_activations(trial, relu):
    assert _onednn_qint8_linear(nt, trial, relu) == _onednn_qint8_linear(torch, trial, relu)


_EMB_CASES = {
    "float_indices": lambda T, q: q.Embedding(5, 2)(T.tensor([1.0, 2.0])),
    "int16_indices": lambda T, q: q.Embedding(5, 2)(T.tensor([1, 2], dtype=T.int16)),
    "uint8_indices": lambda T, q: q.Embedding(5, 2)(T.tensor([1], dtype=T.uint8)),
    "double_indices": lambda T, q: q.Embedding(5, 2)(T.tensor([1.0], dtype=T.float64)),
    "int32_indices": lambda T, q: q.Embedding(5, 2)(T.tensor([1, 2], dtype=T.int32)),
    "out_of_range": lambda T, q: q.Embedding(5, 2)(T.tensor([7])),
    "negative": lambda T, q: q.Embedding(5, 2)(T.tensor([-1])),
    "negative_second": lambda T, q: q.Embedding(5, 2)(T.tensor([1, -3, 2])),
    "bag_float_indices": lambda T, q: q.EmbeddingBag(5, 2)(T.tensor([1.0, 2.0]),
                                                           T.tensor([0])),
    "bag_float_offsets": lambda T, q: q.EmbeddingBag(5, 2)(T.tensor([1, 2]), T.tensor([0.0])),
    "bag_int16_offsets": lambda T, q: q.EmbeddingBag(5, 2)(T.tensor([1, 2]),
                                                           T.tensor([0], dtype=T.int16)),
    "bag_no_offsets": lambda T, q: q.EmbeddingBag(5, 2)(T.tensor([1, 2])),
    "bag_4bit_no_offsets": lambda T, q: q.EmbeddingBag(5, 4, dtype=T.quint4x2)(T.tensor([1])),
    "bag_out_of_range": lambda T, q: q.EmbeddingBag(5, 2)(T.tensor([9]), T.tensor([0])),
    "bag_4bit_out_of_range": lambda T, q: q.EmbeddingBag(5, 4, dtype=T.quint4x2)(
        T.tensor([1, 8]), T.tensor([0])),
    "empty": lambda T, q: q.Embedding(5, 2)(T.tensor([], dtype=T.long)),
}


def _emb(T, case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            y = _EMB_CASES[case](T, T.ao.nn.quantized)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e).split("\n")[0]
    return "ok", tuple(y.shape)


@pytest.mark.parametrize("case", sorted(_EMB_CASES))
def test_quantized_embedding_index_checks(case):
    # negative indices read the table from its end (NumPy's wrap-around) where torch refuses
    assert _emb(nt, case) == _emb(torch, case)


def _qindex_put(T, case):
    qa = T.quantize_per_tensor(T.tensor([[0.5, -0.3, -1.2], [0.55, -1.1, -1.4]]), 0.05, 128,
                               T.quint8)
    qc = T.quantize_per_channel(T.tensor([[0.5, -0.3], [0.2, 0.1], [1.0, -1.0]]),
                                T.tensor([0.1, 0.2, 0.3]), T.tensor([0, 1, 2]), 0, T.qint8)
    row = T.tensor([0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if case == "inplace_scalar":
                b = qa.clone()
                r = b.index_put_((row,), T.tensor(0.5))
                assert r is b
                y = b
            elif case == "row_values":
                y = qa.index_put((row,), T.tensor([0.5, 1.0, -1.0]))
            elif case == "pairs":
                y = qa.index_put((T.tensor([0, 1]), T.tensor([2, 0])), T.tensor([0.5, 1.0]))
            elif case == "mask":
                y = qa.index_put((T.tensor([[True, False, True], [False, True, False]]),),
                                 T.tensor(0.3))
            elif case == "quantized_values":
                y = qa.index_put((row,), qa[0:1])
            elif case == "accumulate":
                y = qa.index_put((row,), T.tensor(0.5), accumulate=True)
            elif case == "per_channel":
                y = qc.index_put((row,), T.tensor(0.5))
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e)
    return y.int_repr().tolist(), qa.int_repr().tolist()


@pytest.mark.parametrize("case", ["inplace_scalar", "row_values", "pairs", "mask",
                                  "quantized_values", "accumulate", "per_channel"])
def test_quantized_index_put(case):
    # index_put/index_put_ of float values into a quantized tensor crashed (TypeError)
    assert _qindex_put(nt, case) == _qindex_put(torch, case)


_MATMUL_CASES = {
    "mm": lambda T, q2, q3: T.mm(q2, T.ones(4, 3)),
    "mm_both": lambda T, q2, q3: q2 @ q2.t(),
    "float_at_quantized": lambda T, q2, q3: T.ones(3, 2) @ q2,
    "bmm": lambda T, q2, q3: q3 @ T.ones(2, 4, 3),
    "matmul_3d_2d": lambda T, q2, q3: q3 @ T.ones(4, 3),
    "linear_2d": lambda T, q2, q3: T.nn.functional.linear(q2, T.ones(3, 4)),
    "linear_3d": lambda T, q2, q3: T.nn.functional.linear(q3, T.ones(3, 4)),
    "linear_quantized_weight": lambda T, q2, q3: T.nn.functional.linear(T.ones(2, 4), q2),
    "linear_bias": lambda T, q2, q3: T.nn.functional.linear(q2, T.ones(3, 4), T.ones(3)),
    "mv": lambda T, q2, q3: q2 @ T.ones(4),
}


def _qmatmul(T, case):
    vals = T.tensor([0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7, -0.8])
    q2 = T.quantize_per_tensor(vals.reshape(2, 4), 0.05, 128, T.quint8)
    q3 = T.quantize_per_tensor(T.cat([vals, vals]).reshape(2, 2, 4), 0.05, 128, T.quint8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            _MATMUL_CASES[case](T, q2, q3)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, _first_line(str(e).split("\n")[0])
    return "ok"


@pytest.mark.parametrize("case", sorted(_MATMUL_CASES))
def test_quantized_matmul_refused(case):
    # numtorch's dtype checks raised KeyError('quint8') for a quantized operand
    assert _qmatmul(nt, case) == _qmatmul(torch, case)


_LIKE_CASES = {
    "empty_like": lambda T, qa, qc: T.empty_like(qa),
    "empty_like_per_channel": lambda T, qa, qc: T.empty_like(qc),
    "ones_like": lambda T, qa, qc: T.ones_like(qa),
    "ones_like_per_channel": lambda T, qa, qc: T.ones_like(qc),
    "full_like": lambda T, qa, qc: T.full_like(qa, 0.33),
    "full_like_saturating": lambda T, qa, qc: T.full_like(qa, 100.0),
    "zeros_like": lambda T, qa, qc: T.zeros_like(qa),
    "empty_like_float": lambda T, qa, qc: T.empty_like(qa, dtype=T.float32),
    "ones_like_qint8": lambda T, qa, qc: T.ones_like(qa, dtype=T.qint8),
    "full_like_double": lambda T, qa, qc: T.full_like(qa, 0.5, dtype=T.float64),
}


def _qlike(T, case):
    qa = T.quantize_per_tensor(T.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]), 0.05, 128,
                               T.quint8)
    qc = T.quantize_per_channel(T.tensor([[0.5, -0.3], [0.2, 0.1], [1.0, -1.0]]),
                                T.tensor([0.1, 0.2, 0.3]), T.tensor([0, 1, 2]), 0, T.qint8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            y = _LIKE_CASES[case](T, qa, qc)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, _first_line(str(e).split("\n")[0])
    params = (y.q_scale(), y.q_zero_point()) if y.qscheme() == T.per_tensor_affine else \
        (y.q_per_channel_scales().tolist(), y.q_per_channel_axis())
    ints = None if case.startswith("empty") else y.int_repr().tolist()
    return str(y.dtype).split(".")[-1], tuple(y.shape), params, ints


@pytest.mark.parametrize("case", sorted(_LIKE_CASES))
def test_quantized_like_factories(case):
    # empty_like / ones_like / full_like of a quantized tensor raised (NotImplementedError,
    # TypeError) where torch keeps its quantizer
    assert _qlike(nt, case) == _qlike(torch, case)


_DROPOUT_CASES = {
    "p0": lambda T, q: T.nn.functional.dropout(q, 0.0, training=True),
    "eval": lambda T, q: T.nn.functional.dropout(q, 0.5, training=False),
    "p1": lambda T, q: T.nn.functional.dropout(q, 1.0, training=True),
    "half": lambda T, q: T.nn.functional.dropout(q, 0.5, training=True),
    "inplace": lambda T, q: T.nn.functional.dropout(q, 0.5, training=True, inplace=True),
    "dropout2d": lambda T, q: T.nn.functional.dropout2d(q[None], 0.5, training=True),
    "module": lambda T, q: T.nn.Dropout(0.5)(q),
    "alpha": lambda T, q: T.nn.functional.alpha_dropout(q, 0.5, True),
}


@pytest.mark.parametrize("case", sorted(_DROPOUT_CASES))
def test_quantized_dropout_training(case):
    # training-mode dropout of a quantized tensor raised TypeError from numtorch's noise
    def run(T):
        q = T.quantize_per_tensor(T.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]), 0.05, 128,
                                  T.quint8)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                y = _DROPOUT_CASES[case](T, q)
            except Exception as e:  # noqa: BLE001
                return type(e).__name__, _first_line(str(e).split("\n")[0])
        return y.int_repr().tolist()
    assert run(nt) == run(torch)


@pytest.mark.parametrize("case", ["unique", "unique_method", "unique_dim",
                                  "unique_consecutive", "unique_counts"])
def test_quantized_unique_refused(case):
    # torch has no QuantizedCPU unique kernel; numtorch raised TypeError from NumPy
    def run(T):
        q = T.quantize_per_tensor(T.tensor([[0.1, 0.1, 0.3], [0.4, 0.5, 0.1]]), 0.05, 128,
                                  T.quint8)
        f = {"unique": lambda: T.unique(q), "unique_method": lambda: q.unique(sorted=False),
             "unique_dim": lambda: T.unique(q, dim=0),
             "unique_consecutive": lambda: T.unique_consecutive(q),
             "unique_counts": lambda: T.unique(q, return_counts=True)}[case]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                f()
            except Exception as e:  # noqa: BLE001
                return type(e).__name__, _first_line(str(e).split("\n")[0])
        return "ok"
    assert run(nt) == run(torch)
