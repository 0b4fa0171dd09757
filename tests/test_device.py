"""``numtorch.device`` against torch.device: parsing, errors, equality, printing, pickling."""

import copy
import pickle

import pytest

import numtorch
from tests.oracle import check_raises, same

STRINGS = ["cpu", "cuda", "cuda:1", "cpu:0", "cpu:1", "meta", "mps", "xpu", "cuda:12"]


@pytest.mark.parametrize("text", STRINGS)
def test_parsing_strings(text):
    same(lambda t: t.device(text))
    same(lambda t: (t.device(text).type, t.device(text).index))


@pytest.mark.parametrize("args, kwargs", [(("cuda", 0), {}), (("cpu", 0), {}),
                                          (("cuda",), {"index": 3}),
                                          ((), {"type": "cuda", "index": 2}),
                                          (("cuda",), {"index": None})])
def test_type_and_index_arguments(args, kwargs):
    same(lambda t: t.device(*args, **kwargs))


def test_copying_a_device():
    same(lambda t: t.device(t.device("cuda", 1)))


@pytest.mark.parametrize("text", ["cuda:-1", "cuda:01", "cuda:1:2", "CUDA", "gpu", "cuda: 1",
                                  " cuda", "cuda:", "cuda:a", "", "cuda:0 ", "cuda:+1",
                                  "cuda:1.0"])
def test_invalid_strings_raise_like_torch(text):
    check_raises(lambda t: t.device(text))


def test_invalid_string_messages():
    check_raises(lambda t: t.device("cuda:x"), match="Invalid device string: 'cuda:x'")
    check_raises(lambda t: t.device("gpu"), match="device type at start of device string: gpu")
    check_raises(lambda t: t.device(""), match="Device string must not be empty")


@pytest.mark.parametrize("fn", [
    lambda t: t.device("cuda", -1), lambda t: t.device("cuda:0", 0), lambda t: t.device(-1),
    lambda t: t.device(True), lambda t: t.device(1.5), lambda t: t.device(None),
    lambda t: t.device("cuda", 1.5), lambda t: t.device("cuda", True),
    lambda t: t.device(t.device("cuda", 1), 0),
])
def test_invalid_arguments_raise_like_torch(fn):
    check_raises(fn)


def test_an_integer_names_the_accelerator():
    if numtorch.backend.cupy_or_none() is None:
        check_raises(lambda t: t.device(0), match="Cannot access accelerator device")
    else:
        assert numtorch.device(0) == numtorch.device("cuda", 0)


@pytest.mark.parametrize("a, b", [("cpu", "cpu"), ("cuda", "cuda:0"), ("cuda:1", "cuda:1"),
                                  ("cpu", "cpu:0"), ("cuda:0", "cuda:1")])
def test_equality_and_hashing(a, b):
    same(lambda t: t.device(a) == t.device(b))
    same(lambda t: t.device(a) != t.device(b))
    same(lambda t: hash(t.device(a)) == hash(t.device(b)))
    same(lambda t: len({t.device(a), t.device(b)}))


@pytest.mark.parametrize("text", ["cpu", "cuda", "cuda:0"])
def test_devices_never_equal_strings(text):
    # torch compares a device with a string by identity: never equal
    same(lambda t: t.device(text) == text)
    same(lambda t: text == t.device(text))
    same(lambda t: t.device(text) != text)
    same(lambda t: t.device("cpu") == 3)
    same(lambda t: t.device("cpu") == None)  # noqa: E711 - the comparison is the test
    same(lambda t: t.ones(1).device == "cpu")


@pytest.mark.parametrize("text", STRINGS)
def test_repr_str_and_format(text):
    same(lambda t: repr(t.device(text)))
    same(lambda t: str(t.device(text)))
    same(lambda t: f"{t.device(text)}")
    same(lambda t: f"{t.device(text)!r}")


@pytest.mark.parametrize("text", STRINGS)
def test_pickle_and_copy(text):
    same(lambda t: pickle.loads(pickle.dumps(t.device(text))))
    same(lambda t: copy.deepcopy(t.device(text)))
    same(lambda t: t.device(text).__reduce__()[1])


def test_devices_are_immutable_and_printed_as_torch_device():
    d = numtorch.device("cuda", 1)
    with pytest.raises(AttributeError):
        d.type = "cpu"
    with pytest.raises(AttributeError):
        d.index = 0
    torch = pytest.importorskip("torch")
    assert repr(type(d)) == repr(type(torch.device("cpu")))  # <class 'torch.device'>
    assert isinstance(d, numtorch.device)


def test_tensors_report_their_device():
    same(lambda t: t.ones(2).device)
    same(lambda t: t.ones(2, device="cpu").device)
    same(lambda t: t.ones(2, device=t.device("cpu", 0)).device)
    same(lambda t: t.ones(2).to(t.device("cpu")).device)


def test_device_as_a_context_manager():
    with numtorch.device("cpu") as d:
        assert d == numtorch.device("cpu")
        assert numtorch.get_default_device() == numtorch.device("cpu")
        assert numtorch.zeros(1).device.type == "cpu"
    same(lambda t: t.get_default_device())

