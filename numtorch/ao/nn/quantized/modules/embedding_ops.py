"""Quantized ``Embedding`` and ``EmbeddingBag``: 8-bit (quint8) or 4-bit (quint4x2) rows with a
float scale and zero point each; lookups return float rows (``weight_row * scale + bias`` with
``bias = -zero_point * scale``, as torch's row-wise packed format stores them; 4-bit rows keep
scale and bias in float16)."""

import numpy as np

import numtorch as torch
from numtorch import nn
from numtorch._quantized_packed import EmbeddingPackedParamsBase

from .utils import _hide_packed_params_repr, _quantize_weight

__all__ = ["EmbeddingPackedParams", "Embedding", "EmbeddingBag"]


def embedding_bag_prepack(weight):
    """Pack a per-row (float qparams) quantized embedding table."""
    if not weight.is_quantized or weight.qscheme() is not torch.per_channel_affine_float_qparams:
        raise RuntimeError("Expect embedding_bag weights to be quantized using "
                           "kPerChannelAffineFloatQParams")
    bits = 4 if weight.dtype is torch.quint4x2 else 8
    return EmbeddingPackedParamsBase(weight, bits)


def _row_tables(weight):
    """(integers, per-row scale, per-row bias) as the packed format holds them."""
    a = weight._array
    q = a.quantizer
    scales = q.scales.astype(np.float32)
    bias = (q.zero_points.astype(np.float32) * scales * np.float32(-1)).astype(np.float32)
    if a.qdtype is torch.quint4x2:
        scales = scales.astype(np.float16).astype(np.float32)
        bias = bias.astype(np.float16).astype(np.float32)
    return a.ints, scales, bias


def _fma(a, b, c):
    """float32 ``a * b + c`` rounded once, as fbgemm's row kernels (std::fma) compute it:
    ``a`` (float32) times a stored integer is exact in float64."""
    return (a.astype(np.float64) * b + c).astype(np.float32)


def _rows(weight, idx):
    ints, scales, bias = _row_tables(weight)
    return _fma(scales[idx][..., None], ints[idx], bias[idx][..., None])


def _bag_sums(weight, idx, starts, counts, per_sample_weights):
    """Per-bag sums accumulated row after row as torch's kernel does
    (``acc = fma(scale, q, acc + bias)``, per-sample weights folded into scale and bias);
    the loop runs over positions within a bag, every bag at once."""
    ints, scales, bias = _row_tables(weight)
    out = np.zeros((len(starts), ints.shape[1]), np.float32)
    for k in range(int(counts.max()) if counts.size else 0):
        bags = np.nonzero(counts > k)[0]
        pos = starts[bags] + k
        r = idx[pos]
        s, b = scales[r], bias[r]
        if per_sample_weights is not None:
            s, b = s * per_sample_weights[pos], b * per_sample_weights[pos]
        out[bags] = _fma(s[:, None], ints[r], out[bags] + b[:, None])
    return out


def _indices(indices, what="indices"):
    """int64 array of int32/int64 ``indices`` (torch's row kernels take no other dtype)."""
    from numtorch import _dtype

    arr = indices.detach()._array
    if arr.dtype.kind != "i" or arr.dtype.itemsize not in (4, 8):
        name = _dtype._TYPE_DISPLAY.get(indices.dtype.name, indices.dtype.name)
        raise RuntimeError(f"Expect 32 or 64 bit {what}, but found {name} instead.")
    return arr.astype(np.int64)


def _check_bounds(idx, rows):
    """torch's error for the first index outside ``[0, rows)`` (NumPy would wrap a negative
    index around and return the row counted from the end)."""
    bad = (idx < 0) | (idx >= rows)
    if bad.any():
        pos = int(np.argmax(bad))
        raise RuntimeError(f"Index {pos} is out of bounds: {int(idx[pos])}, range 0 to {rows}")


def embedding_lookup(weight, indices):
    """Float rows of quantized table ``weight`` at ``indices`` (any shape)."""
    from numtorch._tensor import _make

    idx = _indices(indices)
    _check_bounds(idx.reshape(-1), weight.shape[0])
    return _make(_rows(weight, idx.reshape(-1)).reshape(idx.shape + (weight.shape[1],)))


