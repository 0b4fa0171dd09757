"""``post_localSGD_hook``: global gradient all-reduce for the first ``start_localSGD_iter``
iterations, then (local SGD) only within ``subgroup``, or not at all, while a model averager
periodically averages the parameters."""

import logging

from .default_hooks import _reduce

__all__ = ["PostLocalSGDState", "post_localSGD_hook"]

logger = logging.getLogger(__name__)


class PostLocalSGDState:
    """The hook's state: the global ``process_group`` (None: the default group), the
    ``subgroup`` reduced within after ``start_localSGD_iter`` iterations (None: each rank's
    intra-node group; numtorch uses the global group), whether to reduce at all then
    (``post_local_gradient_allreduce``) and the iteration count ``iter``."""

    __slots__ = ["process_group", "subgroup", "start_localSGD_iter",
                 "post_local_gradient_allreduce", "iter"]

    def __init__(self, process_group, subgroup, start_localSGD_iter,
                 post_local_gradient_allreduce=True):
        logger.info("Local SGD will be started after %s iterations", start_localSGD_iter)
        self.process_group = process_group
        self.subgroup = subgroup
        self.start_localSGD_iter = start_localSGD_iter
        self.post_local_gradient_allreduce = post_local_gradient_allreduce
        self.iter = 0

    def maybe_increase_iter(self, bucket):
        # one iteration per backward: counted on its last bucket
        if bucket.is_last():
            self.iter += 1
        if self.iter == self.start_localSGD_iter:
            logger.info("Start to apply local SGD after %s iterations.", self.iter)


def post_localSGD_hook(state, bucket):
    """Average ``bucket`` over ``state.process_group`` until ``start_localSGD_iter``, then
    over ``state.subgroup`` (or leave it as is without ``post_local_gradient_allreduce``)."""
    group = state.process_group
    if state.iter < state.start_localSGD_iter:
        state.maybe_increase_iter(bucket)
        return _reduce(group, bucket.buffer()).then(lambda fut: fut.value()[0])
    if not state.post_local_gradient_allreduce:
        from ....futures import Future

        fut = Future()
        fut.set_result(bucket.buffer())
        return fut
    sub = state.subgroup if state.subgroup is not None else group
    return _reduce(sub, bucket.buffer()).then(lambda fut: fut.value()[0])
