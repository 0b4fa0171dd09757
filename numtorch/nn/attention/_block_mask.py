"""``BlockMask``: which (query block, key block) tiles flex attention computes.

A block mask keeps, for every (batch, head, query block), the key blocks that are *partial*
(some but not all positions allowed: the mask function is evaluated there) and, apart, the
ones that are *full* (every position allowed: no mask function needed). Each list is stored
"ordered": a count per row and a row of block indices whose first ``count`` entries are the
chosen blocks in increasing order, followed by the unchosen ones (also increasing), so every
row is a permutation. The same data transposed (per key block, the query blocks) is kept too.
All of it is int32, as in torch.
"""

import math

from ... import _creation, _dtype
from ..._from_data import tensor as _tensor
from ..._ranges import arange as _arange
from ..._tensor import Tensor

__all__ = [
    "BlockMask",
    "and_masks",
    "create_block_mask",
    "create_mask",
    "noop_mask",
    "or_masks",
]

_DEFAULT_SPARSE_BLOCK_SIZE = 128
_LARGE_SPARSE_BLOCK_SIZE = 1 << 30

# what a block (or a downsampled cell of blocks) looks like in to_string: none/some/all
_CELL = ("  ", "\u2591\u2591", "\u2588\u2588")
_TRUNCATED = ("...\nTo print out more, set BlockMask.to_string(limit=N)\n"
              "You can also index (BlockMask[batch, head]) to choose a specific batch or head")


def noop_mask(batch, head, token_q, token_kv):
    """A mask_mod allowing every position (``True`` everywhere)."""
    return batch.new_ones(size=(), dtype=_dtype.bool)


def _sliced_mask_mod_error(batch, head, token_q, token_kv):
    raise RuntimeError("Cannot use mask_mod from a sliced BlockMask")


