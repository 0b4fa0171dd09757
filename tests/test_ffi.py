"""numtorch.utils.ffi: the classic "my_lib" extension and a set of TH-helper checks, built
once per session in a temporary directory, plus the build errors."""

import importlib
import sys
import textwrap

import numpy as np
import pytest
import torch

import numtorch
from numtorch.utils.ffi import create_extension

cffi = pytest.importorskip("cffi")  # the `ffi` extra; installed with `test`

MY_LIB_H = """
int my_lib_add_forward(THFloatTensor *input1, THFloatTensor *input2, THFloatTensor *output);
int my_lib_add_backward(THFloatTensor *grad_output, THFloatTensor *grad_input);
"""

MY_LIB_C = """
#include <TH/TH.h>

int my_lib_add_forward(THFloatTensor *input1, THFloatTensor *input2, THFloatTensor *output)
{
    if (!THFloatTensor_isSameSizeAs(input1, input2))
        return 0;
    THFloatTensor_resizeAs(output, input1);
    THFloatTensor_cadd(output, input1, 1.0, input2);
    return 1;
}

int my_lib_add_backward(THFloatTensor *grad_output, THFloatTensor *grad_input)
{
    THFloatTensor_resizeAs(grad_input, grad_output);
    THFloatTensor_fill(grad_input, 1);
    return 1;
}
"""

CHECKS_H = """
double float_sum(THFloatTensor *t);
long float_size(THFloatTensor *t, int dim);
long float_stride(THFloatTensor *t, int dim);
long float_nelement(THFloatTensor *t);
int float_contiguous(THFloatTensor *t);
void float_resize(THFloatTensor *t, int nd, long a, long b, long c, long d, long e);
void float_copy(THFloatTensor *dst, THFloatTensor *src);
void float_zero_then_scale(THFloatTensor *r, THFloatTensor *t, float v);
void double_cmul(THDoubleTensor *r, THDoubleTensor *a, THDoubleTensor *b);
void long_fill_add(THLongTensor *t, long v);
void int_cadd(THIntTensor *r, THIntTensor *a, int v, THIntTensor *b);
void short_mul(THShortTensor *r, THShortTensor *t, short v);
void char_fill(THCharTensor *t, char v);
void byte_copy_resize(THByteTensor *dst, THByteTensor *src);
int write_through_data(THFloatTensor *t);
"""

CHECKS_C = """
#include <TH/TH.h>

double float_sum(THFloatTensor *t)
{
    double s = 0;
    long i, j;
    float *p = THFloatTensor_data(t);
    if (THFloatTensor_nDimension(t) != 2) return -1;
    for (i = 0; i < THFloatTensor_size(t, 0); i++)
        for (j = 0; j < THFloatTensor_size(t, 1); j++)
            s += p[i * THFloatTensor_stride(t, 0) + j * THFloatTensor_stride(t, 1)];
    return s;
}
long float_size(THFloatTensor *t, int dim) { return THFloatTensor_size(t, dim); }
long float_stride(THFloatTensor *t, int dim) { return THFloatTensor_stride(t, dim); }
long float_nelement(THFloatTensor *t) { return (long)THFloatTensor_nElement(t); }
int float_contiguous(THFloatTensor *t) { return THFloatTensor_isContiguous(t); }
void float_resize(THFloatTensor *t, int nd, long a, long b, long c, long d, long e)
{
    if (nd == 1) THFloatTensor_resize1d(t, a);
    if (nd == 2) THFloatTensor_resize2d(t, a, b);
    if (nd == 3) THFloatTensor_resize3d(t, a, b, c);
    if (nd == 4) THFloatTensor_resize4d(t, a, b, c, d);
    if (nd == 5) THFloatTensor_resize5d(t, a, b, c, d, e);
}
void float_copy(THFloatTensor *dst, THFloatTensor *src) { THFloatTensor_copy(dst, src); }
void float_zero_then_scale(THFloatTensor *r, THFloatTensor *t, float v)
{
    THFloatTensor_zero(r);
    THFloatTensor_mul(r, t, v);
}
void double_cmul(THDoubleTensor *r, THDoubleTensor *a, THDoubleTensor *b)
{
    THDoubleTensor_cmul(r, a, b);
}
void long_fill_add(THLongTensor *t, long v)
{
    THLongTensor_fill(t, v);
    THLongTensor_add(t, t, 1);
}
void int_cadd(THIntTensor *r, THIntTensor *a, int v, THIntTensor *b)
{
    THIntTensor_cadd(r, a, v, b);
}
void short_mul(THShortTensor *r, THShortTensor *t, short v) { THShortTensor_mul(r, t, v); }
void char_fill(THCharTensor *t, char v) { THCharTensor_fill(t, v); }
void byte_copy_resize(THByteTensor *dst, THByteTensor *src)
{
    THByteTensor_resizeAs(dst, src);
    THByteTensor_copy(dst, src);
}
int write_through_data(THFloatTensor *t)
{
    /* resize, then write through the new data pointer */
    long i;
    float *p;
    THFloatTensor_resize2d(t, 2, 3);
    p = THFloatTensor_data(t);
    for (i = 0; i < 6; i++) p[i] = (float)i;
    return (int)THFloatTensor_nElement(t);
}
"""


