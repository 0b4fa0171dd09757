"""Type aliases layer signatures use (``_size_2_t`` ...), importable from torch's path."""

from typing import Optional, TypeVar, Union

from .._tensor import Tensor

T = TypeVar("T")


def _tuple_of(item, n):
    return tuple[(item,) * n]


# "a scalar or a tuple of n of them", for T, sizes (int), optional sizes and ratios (float)
_scalar_or_tuple_any_t = Union[T, tuple[T, ...]]
_scalar_or_tuple_1_t = Union[T, _tuple_of(T, 1)]
_scalar_or_tuple_2_t = Union[T, _tuple_of(T, 2)]
_scalar_or_tuple_3_t = Union[T, _tuple_of(T, 3)]
_scalar_or_tuple_4_t = Union[T, _tuple_of(T, 4)]
_scalar_or_tuple_5_t = Union[T, _tuple_of(T, 5)]
_scalar_or_tuple_6_t = Union[T, _tuple_of(T, 6)]

_size_any_t = Union[int, tuple[int, ...]]
_size_1_t = Union[int, _tuple_of(int, 1)]
_size_2_t = Union[int, _tuple_of(int, 2)]
_size_3_t = Union[int, _tuple_of(int, 3)]
_size_4_t = Union[int, _tuple_of(int, 4)]
_size_5_t = Union[int, _tuple_of(int, 5)]
_size_6_t = Union[int, _tuple_of(int, 6)]

_size_any_opt_t = Union[int, None, tuple[Optional[int], ...]]
_size_2_opt_t = Union[int, None, _tuple_of(Optional[int], 2)]
_size_3_opt_t = Union[int, None, _tuple_of(Optional[int], 3)]

_ratio_2_t = Union[float, _tuple_of(float, 2)]
_ratio_3_t = Union[float, _tuple_of(float, 3)]
_ratio_any_t = Union[float, tuple[float, ...]]

_tensor_list_t = Union[Tensor, tuple[Tensor, ...]]
_maybe_indices_t = Union[Tensor, tuple[Tensor, Tensor]]
