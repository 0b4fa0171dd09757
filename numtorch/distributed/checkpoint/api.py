"""``torch.distributed.checkpoint.api``: the exception a failed save or load raises."""

import traceback

__all__ = ["CheckpointException"]


class CheckpointException(BaseException):
    """A save or load step failed on some ranks; ``failures`` maps each such rank to its
    ``(exception, stack summary)``. Like torch's, it derives from BaseException."""

    def __init__(self, msg, failures):
        super().__init__(msg, failures)
        self._failures = failures

    @property
    def failures(self):
        return self._failures

    def __str__(self):
        text = f"CheckpointException ranks:{self._failures.keys()}\n"
        for rank, (exc, trace) in self._failures.items():
            text += f"Traceback (most recent call last): (RANK {rank})\n"
            if trace is not None:
                text += "".join(traceback.format_list(trace))
            text += "".join(traceback.format_exception_only(type(exc), exc))
        return text