def _write(directory, files):
    for name, text in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


@pytest.fixture(scope="module")
def ext(tmp_path_factory):
    root = tmp_path_factory.mktemp("ffi_build")
    _write(root, {"src/my_lib.h": MY_LIB_H, "src/my_lib.c": MY_LIB_C,
                  "src/checks.h": CHECKS_H, "src/checks.c": CHECKS_C})
    builder = create_extension("_ext.my_lib", headers=["src/my_lib.h", "src/checks.h"],
                               sources=["src/my_lib.c", "src/checks.c"],
                               relative_to=str(root / "build.py"), verbose=False)
    assert isinstance(builder, cffi.FFI)
    library = builder.build()
    assert library.startswith(str(root / "_ext" / "my_lib"))
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("_ext.my_lib")
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == "_ext" or m.startswith("_ext.")]:
            del sys.modules[name]


def test_my_lib_in_an_autograd_function(ext):
    class MyAddFunction(numtorch.autograd.Function):
        @staticmethod
        def forward(ctx, input1, input2):
            output = input1.new()
            assert ext.my_lib_add_forward(input1, input2, output) == 1
            return output

        @staticmethod
        def backward(ctx, grad_output):
            grad_input = grad_output.new()
            ext.my_lib_add_backward(grad_output, grad_input)
            return grad_input, grad_input

    a = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    x, y = numtorch.tensor(a, requires_grad=True), numtorch.tensor(b, requires_grad=True)
    out = MyAddFunction.apply(x, y)
    xt, yt = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    want = xt + yt
    np.testing.assert_array_equal(out.detach().numpy(), want.detach().numpy())
    out.sum().backward()
    want.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), xt.grad.numpy())
    np.testing.assert_array_equal(y.grad.numpy(), yt.grad.numpy())


def test_my_lib_old_style_function_and_module(ext):
    class MyAddFunction(numtorch.autograd.Function):
        def forward(self, input1, input2):
            output = input1.new()
            ext.my_lib_add_forward(input1, input2, output)
            return output

        def backward(self, grad_output):
            grad_input = grad_output.new()
            ext.my_lib_add_backward(grad_output, grad_input)
            return grad_input, grad_input

    class MyAddModule(numtorch.nn.Module):
        def forward(self, input1, input2):
            return MyAddFunction()(input1, input2)

    x = numtorch.randn(5, 5, requires_grad=True)
    y = numtorch.randn(5, 5, requires_grad=True)
    out = MyAddModule()(x, y)
    np.testing.assert_array_equal(out.detach().numpy(), (x + y).detach().numpy())
    out.backward(numtorch.ones(5, 5))
    assert x.grad.tolist() == [[1.0] * 5] * 5


def test_sizes_strides_and_non_contiguous_inputs(ext):
    t = numtorch.arange(12.0).reshape(3, 4)
    assert ext.float_size(t, 0) == 3 and ext.float_stride(t, 0) == 4
    assert ext.float_nelement(t) == 12 and ext.float_contiguous(t) == 1
    view = t.t()[1:, ::2]
    assert ext.float_contiguous(view) == 0 and ext.float_stride(view, 1) == 8
    assert ext.float_sum(view) == pytest.approx(float(view.sum()))
    a, b = numtorch.randn(4, 3).t(), numtorch.randn(3, 4)
    out = numtorch.Tensor()
    assert ext.my_lib_add_forward(a, b, out) == 1
    np.testing.assert_allclose(out.numpy(), (a + b).numpy())
    assert ext.my_lib_add_forward(a, numtorch.randn(2, 2), out) == 0


