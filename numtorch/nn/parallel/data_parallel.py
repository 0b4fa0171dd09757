"""``DataParallel``: split each batch over several devices of one process.

On a machine without CUDA devices (or with ``device_ids`` of length one) it simply runs the
module, exactly as torch does; with several CUDA devices (CuPy) it scatters the inputs,
replicates the module, runs the replicas in threads and gathers the outputs.
"""

from ..modules.module import Module
from .parallel_apply import parallel_apply
from .replicate import replicate
from .scatter_gather import as_device, gather, scatter_kwargs

__all__ = ["DataParallel", "data_parallel"]


def _cuda_count():
    from ... import cuda

    return cuda.device_count() if cuda.is_available() else 0


def _index(d):
    if isinstance(d, int):
        return d
    d = as_device(d)
    return 0 if d.index is None else d.index


class DataParallel(Module):
    """Run ``module`` on slices of the batch on several CUDA devices, in one process.

    Args:
        module (Module): the model, on ``device_ids[0]``.
        device_ids (list, optional): the devices (default: every CUDA device).
        output_device (int or device, optional): where outputs are gathered
            (default: ``device_ids[0]``).
        dim (int): the batch dimension to split along. Default: 0.

    Without CUDA devices the module is run directly (``device_ids`` is then ``[]``).
    ``state_dict`` keys start with ``module.``, as in torch.

    Example:
        >>> net = torch.nn.DataParallel(torch.nn.Linear(3, 2))
        >>> net(torch.randn(4, 3)).shape
        torch.Size([4, 2])
        >>> list(net.state_dict())
        ['module.weight', 'module.bias']
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        if _cuda_count() == 0:
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(_cuda_count()))
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.device_ids = [_index(d) for d in device_ids]
        self.output_device = _index(output_device)
        self.src_device_obj = as_device(self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def _check_on_source(self):
        import itertools

        for t in itertools.chain(self.module.parameters(), self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError(f"module must have its parameters and buffers on device "
                                   f"{self.src_device_obj} (device_ids[0]) but found one of "
                                   f"them on device: {t.device}")

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        self._check_on_source()
        inputs, module_kwargs = self.scatter(inputs, kwargs, self.device_ids)
        if not inputs and not module_kwargs:
            inputs, module_kwargs = ((),), ({},)
        if len(self.device_ids) == 1:
            return self.module(*inputs[0], **module_kwargs[0])
        replicas = self.replicate(self.module, self.device_ids[:len(inputs)])
        outputs = self.parallel_apply(replicas, inputs, module_kwargs)
        return self.gather(outputs, self.output_device)

    def replicate(self, module, device_ids):
        return replicate(module, device_ids, False)

    def scatter(self, inputs, kwargs, device_ids):
        return scatter_kwargs(inputs, kwargs, device_ids, dim=self.dim)

    def parallel_apply(self, replicas, inputs, kwargs):
        return parallel_apply(replicas, inputs, kwargs, self.device_ids[:len(replicas)])

    def gather(self, outputs, output_device):
        return gather(outputs, output_device, dim=self.dim)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    """The functional form of :class:`DataParallel`: one parallel call of ``module``.

    Args:
        module (Module): the model (on ``device_ids[0]``).
        inputs: the positional input(s).
        device_ids (list, optional): the devices (default: every CUDA device).
        output_device (optional): where to gather the outputs.
        dim (int): the batch dimension.
        module_kwargs (dict, optional): keyword arguments.
    """
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    if _cuda_count() == 0 and not device_ids:
        return module(*inputs, **(module_kwargs or {}))
    if device_ids is None:
        device_ids = list(range(_cuda_count()))
    if output_device is None:
        output_device = device_ids[0]
    ins, kws = scatter_kwargs(inputs, module_kwargs or {}, device_ids, dim)
    if not ins and not kws:
        ins, kws = ((),), ({},)
    if len(device_ids) == 1:
        return module(*ins[0], **kws[0])
    replicas = replicate(module, device_ids[:len(ins)])
    outputs = parallel_apply(replicas, ins, kws, device_ids[:len(ins)])
    return gather(outputs, output_device, dim)
