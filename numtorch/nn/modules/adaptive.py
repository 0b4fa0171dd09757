"""AdaptiveLogSoftmaxWithLoss: a softmax over many classes split into a frequent head and
rarer tail clusters (each cluster one entry of the head, refined by its own small projection).
"""

from collections import namedtuple

import numtorch

from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Adaptive softmax: exact log-probabilities with cheaper rare-class computations.

    Args:
        in_features: input width.
        n_classes: number of classes.
        cutoffs: increasing class boundaries splitting the head from the tail clusters.
        div_value: each successive cluster's hidden width is divided by this.
        head_bias: give the head projection a bias.

    Example:
        >>> m = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 7])
        >>> out = m(torch.randn(3, 8), torch.tensor([0, 5, 9]))
        >>> out.output.shape
        torch.Size([3])
    """

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted "
                             "in an increasing order, where each value is between 1 and "
                             "n_classes-1")
        kw = {"dtype": dtype}
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        tails = []
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            tails.append(Sequential(Linear(in_features, hsz, bias=False, **kw),
                                    Linear(hsz, osz, bias=False, **kw)))
        self.tail = ModuleList(tails)

    def reset_parameters(self):
        """Re-draw the head and every tail projection."""
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_, target_):
        """Return ``(output, loss)``: each row's target log-probability and their negative mean.
        """
        tdim = target_.dim()
        if tdim == 1:
            if input_.shape[0] != target_.shape[0]:
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input_.dim() != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found "
                                   f"inputs with size {input_.shape}")
        elif tdim == 0:
            if input_.dim() != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found "
                                   f"inputs with size {input_.shape}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported, "
                               f"got a {tdim}D target")
        batched = tdim > 0
        inp = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        if target.numel():
            low, high = int(target.min()), int(target.max())
            if low < 0 or high > self.n_classes - 1:
                raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but "
                                   f"values in range [{low}, {high}] were found. ")
        # Each row's head index: its own class in the shortlist, else its cluster's entry.
        cutoffs = numtorch.tensor(self.cutoffs, device=target.device)
        cluster = numtorch.bucketize(target, cutoffs, right=True)
        gather = numtorch.where(cluster == 0, target, self.shortlist_size + cluster - 1)
        rows0 = (cluster == 0).nonzero(as_tuple=True)[0]
        parts = [inp.new_zeros((rows0.numel(),))]
        order = [rows0]
        for i in range(1, self.n_clusters + 1):
            rows = (cluster == i).nonzero(as_tuple=True)[0]
            if rows.numel() == 0:
                continue
            rel = (target.index_select(0, rows) - self.cutoffs[i - 1]).unsqueeze(1)
            sub = inp.index_select(0, rows)
            logp = F.log_softmax(self.tail[i - 1](sub), dim=1)
            parts.append(logp.gather(1, rel).squeeze(1))
            order.append(rows)
        # Concatenated parts follow ``order``; the inverse permutation restores row order.
        inv = numtorch.cat(order).argsort(stable=True)
        output = numtorch.cat(parts)[inv]
        head_logprob = F.log_softmax(self.head(inp), dim=1)
        output = output + head_logprob.gather(1, gather.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _full_log_prob(self, inp, head_output):
        head_logprob = F.log_softmax(head_output, dim=1)
        cols = [head_logprob[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_logprob = F.log_softmax(self.tail[i](inp), dim=1)
            cols.append(cluster_logprob
                        + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return numtorch.cat(cols, dim=1)

    def log_prob(self, input):
        """Log-probabilities of every class, shape ``(N, n_classes)``; input is ``(N, in)``."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input):
        """Most likely class of each row (the argmax of :meth:`log_prob`)."""
        return self.log_prob(input).argmax(dim=-1)