def test_resizing_from_c_resizes_the_tensor(ext):
    t = numtorch.Tensor()
    for nd, sizes in enumerate([(5,), (2, 3), (2, 1, 3), (1, 2, 3, 4), (2, 1, 1, 2, 2)], 1):
        ext.float_resize(t, nd, *(sizes + (0,) * (5 - len(sizes))))
        assert tuple(t.shape) == sizes and t.is_contiguous()
    u = numtorch.zeros(7)
    assert ext.write_through_data(u) == 6
    assert u.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_other_tensor_types(ext):
    a, b = numtorch.tensor([1.5, 2.0], dtype=numtorch.float64), numtorch.tensor([2.0, -1.0],
                                                                              dtype=numtorch.float64)
    r = numtorch.tensor([], dtype=numtorch.float64)
    ext.double_cmul(r, a, b)
    assert r.tolist() == [3.0, -2.0]
    n = numtorch.zeros(2, 2, dtype=numtorch.int64)
    ext.long_fill_add(n, 2 ** 40)
    assert n.tolist() == [[2 ** 40 + 1] * 2] * 2
    i = numtorch.tensor([], dtype=numtorch.int32)
    ext.int_cadd(i, numtorch.tensor([1, 2], dtype=numtorch.int32), 3,
                 numtorch.tensor([10, 20], dtype=numtorch.int32))
    assert i.tolist() == [31, 62] and i.dtype == numtorch.int32
    s = numtorch.tensor([], dtype=numtorch.int16)
    ext.short_mul(s, numtorch.tensor([[3, -4]], dtype=numtorch.int16), 5)
    assert s.tolist() == [[15, -20]]
    c = numtorch.zeros(3, dtype=numtorch.int8)
    ext.char_fill(c, -7)
    assert c.tolist() == [-7, -7, -7]
    dst = numtorch.tensor([], dtype=numtorch.uint8)
    ext.byte_copy_resize(dst, numtorch.tensor([[1, 255], [3, 4]], dtype=numtorch.uint8).t())
    assert dst.tolist() == [[1, 3], [255, 4]]
    f = numtorch.Tensor()
    ext.float_zero_then_scale(f, numtorch.tensor([1.0, -2.0]), 0.5)
    assert f.tolist() == [0.5, -1.0]


def test_bad_calls_raise(ext):
    a = numtorch.randn(2, 2)
    with pytest.raises(TypeError, match="must be a float32 tensor for THFloatTensor"):
        ext.my_lib_add_forward(a, a.double(), numtorch.Tensor())
    with pytest.raises(TypeError, match="must be a numtorch tensor"):
        ext.my_lib_add_forward(a, [1.0], numtorch.Tensor())
    with pytest.raises(TypeError, match="takes 3 arguments"):
        ext.my_lib_add_forward(a, a)
    with pytest.raises(RuntimeError, match="THFloatTensor_size: dimension 5 out of range"):
        ext.float_size(a, 5)
    with pytest.raises(RuntimeError, match="THFloatTensor_copy: 4 elements to copy into 3"):
        ext.float_copy(numtorch.zeros(3), a)
    leaf = numtorch.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="resizing the numtorch tensor failed") as info:
        ext.my_lib_add_forward(a, a, leaf)
    assert "cannot resize variables that require grad" in str(info.value.__cause__)


def test_header_that_does_not_parse(tmp_path):
    _write(tmp_path, {"bad.h": "int broken(THFloatTensor *t;\n", "bad.c": "int x;\n"})
    with pytest.raises(cffi.CDefError, match="cannot parse the headers"):
        create_extension("bad", headers="bad.h", sources=["bad.c"], relative_to=str(tmp_path))


def test_compile_error_reports_the_compiler(tmp_path):
    _write(tmp_path, {"e.h": "int f(THFloatTensor *t);\n",
                      "e.c": "#include <TH/TH.h>\nint f(THFloatTensor *t) { return nope; }\n"})
    ffi = create_extension("err_ext", headers="e.h", sources=["e.c"],
                           relative_to=str(tmp_path), verbose=False)
    with pytest.raises(cffi.VerificationError) as info:
        ffi.build()
    message = str(info.value)
    assert "building C extension 'err_ext' failed" in message
    assert "nope" in message and "error" in message  # the compiler's own diagnostic


def test_configuration_errors(tmp_path, monkeypatch):
    _write(tmp_path, {"h.h": "int f(int);\n", "c.c": "int f(int x) { return x; }\n"})
    with pytest.raises(FileNotFoundError, match="header file not found"):
        create_extension("x", headers="missing.h", sources=["c.c"], relative_to=str(tmp_path))
    with pytest.raises(FileNotFoundError, match="source file not found"):
        create_extension("x", headers="h.h", sources=["none.c"], relative_to=str(tmp_path))
    with pytest.raises(RuntimeError, match="CPU tensors only"):
        create_extension("x", headers="h.h", sources=["c.c"], with_cuda=True,
                         relative_to=str(tmp_path))
    ffi = create_extension("pkg._ext.lib2", headers="h.h", sources=["c.c"], package=True,
                           relative_to=str(tmp_path))
    assert ffi.distutils_extension(str(tmp_path / "gen")).name == "pkg._ext.lib2._lib2"
    assert (tmp_path / "pkg" / "_ext" / "lib2" / "__init__.py").is_file()
    monkeypatch.setitem(sys.modules, "cffi", None)
    with pytest.raises(ImportError, match=r"numtorch\[ffi\]"):
        create_extension("x", headers="h.h", sources=["c.c"], relative_to=str(tmp_path))
