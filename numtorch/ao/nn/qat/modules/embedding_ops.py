"""QAT ``Embedding``/``EmbeddingBag``: the table passes through a fake quantizer (float
qparams per row)."""

import numtorch as torch
from numtorch import nn
from numtorch.nn import functional as F

__all__ = ["Embedding", "EmbeddingBag"]


def _check_qconfig(qconfig, name):
    if qconfig is None:
        raise AssertionError("qconfig must be provided for QAT module")
    if qconfig.weight().qscheme is not torch.per_channel_affine_float_qparams:
        raise AssertionError(f"Embedding weights requires a qscheme of "
                             f"torch.per_channel_affine_float_qparams Got "
                             f"{qconfig.weight().qscheme}")


class Embedding(nn.Embedding):
    """``nn.Embedding`` with the table fake-quantized in every lookup."""

    _FLOAT_MODULE = nn.Embedding

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 device=None, dtype=None, qconfig=None):
        super().__init__(num_embeddings, embedding_dim, padding_idx, max_norm, norm_type,
                         scale_grad_by_freq, sparse, _weight)
        _check_qconfig(qconfig, "Embedding")
        self.qconfig = qconfig
        self.weight_fake_quant = qconfig.weight()

    def forward(self, input):
        return F.embedding(input, self.weight_fake_quant(self.weight), self.padding_idx,
                           self.max_norm, self.norm_type, self.scale_grad_by_freq,
                           self.sparse)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The QAT table sharing ``mod``'s weight."""
        if type(mod) is not cls._FLOAT_MODULE:
            raise AssertionError(" qat." + cls.__name__ + ".from_float only works for "
                                 + cls._FLOAT_MODULE.__name__)
        if not hasattr(mod, "qconfig") or not mod.qconfig:
            raise AssertionError("Input float module must have a valid qconfig")
        qat = cls(mod.num_embeddings, mod.embedding_dim, mod.padding_idx, mod.max_norm,
                  mod.norm_type, mod.scale_grad_by_freq, mod.sparse, mod.weight,
                  qconfig=mod.qconfig)
        return qat

    def to_float(self):
        emb = nn.Embedding(self.num_embeddings, self.embedding_dim, self.padding_idx,
                           self.max_norm, self.norm_type, self.scale_grad_by_freq, self.sparse,
                           None)
        emb.weight = nn.Parameter(self.weight.detach())
        emb.train(self.training)
        return emb


class EmbeddingBag(nn.EmbeddingBag):
    """``nn.EmbeddingBag`` with the table fake-quantized in every lookup."""

    _FLOAT_MODULE = nn.EmbeddingBag

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, qconfig=None, device=None,
                 dtype=None):
        super().__init__(num_embeddings, embedding_dim, max_norm, norm_type,
                         scale_grad_by_freq, mode, sparse, _weight, include_last_offset,
                         padding_idx)
        _check_qconfig(qconfig, "EmbeddingBag")
        self.qconfig = qconfig
        self.weight_fake_quant = qconfig.weight()

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight_fake_quant(self.weight), offsets,
                               self.max_norm, self.norm_type, self.scale_grad_by_freq,
                               self.mode, self.sparse, per_sample_weights,
                               self.include_last_offset, self.padding_idx)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The QAT table sharing ``mod``'s weight."""
        if type(mod) is not cls._FLOAT_MODULE:
            raise AssertionError(" qat." + cls.__name__ + ".from_float only works for "
                                 + cls._FLOAT_MODULE.__name__)
        if not hasattr(mod, "qconfig") or not mod.qconfig:
            raise AssertionError("Input float module must have a valid qconfig")
        return cls(mod.num_embeddings, mod.embedding_dim, mod.max_norm, mod.norm_type,
                   mod.scale_grad_by_freq, mod.mode, mod.sparse, mod.weight,
                   mod.include_last_offset, mod.padding_idx, qconfig=mod.qconfig)

    def to_float(self):
        bag = nn.EmbeddingBag(self.num_embeddings, self.embedding_dim, self.max_norm,
                              self.norm_type, self.scale_grad_by_freq, self.mode, self.sparse,
                              None, self.include_last_offset, self.padding_idx)
        bag.weight = nn.Parameter(self.weight.detach())
        bag.train(self.training)
        return bag