def embedding_bag_lookup(weight, indices, offsets=None, mode="sum", per_sample_weights=None,
                         include_last_offset=False):
    """Sums (or means) of float rows per bag, bags given by 2-d ``indices`` or by
    ``offsets`` into 1-d ``indices``."""
    from numtorch._tensor import _make

    idx = _indices(indices)
    if idx.ndim == 2:
        bags, width = idx.shape
        starts = np.arange(bags) * width
        idx = idx.reshape(-1)
        ends = starts + width
    else:
        if offsets is None:
            raise RuntimeError("embedding_bag_byte expects offsets to be set for 1D indices.")
        off = _indices(offsets, "offsets").reshape(-1)
        if include_last_offset:
            starts, ends = off[:-1], off[1:]
        else:
            starts, ends = off, np.append(off[1:], idx.size)
    _check_bounds(idx, weight.shape[0])
    if mode not in ("sum", "mean"):
        raise ValueError(f"embedding_bag: mode {mode!r} is not supported for quantized "
                         f"weights (sum or mean)")
    psw = None if per_sample_weights is None else \
        per_sample_weights.detach()._array.astype(np.float32).reshape(-1)
    counts = np.maximum(ends - starts, 0)
    out = _bag_sums(weight, idx, starts, counts, psw)
    if mode == "mean":
        nonempty = counts > 0
        out[nonempty] *= (np.float32(1) / counts[nonempty, None].astype(np.float32))
    return _make(out)


class EmbeddingPackedParams(nn.Module):
    """Holds a quantized embedding table (``_packed_weight``)."""

    _version = 1

    def __init__(self, num_embeddings, embedding_dim, dtype=torch.quint8):
        super().__init__()
        self.dtype = dtype
        if dtype not in (torch.quint8, torch.quint4x2):
            raise NotImplementedError(f"Unsupported dtype on quantized embedding! Supports "
                                      f"quint8 and quint4x2. Got dtype: {dtype}")
        wq = torch._empty_per_channel_affine_quantized(
            [num_embeddings, embedding_dim], scales=torch.ones(num_embeddings),
            zero_points=torch.zeros(num_embeddings), axis=0, dtype=dtype)
        self.set_weight(wq)

    def set_weight(self, weight):
        self._packed_weight = embedding_bag_prepack(weight)

    def _weight(self):
        return self._packed_weight.unpack()

    def forward(self, x):
        return x

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "dtype"] = self.dtype
        destination[prefix + "_packed_weight"] = self._weight()

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        self.dtype = state_dict.pop(prefix + "dtype")
        self.set_weight(state_dict.pop(prefix + "_packed_weight"))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    def __repr__(self):
        return self._weight().__repr__()


