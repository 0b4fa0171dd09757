"""``SummaryWriter``: log scalars, images, histograms, graphs and more for TensorBoard."""

import os
import socket
import time
from datetime import datetime

from tensorboard.compat.proto.event_pb2 import Event, SessionLog

from . import summary as _s
from ._convert import figure_to_chw, make_np
from ._record import EventFileWriter

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """Writes ``Event`` protobufs to one event file in ``log_dir`` (through a background
    thread; see :class:`SummaryWriter` for the arguments)."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs,
                                            filename_suffix)

    def get_logdir(self):
        """The directory the event file is in."""
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None):
        """Write ``event``, stamping its wall time (now unless given) and ``step``."""
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None):
        """Write a ``Summary`` protobuf as one event."""
        self.add_event(Event(summary=summary), global_step, walltime)

    def add_graph(self, graph_profile, walltime=None):
        """Write a (GraphDef, RunMetadata) pair: the graph and its "step1" run metadata."""
        from tensorboard.compat.proto.event_pb2 import TaggedRunMetadata

        graph_def, run_metadata = graph_profile
        self.add_event(Event(graph_def=graph_def.SerializeToString()), None, walltime)
        tagged = TaggedRunMetadata(tag="step1", run_metadata=run_metadata.SerializeToString())
        self.add_event(Event(tagged_run_metadata=tagged), None, walltime)

    def flush(self):
        """Write everything queued to the disk."""
        self.event_writer.flush()

    def close(self):
        """Flush and close the event file."""
        self.event_writer.close()


class SummaryWriter:
    """Writes TensorBoard event files from a training program.

    Args:
        log_dir: directory of the event files; by default ``runs/<Mon>DD_HH-MM-SS_<host>``
            followed by ``comment``.
        comment: suffix of the default ``log_dir`` (ignored when ``log_dir`` is given).
        purge_step: on resuming after a crash, TensorBoard hides events of this file's run
            whose step is at least ``purge_step`` (a ``SessionLog.START`` event is written).
        max_queue: events held in memory before ``add_*`` waits for the writer thread.
        flush_secs: how often (seconds) the writer thread flushes the file.
        filename_suffix: appended to every event file's name.

    Each ``add_*`` call is one event with the ``global_step`` (optional) and the wall time
    ``walltime`` (``time.time()`` unless given). Writing happens on a background thread; call
    :meth:`flush` to make everything visible, and :meth:`close` (or use ``with``) at the end.
    Needs the ``tensorboard`` package (``pip install "numtorch[tensorboard]"``).
    """

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10,
                 flush_secs=120, filename_suffix=""):
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", stamp + "_" + socket.gethostname() + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = self.all_writers = None
        self._get_file_writer()
        self.default_bins = _s.default_bins()

    def _get_file_writer(self):
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs,
                                          self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                step = self.purge_step
                self.file_writer.add_event(Event(step=step, file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=step, session_log=SessionLog(
                    status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self):
        """The directory this writer's event file is in."""
        return self.log_dir

    def _add(self, summary, global_step, walltime):
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        """Log one number (a float, a one-element tensor or array) under ``tag``."""
        self._add(_s.scalar(tag, scalar_value, new_style, double_precision), global_step,
                  walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Log several numbers on one chart: each ``{tag: value}`` entry goes to its own run
        directory ``<log_dir>/<main_tag>_<tag>``, all under the tag ``main_tag``."""
        walltime = time.time() if walltime is None else walltime
        base = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            path = os.path.join(base, main_tag.replace("/", "_") + "_" + tag)
            writer = self.all_writers.get(path)
            if writer is None:
                writer = self.all_writers[path] = FileWriter(
                    path, self.max_queue, self.flush_secs, self.filename_suffix)
            writer.add_summary(_s.scalar(main_tag, value), global_step, walltime)

    def add_tensor(self, tag, tensor, global_step=None, walltime=None):
        """Log a whole float tensor (the tensor plugin shows it)."""
        self._add(_s.tensor_proto(tag, tensor), global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None):
        """Log the distribution of ``values``; ``bins`` is TensorBoard's own exponential
        edges ("tensorflow"), a bin count, edges, or a NumPy estimator name ("auto", "fd")."""
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._add(_s.histogram(tag, values, bins, max_bins), global_step, walltime)

    def add_histogram_raw(self, tag, min, max, num, sum, sum_squares, bucket_limits,
                          bucket_counts, global_step=None, walltime=None):
        """Log a histogram from statistics and buckets computed elsewhere."""
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        self._add(_s.histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits,
                                   bucket_counts), global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        """Log an image: floats in [0, 1] or uint8, laid out as ``dataformats`` ("CHW",
        "HWC", "HW"); one channel shows as grey."""
        self._add(_s.image(tag, img_tensor, dataformats), global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None,
                   dataformats="NCHW"):
        """Log a batch of images tiled into one grid (eight per row)."""
        self._add(_s.image(tag, img_tensor, dataformats), global_step, walltime)

    def add_image_with_boxes(self, tag, img_tensor, box_tensor, global_step=None,
                             walltime=None, rescale=1, dataformats="CHW", labels=None):
        """Log an image with boxes drawn on it: ``box_tensor`` (N, 4) holds (xmin, ymin,
        xmax, ymax) in pixels; ``labels`` (one string per box) are written at the boxes'
        lower left corners; ``rescale`` scales the picture after drawing."""
        self._add(_s.image_boxes(tag, img_tensor, box_tensor, dataformats, labels, rescale),
                  global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """Log a matplotlib figure (or a list of them, as a grid) rendered to an image."""
        if isinstance(figure, list):
            import numpy as np

            batch = np.stack([figure_to_chw(f, close) for f in figure])
            self.add_image(tag, batch, global_step, walltime, dataformats="NCHW")
        else:
            self.add_image(tag, figure_to_chw(figure, close), global_step, walltime,
                           dataformats="CHW")

    def add_video(self, tag, vid_tensor, global_step=None, fps=4, walltime=None):
        """Log a clip (N, T, C, H, W) as an animated GIF (clips tiled side by side)."""
        self._add(_s.video(tag, vid_tensor, fps), global_step, walltime)

    def add_audio(self, tag, snd_tensor, global_step=None, sample_rate=44100, walltime=None):
        """Log a mono sound clip (samples in [-1, 1]) as 16-bit WAV."""
        self._add(_s.audio(tag, snd_tensor, sample_rate), global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """Log text (rendered as Markdown) under ``<tag>/text_summary``."""
        self._add(_s.text(tag, text_string), global_step, walltime)

    def add_pr_curve(self, tag, labels, predictions, global_step=None, num_thresholds=127,
                     weights=None, walltime=None):
        """Log a precision-recall curve of binary ``labels`` against scores in [0, 1]."""
        labels, predictions = make_np(labels), make_np(predictions)
        self._add(_s.pr_curve(tag, labels, predictions, num_thresholds, weights),
                  global_step, walltime)

    def add_pr_curve_raw(self, tag, true_positive_counts, false_positive_counts,
                         true_negative_counts, false_negative_counts, precision, recall,
                         global_step=None, num_thresholds=127, weights=None, walltime=None):
        """Log a precision-recall curve from precomputed counts."""
        self._add(_s.pr_curve_raw(tag, true_positive_counts, false_positive_counts,
                                  true_negative_counts, false_negative_counts, precision,
                                  recall, num_thresholds), global_step, walltime)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None,
                    run_name=None, global_step=None):
        """Log one run's hyperparameters with its final metrics, for the HPARAMS tab; they go
        to a sub-run ``<log_dir>/<run_name>`` (a timestamp by default)."""
        exp, start, end = _s.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        run_name = run_name or str(time.time())
        path = os.path.join(self._get_file_writer().get_logdir(), run_name)
        with SummaryWriter(log_dir=path) as w:
            for summ in (exp, start, end):
                w.file_writer.add_summary(summ, global_step)
            for k, v in metric_dict.items():
                w.add_scalar(k, v, global_step)

    def add_custom_scalars(self, layout):
        """Describe the custom-scalars dashboard (see :func:`summary.custom_scalars`)."""
        self._add(_s.custom_scalars(layout), None, None)

    def add_custom_scalars_multilinechart(self, tags, category="default", title="untitled"):
        """A custom-scalars chart drawing the scalars ``tags`` together as lines."""
        self.add_custom_scalars({category: {title: ["Multiline", tags]}})

    def add_custom_scalars_marginchart(self, tags, category="default", title="untitled"):
        """A custom-scalars chart of one value with a band: ``tags`` is (value, lower,
        upper)."""
        if len(tags) != 3:
            raise AssertionError(f"Expected 3 tags, got {len(tags)}.")
        self.add_custom_scalars({category: {title: ["Margin", tags]}})

    def add_mesh(self, tag, vertices, colors=None, faces=None, config_dict=None,
                 global_step=None, walltime=None):
        """Log a 3-D mesh or point cloud: ``vertices`` (B, N, 3) coordinates, optional
        ``colors`` (B, N, 3) in 0..255 and ``faces`` (B, F, 3) vertex indices;
        ``config_dict`` (camera, material, lights) goes to the viewer as JSON."""
        self._add(_s.mesh(tag, vertices, colors, faces, config_dict), global_step, walltime)

    def add_embedding(self, mat, metadata=None, label_img=None, global_step=None,
                      tag="default", metadata_header=None):
        """Write an embedding for the projector: ``mat`` (N, D), optional per-row labels
        ``metadata`` and thumbnails ``label_img`` (N, C, H, W)."""
        from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig

        from ._embedding import write_config, write_embedding

        logdir = self._get_file_writer().get_logdir()
        info = write_embedding(logdir, mat, metadata, label_img, global_step, tag,
                               metadata_header)
        if getattr(self, "_projector_config", None) is None:
            self._projector_config = ProjectorConfig()
        self._projector_config.embeddings.append(info)
        write_config(logdir, self._projector_config)

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        """Trace one forward call of ``model`` on ``input_to_model`` and log its op graph,
        grouped by submodule, for the GRAPHS tab."""
        from ._graph import graph

        self._get_file_writer().add_graph(graph(model, input_to_model, verbose))

    def add_onnx_graph(self, prototxt):
        """Log the graph of the ONNX model file ``prototxt`` for the GRAPHS tab: its inputs
        and outputs as ``Variable`` nodes (shape, element type), each operator under its
        first output's name with its attributes as text. The node names are printed as
        they are added, as torch does."""
        import onnx
        from tensorboard.compat.proto.attr_value_pb2 import AttrValue
        from tensorboard.compat.proto.graph_pb2 import GraphDef
        from tensorboard.compat.proto.node_def_pb2 import NodeDef
        from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
        from tensorboard.compat.proto.versions_pb2 import VersionDef

        model = onnx.load(prototxt)
        nodes = []
        for value in [*model.graph.input, *model.graph.output]:
            ttype = value.type.tensor_type
            shape = TensorShapeProto(dim=[TensorShapeProto.Dim(size=d.dim_value)
                                          for d in ttype.shape.dim])
            nodes.append(NodeDef(name=value.name, op="Variable",
                                 attr={"shape": AttrValue(shape=shape),
                                       "dtype": AttrValue(type=ttype.elem_type)}))
        for node in model.graph.node:
            params = ", ".join(f"{a.name} = {onnx.helper.get_attribute_value(a)} = {a.type}"
                               for a in node.attribute)
            nodes.append(NodeDef(name=node.output[0], op=node.op_type, input=list(node.input),
                                 attr={"parameters": AttrValue(s=params.encode())}))
        for n in nodes:
            print(n.name)
        graph = GraphDef(node=nodes, versions=VersionDef(producer=22))
        self._get_file_writer().add_event(Event(graph_def=graph.SerializeToString()))

    def flush(self):
        """Write every pending event of every run to the disk."""
        for w in (self.all_writers or {}).values():
            w.flush()

    def close(self):
        """Flush and close every event file; a later ``add_*`` opens a new file."""
        for w in (self.all_writers or {}).values():
            w.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()
