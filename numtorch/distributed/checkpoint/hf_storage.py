"""``torch.distributed.checkpoint.hf_storage``: where torch's checkpoint writes Hugging Face
safetensors files. numtorch keeps the settings; reading such a checkpoint raises
NotImplementedError (numtorch's checkpoints use torch's own format, ``filesystem.py``)."""

__all__ = ["HuggingFaceStorageReader", "HuggingFaceStorageWriter"]


class HuggingFaceStorageWriter:
    """Settings of a safetensors checkpoint written under ``path``."""

    def __init__(self, path, fqn_to_index_mapping=None, thread_count=1, save_distributed=False,
                 enable_consolidation=False, thread_count_consolidation=1):
        self.path = str(path)
        self.fqn_to_index_mapping = fqn_to_index_mapping
        self.thread_count = thread_count
        self.save_distributed = save_distributed
        self.enable_consolidation = enable_consolidation


class HuggingFaceStorageReader:
    """Settings of a safetensors checkpoint read from ``path``."""

    def __init__(self, path, thread_count=1):
        self.path = str(path)
        self.thread_count = thread_count

    def read_metadata(self):
        raise NotImplementedError(
            "numtorch's torch.distributed.checkpoint reads and writes torch's own format "
            "(FileSystemReader/FileSystemWriter), not Hugging Face safetensors checkpoints")