class Embedding(nn.Module):
    """A quantized embedding table; lookups return float rows."""

    _version = 1

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 dtype=torch.quint8):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.dtype = dtype
        if _weight is None:
            qweight = torch._empty_per_channel_affine_quantized(
                [num_embeddings, embedding_dim], scales=torch.ones(num_embeddings),
                zero_points=torch.zeros(num_embeddings), axis=0, dtype=torch.quint8)
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError(f"Shape of weight does not match num_embeddings and "
                                     f"embedding_dim: expected {[num_embeddings, embedding_dim]}"
                                     f", got {list(_weight.shape)}")
            qweight = _weight
        self._packed_params = EmbeddingPackedParams(num_embeddings, embedding_dim, dtype)
        self._packed_params.set_weight(qweight)

    def forward(self, indices):
        return embedding_lookup(self.weight(), indices)

    def _get_name(self):
        return "QuantizedEmbedding"

    def __repr__(self):
        return _hide_packed_params_repr(self, EmbeddingPackedParams)

    def extra_repr(self):
        return (f"num_embeddings={self.num_embeddings}, embedding_dim={self.embedding_dim}, "
                f"dtype={self._packed_params.dtype}, qscheme={self.weight().qscheme()}")

    def set_weight(self, w):
        self._packed_params.set_weight(w)

    def weight(self):
        """The quantized table."""
        return self._packed_params._weight()

    @classmethod
    def _weight_observer(cls, mod, float_cls, qat_cls):
        if hasattr(mod, "weight_fake_quant"):
            if qat_cls is not None and type(mod) is not qat_cls:
                raise AssertionError(f"nnq.{cls.__name__}.from_float with fake quant only "
                                     f"works for {qat_cls.__name__}")
            return mod.weight_fake_quant
        if type(mod) is not float_cls:
            raise AssertionError(f"nnq.{cls.__name__}.from_float only works for "
                                 f"{float_cls.__name__}")
        if not hasattr(mod, "qconfig"):
            raise AssertionError(f"{float_cls.__name__} input float module must have qconfig "
                                 f"defined")
        from numtorch.ao.quantization.qconfig import float_qparams_weight_only_qconfig

        if mod.qconfig is not None and mod.qconfig.weight is not None:
            return mod.qconfig.weight()
        return float_qparams_weight_only_qconfig.weight()

    @staticmethod
    def _quantized_table(weight_observer, mod, name):
        if weight_observer.qscheme is not torch.per_channel_affine_float_qparams:
            raise AssertionError(f"{name} quantization is only supported with "
                                 f"float_qparams_weight_only_qconfig.")
        if weight_observer.dtype not in (torch.quint8, torch.quint4x2):
            raise AssertionError(f"The only supported dtype for nnq.{name} is torch.quint8 "
                                 f"and torch.quint4x2, got {weight_observer.dtype}")
        weight_observer(mod.weight)
        return _quantize_weight(mod.weight.float(), weight_observer)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The quantized table of an observed (or QAT) ``nn.Embedding``."""
        from numtorch.ao.nn import qat as nnqat

        observer = cls._weight_observer(mod, nn.Embedding, nnqat.Embedding)
        qembedding = Embedding(mod.num_embeddings, mod.embedding_dim)
        qembedding.set_weight(cls._quantized_table(observer, mod, "Embedding"))
        return qembedding

    @classmethod
    def from_reference(cls, ref_embedding):
        return cls(ref_embedding.num_embeddings, ref_embedding.embedding_dim,
                   ref_embedding.padding_idx, ref_embedding.max_norm, ref_embedding.norm_type,
                   ref_embedding.scale_grad_by_freq, ref_embedding.sparse,
                   ref_embedding.get_quantized_weight(), ref_embedding.weight_dtype)


class EmbeddingBag(Embedding):
    """A quantized embedding-bag table: sums (or means) of float rows per bag."""

    _version = 1

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="sum", sparse=False, _weight=None,
                 include_last_offset=False, dtype=torch.quint8):
        super().__init__(num_embeddings, embedding_dim, _weight=_weight, dtype=dtype)
        self.mode = mode
        self.pruned_weights = False
        self.include_last_offset = include_last_offset
        self.dtype = dtype

    def forward(self, indices, offsets=None, per_sample_weights=None,
                compressed_indices_mapping=None):
        # torch's quantized bag always sums, whatever ``mode`` says (it passes mode 0 to its
        # kernels): so does this one
        if offsets is None and indices.dim() == 1 and \
                self._packed_params.dtype is torch.quint4x2:
            raise RuntimeError("embedding_bag_4bit/embedding_bag_2bit operator expects offsets "
                               "to be set for 1D indices.")
        return embedding_bag_lookup(self.weight(), indices, offsets, "sum",
                                    per_sample_weights, self.include_last_offset)

    def _get_name(self):
        return "QuantizedEmbeddingBag"

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The quantized table of an observed (or QAT) ``nn.EmbeddingBag``."""
        observer = cls._weight_observer(mod, nn.EmbeddingBag, None)
        qembedding_bag = EmbeddingBag(mod.num_embeddings, mod.embedding_dim,
                                      mode=mod.mode, include_last_offset=mod.include_last_offset,
                                      dtype=observer.dtype)
        qembedding_bag.set_weight(cls._quantized_table(observer, mod, "EmbeddingBag"))
        return qembedding_bag

    @classmethod
    def from_reference(cls, ref_embedding_bag):
        return cls(ref_embedding_bag.num_embeddings, ref_embedding_bag.embedding_dim,
                   ref_embedding_bag.max_norm, ref_embedding_bag.norm_type,
                   ref_embedding_bag.scale_grad_by_freq, ref_embedding_bag.mode,
                   ref_embedding_bag.sparse, ref_embedding_bag.get_quantized_weight(),
                   ref_embedding_bag.include_last_offset, ref_embedding_bag.weight_dtype)