def and_masks(*mask_mods):
    """Combine mask_mods into one allowing a position where all of them allow it."""
    if not all(callable(m) for m in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def and_mask(b, h, q_idx, kv_idx):
        result = b.new_ones((), dtype=_dtype.bool)
        for mod in mask_mods:
            result = result & mod(b, h, q_idx, kv_idx)
        return result

    return and_mask


def or_masks(*mask_mods):
    """Combine mask_mods into one allowing a position where any of them allows it."""
    if not all(callable(m) for m in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def or_mask(b, h, q_idx, kv_idx):
        result = b.new_zeros((), dtype=_dtype.bool)
        for mod in mask_mods:
            result = result | mod(b, h, q_idx, kv_idx)
        return result

    return or_mask


def _positional_count(fn):
    import inspect

    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
               for p in params)


def index_grids(B, H, Q_LEN, KV_LEN, device=None):
    """int64 index tensors that broadcast to (B, H, Q_LEN, KV_LEN): what a score_mod or
    mask_mod sees as ``b, h, q_idx, kv_idx`` (torch evaluates them one position at a time
    under vmap; broadcasting the aranges gives every position at once)."""
    def grid(n, axis):
        shape = [1, 1, 1, 1]
        shape[axis] = n
        return _arange(n, device=device).view(shape)

    return grid(B, 0), grid(H, 1), grid(Q_LEN, 2), grid(KV_LEN, 3)


def _evaluate(mod_fn, B, H, Q_LEN, KV_LEN, device, score=None):
    b, h, q, kv = index_grids(B, H, Q_LEN, KV_LEN, device)
    out = mod_fn(b, h, q, kv) if score is None else mod_fn(score, b, h, q, kv)
    if not isinstance(out, Tensor):
        out = _tensor(out, device=device)
    return out.expand(B, H, Q_LEN, KV_LEN)


def create_mask(mod_fn, B, H, Q_LEN, KV_LEN, device=None):
    """The dense (B, H, Q_LEN, KV_LEN) mask of a mask_mod (bool), or of a score_mod (where
    the score it gives a zero score is finite)."""
    B = 1 if B is None else B
    H = 1 if H is None else H
    if _positional_count(mod_fn) == 5:
        zero = _creation.zeros((), device=device)
        return _evaluate(mod_fn, B, H, Q_LEN, KV_LEN, device, score=zero).isfinite()
    return _evaluate(mod_fn, B, H, Q_LEN, KV_LEN, device).to(_dtype.bool)


def _ordered(dense):
    """(count, indices) in int32 of a bool (..., rows, cols) block map (see module doc)."""
    counts = dense.sum(-1).to(_dtype.int32)
    indices = (~dense).to(_dtype.int8).argsort(dim=-1, stable=True).to(_dtype.int32)
    return counts, indices


def _dense(counts, indices, cols):
    """The bool (..., rows, cols) block map of an ordered (counts, indices) pair; entries past
    a row's count are ignored (they may repeat chosen blocks)."""
    width = indices.shape[-1]
    chosen = _arange(width, device=indices.device) < counts.unsqueeze(-1)
    # unchosen entries go to a spare column that is cut off afterwards
    target = indices.long().where(chosen, cols)
    out = _creation.zeros(*indices.shape[:-1], cols + 1, dtype=_dtype.bool,
                          device=indices.device)
    out.scatter_(-1, target, chosen)
    return out[..., :cols]


def _transposed(counts, indices, cols):
    if counts is None:
        return None, None
    return _ordered(_dense(counts, indices, cols).transpose(-2, -1))


def _pair(block_size):
    if isinstance(block_size, int):
        return (block_size, block_size)
    return tuple(block_size)


class BlockMask:
    """The block-sparse structure of an attention mask, for :func:`flex_attention`.

    Built by :func:`create_block_mask` (from a mask_mod) or :meth:`from_kv_blocks`. Its
    tensors are int32: ``kv_num_blocks`` (B, H, Q blocks), ``kv_indices`` (B, H, Q blocks,
    KV blocks) and their ``full_`` counterparts, plus the transposed ``q_`` ones.

    Example:
        >>> from torch.nn.attention.flex_attention import create_block_mask
        >>> bm = create_block_mask(lambda b, h, q, kv: q >= kv, None, None, 256, 256)
        >>> bm.shape
        (1, 1, 256, 256)
    """

    _TENSOR_ATTRS = ("kv_num_blocks", "kv_indices", "full_kv_num_blocks", "full_kv_indices",
                     "q_num_blocks", "q_indices", "full_q_num_blocks", "full_q_indices")
    _CONTEXT_ATTRS = ("seq_lengths", "BLOCK_SIZE", "mask_mod")

    def __init__(self, seq_lengths, kv_num_blocks, kv_indices, full_kv_num_blocks,
                 full_kv_indices, q_num_blocks, q_indices, full_q_num_blocks, full_q_indices,
                 BLOCK_SIZE=(_DEFAULT_SPARSE_BLOCK_SIZE, _DEFAULT_SPARSE_BLOCK_SIZE),
                 mask_mod=noop_mask, *, dq_write_order=None, dq_write_order_full=None,
                 dq_kv_order=None, dq_kv_order_spt=None):
        if kv_indices.dim() < 2:
            raise RuntimeError("BlockMask must have at least 2 dimensions")
        if (full_kv_num_blocks is None) != (full_kv_indices is None):
            raise AssertionError(
                "full_kv_num_blocks and full_kv_indices must be both provided or omitted")
        self.seq_lengths = tuple(seq_lengths)
        self.kv_num_blocks = kv_num_blocks
        self.kv_indices = kv_indices
        self.full_kv_num_blocks = full_kv_num_blocks
        self.full_kv_indices = full_kv_indices
        self.q_num_blocks = q_num_blocks
        self.q_indices = q_indices
        self.full_q_num_blocks = full_q_num_blocks
        self.full_q_indices = full_q_indices
        self.BLOCK_SIZE = _pair(BLOCK_SIZE)
        self.mask_mod = mask_mod
        # block orders for a fused backward kernel; numtorch's composition has no use for them
        self.dq_write_order = dq_write_order
        self.dq_write_order_full = dq_write_order_full
        self.dq_kv_order = dq_kv_order
        self.dq_kv_order_spt = dq_kv_order_spt

    @classmethod
    def from_kv_blocks(cls, kv_num_blocks, kv_indices, full_kv_num_blocks=None,
                       full_kv_indices=None, BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE,
                       mask_mod=None, seq_lengths=None, compute_q_blocks=True, *,
                       dq_write_order=None, dq_write_order_full=None, dq_kv_order=None):
        """Build a BlockMask from its key-block lists; the query-block (transposed) lists
        are derived. ``seq_lengths`` defaults to the block counts times BLOCK_SIZE."""
        if kv_indices.dim() < 2:
            raise RuntimeError("BlockMask must have at least 2 dimensions")
        if (full_kv_num_blocks is None) != (full_kv_indices is None):
            raise AssertionError(
                "full_kv_num_blocks and full_kv_indices must be both provided or omitted")
        block = _pair(BLOCK_SIZE)
        kv_blocks = kv_indices.shape[-1]
        if seq_lengths is None:
            seq_lengths = (kv_indices.shape[-2] * block[0], kv_blocks * block[1])
        q_num, q_idx = (_transposed(kv_num_blocks, kv_indices, kv_blocks)
                        if compute_q_blocks else (None, None))
        fq_num, fq_idx = (_transposed(full_kv_num_blocks, full_kv_indices, kv_blocks)
                          if compute_q_blocks else (None, None))
        return cls(seq_lengths, kv_num_blocks, kv_indices, full_kv_num_blocks,
                   full_kv_indices, q_num, q_idx, fq_num, fq_idx, block,
                   noop_mask if mask_mod is None else mask_mod, dq_write_order=dq_write_order,
                   dq_write_order_full=dq_write_order_full,
                   dq_kv_order=dq_kv_order if isinstance(dq_kv_order, Tensor) else None)

    def as_tuple(self, flatten=True):
        """The mask's fields as a tuple (lengths and block sizes spread out when
        ``flatten``)."""
        tensors = tuple(getattr(self, name) for name in self._TENSOR_ATTRS)
        extra = (self.mask_mod, self.dq_write_order, self.dq_write_order_full,
                 self.dq_kv_order, self.dq_kv_order_spt)
        if flatten:
            return (*self.seq_lengths, *tensors, *self.BLOCK_SIZE, *extra)
        return (self.seq_lengths, *tensors, self.BLOCK_SIZE, *extra)

    @property
    def shape(self):
        batch, heads = self.kv_num_blocks.shape[:2]
        return (batch, heads, *self.seq_lengths)

    def numel(self):
        """Number of (batch, head, query, key) positions the mask covers."""
        return math.prod(self.shape)

    def _computed_blocks(self):
        total = self.kv_num_blocks.sum()
        if self.full_kv_num_blocks is not None:
            total = total + self.full_kv_num_blocks.sum()
        return total.item()

    def sparsity(self):
        """Percentage of the positions in blocks that are skipped (negative when padding
        blocks cover more than the sequences)."""
        computed = self._computed_blocks() * self.BLOCK_SIZE[0] * self.BLOCK_SIZE[1]
        return 100 * (1 - computed / self.numel())

    def _block_maps(self):
        """(partial, full) bool block maps (B, H, Q blocks, KV blocks); full may be None."""
        cols = self.kv_indices.shape[-1]
        partial = _dense(self.kv_num_blocks, self.kv_indices, cols)
        full = (None if self.full_kv_num_blocks is None
                else _dense(self.full_kv_num_blocks, self.full_kv_indices, cols))
        return partial, full

    def to_dense(self):
        """int32 (B, H, Q blocks, KV blocks): 1 where a block is computed."""
        partial, full = self._block_maps()
        if full is not None:
            partial = partial | full
        return partial.to(_dtype.int32)

    def to_string(self, grid_size=(20, 20), limit=4):
        """Draw each (batch, head) block map, shrunk to at most ``grid_size`` cells."""
        grid = _pair(grid_size)
        dense = self.to_dense()
        entries = []
        batch, heads = dense.shape[:2]
        for b in range(batch):
            for h in range(heads):
                if len(entries) == limit:
                    entries.append(_TRUNCATED)
                    return "\n".join(entries)
                entries.append(f"({b}, {h})\n" + _draw(dense[b, h].cpu().numpy(), grid))
        return "\n".join(entries)

    def __str__(self):
        # torch trims the drawing's trailing blanks (empty last rows included)
        body = self.to_string().rstrip()
        return f"BlockMask(shape={self.shape}, sparsity={self.sparsity():.2f}%, \n{body}\n)"

    def __repr__(self):
        def size(t):
            return None if t is None else t.shape

        lines = [f"    {name}={size(getattr(self, name))}," for name in self._TENSOR_ATTRS]
        name = getattr(self.mask_mod, "__name__", self.mask_mod)
        lines += [f"    BLOCK_SIZE={self.BLOCK_SIZE},", f"    shape={self.shape},",
                  f"    sparsity={self.sparsity():.2f}%,", f"    mask_mod={name}"]
        return "BlockMask(\n" + "\n".join(lines) + "\n)"

    def __getitem__(self, index):
        """Select batches, heads and query blocks; an integer keeps its dimension. The
        sliced mask keeps the sequence lengths but can no longer evaluate its mask_mod."""
        if not isinstance(index, tuple):
            index = (index,)
        index = tuple(slice(i, i + 1 if i != -1 else None) if isinstance(i, int) else i
                      for i in index)
        kv_num = self.kv_num_blocks[index]
        kv_idx = self.kv_indices[index]
        full_num = full_idx = None
        if self.full_kv_num_blocks is not None:
            full_num = self.full_kv_num_blocks[index]
            full_idx = self.full_kv_indices[index]
        return BlockMask.from_kv_blocks(kv_num, kv_idx, full_num, full_idx, self.BLOCK_SIZE,
                                        _sliced_mask_mod_error, self.seq_lengths)

    def _adjust(self, new_q_len, new_kv_len):
        """Crop the mask to its upper-left (new_q_len, new_kv_len) corner."""
        q_blocks = -(-new_q_len // self.BLOCK_SIZE[0])
        kv_blocks = -(-new_kv_len // self.BLOCK_SIZE[1])
        partial, full = self._block_maps()

        def crop(dense):
            if dense is None:
                return None, None
            return _ordered(dense[:, :, :q_blocks, :kv_blocks])

        kv_num, kv_idx = crop(partial)
        full_num, full_idx = crop(full)
        return BlockMask.from_kv_blocks(kv_num, kv_idx, full_num, full_idx, self.BLOCK_SIZE,
                                        self.mask_mod, (new_q_len, new_kv_len))

    def to(self, device):
        """This mask with its tensors on ``device``."""
        moved = {name: (None if getattr(self, name) is None else getattr(self, name).to(device))
                 for name in self._TENSOR_ATTRS}
        return BlockMask(self.seq_lengths, BLOCK_SIZE=self.BLOCK_SIZE, mask_mod=self.mask_mod,
                         **moved)

    def _element_mask(self, B, H, Q_LEN, KV_LEN, device):
        """bool (B or 1, H or 1, Q_LEN, KV_LEN): the positions attention may use."""
        partial, full = self._block_maps()
        bq, bkv = self.BLOCK_SIZE

        def spread(dense):
            return (dense.repeat_interleave(bq, dim=-2)[..., :Q_LEN, :]
                    .repeat_interleave(bkv, dim=-1)[..., :KV_LEN])

        allowed = spread(partial)
        if self.mask_mod is not noop_mask:
            allowed = allowed & _evaluate(self.mask_mod, B, H, Q_LEN, KV_LEN, device).bool()
        if full is not None:
            allowed = allowed | spread(full)
        return allowed


def _draw(dense, grid):
    """Rows of cells for one (Q blocks, KV blocks) 0/1 NumPy map: each cell covers
    ceil(n / grid) blocks per side and shows none / some / all of them computed."""
    rows, cols = dense.shape
    step_r = max(1, -(-rows // grid[0]))
    step_c = max(1, -(-cols // grid[1]))
    lines = []
    for r in range(0, rows, step_r):
        cells = []
        for c in range(0, cols, step_c):
            tile = dense[r:r + step_r, c:c + step_c]
            cells.append(_CELL[0 if not tile.any() else 2 if tile.all() else 1])
        lines.append("".join(cells) + "\n")
    return "".join(lines)


def create_block_mask(mask_mod, B, H, Q_LEN, KV_LEN, device=None,
                      BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE, _compile=False,
                      separate_full_blocks=True, compute_dq_write_order=False,
                      dq_kv_order=True):
    """Evaluate ``mask_mod(b, h, q_idx, kv_idx)`` at every position (one broadcast call) and
    keep, per block of BLOCK_SIZE positions, whether it is skipped, partial or full.

    Args:
        mask_mod (callable): returns a bool tensor; True where attention is allowed.
        B, H (int or None): batch and head counts (None: 1, broadcast over all).
        Q_LEN, KV_LEN (int): the sequence lengths.
        device: where the mask's tensors live.
        BLOCK_SIZE (int or (int, int)): block size along queries and keys. Default: 128.
        separate_full_blocks (bool): keep full blocks apart (so the mask_mod is skipped
            there). Default: True.

    A block that reaches past the sequence ends is never full: the positions beyond count
    as masked, as in torch.
    """
    count = _positional_count(mask_mod)
    if count is not None and count not in (4, 5):
        raise AssertionError(f"Expected 4 or 5 positional args, got {count}")
    if count == 5:
        raise AssertionError(f"create-block_mask requires a mask_mod function! Got {mask_mod}")
    B = 1 if B is None else B
    H = 1 if H is None else H
    bq, bkv = _pair(BLOCK_SIZE)
    q_blocks, kv_blocks = -(-Q_LEN // bq), -(-KV_LEN // bkv)
    mask = _evaluate(mask_mod, B, H, Q_LEN, KV_LEN, device).bool()
    padded = _creation.zeros(B, H, q_blocks * bq, kv_blocks * bkv, dtype=_dtype.bool,
                             device=mask.device)
    padded[:, :, :Q_LEN, :KV_LEN] = mask
    tiles = padded.view(B, H, q_blocks, bq, kv_blocks, bkv)
    some = tiles.any(dim=5).any(dim=3)
    every = tiles.all(dim=5).all(dim=3)
    if separate_full_blocks:
        kv_num, kv_idx = _ordered(some & ~every)
        full_num, full_idx = _ordered(every)
    else:
        kv_num, kv_idx = _ordered(some)
        full_num = full_idx = None
    return BlockMask.from_kv_blocks(kv_num, kv_idx, full_num, full_idx, (bq, bkv), mask_mod,
                                    (Q_LEN, KV_LEN))
