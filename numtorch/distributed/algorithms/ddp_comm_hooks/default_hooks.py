"""The stock DDP communication hooks: all-reduce, and all-reduce of a float16 / bfloat16 copy.

A hook takes ``(state, bucket)`` and returns a future whose value is the bucket's reduced,
averaged flat tensor; ``state`` is the process group (None: the default group).
"""

from ... import all_reduce, get_world_size
from ... import group as _group

__all__ = [
    "allreduce_hook",
    "bf16_compress_hook",
    "bf16_compress_wrapper",
    "fp16_compress_hook",
    "fp16_compress_wrapper",
]


def _reduce(process_group, tensor):
    pg = process_group if process_group is not None else _group.WORLD
    tensor.div_(get_world_size(pg))
    return all_reduce(tensor, group=pg, async_op=True).get_future()


def allreduce_hook(process_group, bucket):
    """Average the bucket across the ranks (DDP's own reduction, as a hook)."""
    return _reduce(process_group, bucket.buffer()).then(lambda fut: fut.value()[0])


def _compressed(process_group, bucket, dtype):
    buffer = bucket.buffer()
    compressed = buffer.to(dtype)

    def decompress(fut):
        buffer.copy_(fut.value()[0])
        return buffer

    return _reduce(process_group, compressed).then(decompress)


def fp16_compress_hook(process_group, bucket):
    """Average the bucket through a float16 copy (half the bytes on the wire)."""
    from .... import float16

    return _compressed(process_group, bucket, float16)


def bf16_compress_hook(process_group, bucket):
    """Average the bucket through a bfloat16 copy."""
    from .... import bfloat16

    return _compressed(process_group, bucket, bfloat16)


def _wrapper(hook, dtype):
    def wrapped(state, bucket):
        buffer = bucket.buffer()
        original = buffer.clone()
        bucket.set_buffer(buffer.to(dtype).to(buffer.dtype))

        def back(fut):
            result = fut.value()
            return result.to(original.dtype) if hasattr(result, "to") else result

        return hook(state, bucket).then(back)

    return wrapped


def fp16_compress_wrapper(hook):
    """``hook`` run on the bucket's values rounded to float16, its result cast back."""
    from .... import float16

    return _wrapper(hook, float16)


def bf16_compress_wrapper(hook):
    """``hook`` run on the bucket's values rounded to bfloat16, its result cast back."""
    from .... import bfloat16

    return _wrapper(hook, bfloat16)
