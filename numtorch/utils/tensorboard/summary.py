"""Builders of ``Summary`` protobufs, one per kind of data TensorBoard shows.

Each function returns a ``tensorboard.compat.proto.summary_pb2.Summary`` laid out as the
TensorBoard plugins read it (scalars, histograms, images, audio, text, PR curves, hparams).
"""

import io
import math
import wave

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

from ._convert import encode_png, make_np, to_hwc, to_uint8

__all__ = [
    "audio",
    "custom_scalars",
    "histogram",
    "histogram_raw",
    "hparams",
    "image",
    "image_boxes",
    "mesh",
    "pr_curve",
    "pr_curve_raw",
    "scalar",
    "tensor_proto",
    "text",
    "video",
]


def _plugin(name, content=b""):
    return SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name=name,
                                                                  content=content))


def _shape(shape):
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=int(s)) for s in shape])


def scalar(name, value, new_style=False, double_precision=False):
    """A scalar: ``simple_value`` (classic) or a 0-d tensor with the scalars plugin."""
    arr = make_np(value)
    if arr.squeeze().ndim != 0:
        raise AssertionError(f"Tensor should contain one element (0 dimensions). Was given "
                             f"size: {arr.size} and {arr.ndim} dimensions.")
    value = float(arr.reshape(()))
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=value)])
    if double_precision:
        t = TensorProto(double_val=[value], dtype="DT_DOUBLE")
    else:
        t = TensorProto(float_val=[value], dtype="DT_FLOAT")
    return Summary(value=[Summary.Value(tag=name, tensor=t, metadata=_plugin("scalars"))])


def tensor_proto(name, values):
    """A float tensor of any shape, shown by the tensor plugin."""
    arr = make_np(values)
    t = TensorProto(float_val=arr.reshape(-1).astype(float).tolist(), dtype="DT_FLOAT",
                    tensor_shape=_shape(arr.shape))
    return Summary(value=[Summary.Value(tag=name, tensor=t, metadata=_plugin("tensor"))])


def default_bins():
    """TensorBoard's classic bucket edges: +-1e-12 growing by 10% to 1e20, and 0."""
    pos = []
    v = 1e-12
    while v < 1e20:  # repeated products, not powers: the edges must match bit for bit
        pos.append(v)
        v *= 1.1
    return [-v for v in reversed(pos)] + [0] + pos


def histogram_raw(name, min, max, num, sum, sum_squares, bucket_limits, bucket_counts):
    """A histogram from precomputed statistics and buckets."""
    hist = HistogramProto(min=min, max=max, num=num, sum=sum, sum_squares=sum_squares,
                          bucket_limit=bucket_limits, bucket=bucket_counts)
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def histogram(name, values, bins, max_bins=None):
    """A histogram of ``values`` over ``bins`` (edges, a count or a NumPy estimator), trimmed
    to the span of non-empty buckets; ``max_bins`` merges neighbouring buckets."""
    values = make_np(values).astype(float).reshape(-1)
    if values.size == 0:
        raise ValueError("The input has no element.")
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and counts.size > max_bins:
        group = counts.size // max_bins
        pad = (-counts.size) % group
        counts = np.pad(counts, (0, pad)).reshape(-1, group).sum(axis=1)
        limits = np.append(limits[:-1:group], limits[-1])
    nonzero = np.flatnonzero(counts)
    first, last = nonzero[0], nonzero[-1] + 1
    # bucket i holds the values in (limit[i-1], limit[i]]: a leading empty bucket opens the run
    counts = np.concatenate([[0], counts[first:last]])
    limits = limits[first:last + 1]
    return histogram_raw(name, values.min(), values.max(), float(values.size),
                         float(values.sum()), float(values.dot(values)), limits.tolist(),
                         counts.astype(float).tolist())


def image(tag, tensor, dataformats="CHW"):
    """A PNG image from an array in ``dataformats`` (floats in [0, 1] or uint8)."""
    hwc = to_uint8(to_hwc(make_np(tensor), dataformats))
    h, w, c = hwc.shape
    img = Summary.Image(height=h, width=w, colorspace=c, encoded_image_string=encode_png(hwc))
    return Summary(value=[Summary.Value(tag=tag, image=img)])


def image_boxes(tag, tensor, boxes, dataformats="CHW", labels=None, rescale=1):
    """A PNG image with boxes drawn on it: ``boxes`` (N, 4) as (xmin, ymin, xmax, ymax) in
    pixels, outlined in red two pixels wide, each with its optional label on a red patch at
    its lower left corner. The picture is then scaled by ``rescale`` (Lanczos); the recorded
    height and width stay the unscaled ones, as torch records them."""
    from PIL import Image, ImageDraw, ImageFont

    hwc = to_uint8(to_hwc(make_np(tensor), dataformats))
    boxes = make_np(boxes).reshape(-1, 4)
    if isinstance(labels, str):
        labels = [labels]
    if labels is not None and len(labels) != boxes.shape[0]:
        labels = None  # torch draws no labels then, silently
    h, w, c = hwc.shape
    pic = Image.fromarray(hwc)
    draw = ImageDraw.Draw(pic)
    font = ImageFont.load_default()
    for i, (x0, y0, x1, y1) in enumerate(boxes.tolist()):
        draw.line([(x0, y0), (x0, y1), (x1, y1), (x1, y0), (x0, y0)], width=2, fill="red")
        if labels is not None and labels[i] is not None:
            # the label's patch, anchored at the box's lower left corner, is as wide as the
            # text and a margin (5% of the text's height) taller on each side
            left, top, right, bottom = font.getbbox(labels[i])
            tw, th = right - left, bottom - top
            margin = math.ceil(0.05 * th)
            draw.rectangle([(x0, y1 - th - 2 * margin), (x0 + tw, y1)], fill="red")
            draw.text((x0 + margin, y1 - th - margin), labels[i], fill="black", font=font)
    if rescale != 1:
        pic = pic.resize((int(w * rescale), int(h * rescale)), Image.Resampling.LANCZOS)
    img = Summary.Image(height=h, width=w, colorspace=c,
                        encoded_image_string=encode_png(np.asarray(pic)))
    return Summary(value=[Summary.Value(tag=tag, image=img)])


def mesh(tag, vertices, colors=None, faces=None, config_dict=None):
    """A 3-D mesh or point cloud for the mesh plugin: one tensor value per part given
    (``<tag>_VERTEX``, ``<tag>_FACE``, ``<tag>_COLOR``, in that order), each (B, N, 3)."""
    import json

    from tensorboard.plugins.mesh import metadata as mesh_meta
    from tensorboard.plugins.mesh.plugin_data_pb2 import MeshPluginData

    kinds = MeshPluginData.ContentType
    parts = [(kinds.VERTEX, vertices), (kinds.FACE, faces), (kinds.COLOR, colors)]
    parts = [(k, make_np(v)) for k, v in parts if v is not None]
    bitmask = mesh_meta.get_components_bitmask([k for k, _ in parts])
    config = json.dumps(config_dict if config_dict is not None else {})
    values = []
    for kind, arr in parts:
        meta = mesh_meta.create_summary_metadata(tag, None, kind, bitmask, arr.shape,
                                                 json_config=config)
        t = TensorProto(float_val=arr.reshape(-1).astype(float).tolist(), dtype="DT_FLOAT",
                        tensor_shape=_shape(arr.shape))
        values.append(Summary.Value(tag=mesh_meta.get_instance_name(tag, kind), tensor=t,
                                    metadata=meta))
    return Summary(value=values)


def video(tag, tensor, fps=4):
    """An animated GIF from an (N, T, C, H, W) array: the N clips side by side in a grid."""
    from PIL import Image

    vid = make_np(tensor)
    if vid.ndim != 5:
        raise AssertionError("video should be 5D (N, T, C, H, W)")
    frames = [to_uint8(to_hwc(vid[:, t], "NCHW")) for t in range(vid.shape[1])]
    h, w, c = frames[0].shape
    pics = [Image.fromarray(f[..., :3]) for f in frames]
    buf = io.BytesIO()
    pics[0].save(buf, format="GIF", save_all=True, append_images=pics[1:],
                 duration=round(1000 / fps), loop=0)
    img = Summary.Image(height=h, width=w, colorspace=c, encoded_image_string=buf.getvalue())
    return Summary(value=[Summary.Value(tag=tag, image=img)])


def audio(tag, tensor, sample_rate=44100):
    """A mono 16-bit WAV clip from samples in [-1, 1] (clipped)."""
    samples = make_np(tensor).squeeze()
    if samples.ndim != 1:
        raise AssertionError("input tensor should be 1 dimensional.")
    pcm = (np.clip(samples, -1, 1) * np.iinfo(np.int16).max).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(sample_rate)
        f.writeframes(pcm.tobytes())
    snd = Summary.Audio(sample_rate=sample_rate, num_channels=1, length_frames=pcm.shape[-1],
                        encoded_audio_string=buf.getvalue(), content_type="audio/wav")
    return Summary(value=[Summary.Value(tag=tag, audio=snd)])


def text(tag, text):
    """Markdown text for the text plugin (tag gets the ``/text_summary`` suffix)."""
    t = TensorProto(dtype="DT_STRING", string_val=[text.encode("utf_8")],
                    tensor_shape=_shape([1]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", tensor=t,
                                        metadata=_plugin("text"))])


def _pr_summary(tag, data, num_thresholds):
    from tensorboard.plugins.pr_curve.plugin_data_pb2 import PrCurvePluginData

    content = PrCurvePluginData(version=0, num_thresholds=num_thresholds).SerializeToString()
    t = TensorProto(dtype="DT_FLOAT", float_val=data.reshape(-1).tolist(),
                    tensor_shape=_shape(data.shape))
    return Summary(value=[Summary.Value(tag=tag, tensor=t,
                                        metadata=_plugin("pr_curves", content))])


def pr_curve(tag, labels, predictions, num_thresholds=127, weights=None):
    """Precision/recall at ``num_thresholds`` evenly spaced thresholds in [0, 1]: a (6, T)
    tensor of TP, FP, TN, FN, precision and recall."""
    labels = make_np(labels).astype(np.float64).reshape(-1)
    predictions = make_np(predictions).astype(np.float64).reshape(-1)
    num_thresholds = min(num_thresholds, 127)
    w = 1.0 if weights is None else make_np(weights).astype(np.float64).reshape(-1)
    bucket = np.floor(predictions * (num_thresholds - 1)).astype(np.int64)
    keep = (bucket >= 0) & (bucket < num_thresholds)  # predictions outside [0, 1] drop out
    w = np.broadcast_to(w, labels.shape)
    pos = np.bincount(bucket[keep], weights=(labels * w)[keep], minlength=num_thresholds)
    neg = np.bincount(bucket[keep], weights=((1.0 - labels) * w)[keep],
                      minlength=num_thresholds)
    tp = np.cumsum(pos[::-1])[::-1]  # predictions at or above each threshold
    fp = np.cumsum(neg[::-1])[::-1]
    tn = fp[0] - fp
    fn = tp[0] - tp
    precision = tp / np.maximum(1e-7, tp + fp)
    recall = tp / np.maximum(1e-7, tp + fn)
    return _pr_summary(tag, np.stack([tp, fp, tn, fn, precision, recall]), num_thresholds)


def pr_curve_raw(tag, tp, fp, tn, fn, precision, recall, num_thresholds=127):
    """A PR curve from precomputed counts (each of length ``num_thresholds``)."""
    num_thresholds = min(num_thresholds, 127)
    data = np.stack([make_np(a).astype(np.float64).reshape(-1)
                     for a in (tp, fp, tn, fn, precision, recall)])
    return _pr_summary(tag, data, num_thresholds)


def hparams(hparam_dict, metric_dict, hparam_domain_discrete=None):
    """The three hparams-plugin summaries (experiment, session start, session end) for one
    run with hyperparameters ``hparam_dict`` and the metric tags of ``metric_dict``."""
    from google.protobuf import struct_pb2
    from tensorboard.plugins.hparams import api_pb2, plugin_data_pb2

    from ..._tensor import Tensor

    if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
        raise TypeError("hparam_dict and metric_dict should be dictionary.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, "
                        f"{domains} is a {type(domains)}")
    for k, vals in domains.items():
        if k not in hparam_dict or not isinstance(vals, list) or \
                not all(isinstance(v, type(hparam_dict[k])) for v in vals):
            raise TypeError(f"parameter: hparam_domain_discrete[{k}] should be a list of same "
                            f"type as hparam_dict[{k}].")
    start = plugin_data_pb2.SessionStartInfo()
    infos = []
    for k, v in hparam_dict.items():
        if v is None:
            continue
        info = api_pb2.HParamInfo(name=k)
        if isinstance(v, (int, float)):  # bool included, as a number
            start.hparams[k].number_value = v
            info.type = api_pb2.DATA_TYPE_FLOAT64
            kind = "number_value"
        elif isinstance(v, str):
            start.hparams[k].string_value = v
            info.type = api_pb2.DATA_TYPE_STRING
            kind = "string_value"
        elif isinstance(v, Tensor):
            start.hparams[k].number_value = make_np(v).reshape(-1)[0]
            info.type = api_pb2.DATA_TYPE_FLOAT64
            kind = "number_value"
        else:
            raise ValueError(  # noqa: TRY004  (torch raises ValueError here)
                "value should be one of int, float, str, bool, or torch.Tensor")
        if k in domains:
            info.domain_discrete.CopyFrom(struct_pb2.ListValue(
                values=[struct_pb2.Value(**{kind: d}) for d in domains[k]]))
        infos.append(info)
    experiment = api_pb2.Experiment(hparam_infos=infos, metric_infos=[
        api_pb2.MetricInfo(name=api_pb2.MetricName(tag=k)) for k in metric_dict])
    end = plugin_data_pb2.SessionEndInfo(status=api_pb2.STATUS_SUCCESS)

    def wrap(tag, **field):
        content = plugin_data_pb2.HParamsPluginData(version=0, **field).SerializeToString()
        return Summary(value=[Summary.Value(tag=tag, metadata=_plugin("hparams", content))])

    return (wrap("_hparams_/experiment", experiment=experiment),
            wrap("_hparams_/session_start_info", session_start_info=start),
            wrap("_hparams_/session_end_info", session_end_info=end))


def custom_scalars(layout):
    """The custom-scalars dashboard layout: ``{category: {chart: [kind, [tags]]}}`` with kind
    "Multiline" or "Margin" (tags: value, lower, upper)."""
    from tensorboard.plugins.custom_scalar import layout_pb2

    categories = []
    for title, charts in layout.items():
        chart_list = []
        for chart_name, (kind, tags) in charts.items():
            if kind == "Multiline":
                chart = layout_pb2.Chart(title=chart_name, multiline=layout_pb2.MultilineChartContent(
                    tag=tags))
            else:
                series = layout_pb2.MarginChartContent.Series(value=tags[0], lower=tags[1],
                                                              upper=tags[2])
                chart = layout_pb2.Chart(title=chart_name, margin=layout_pb2.MarginChartContent(
                    series=[series]))
            chart_list.append(chart)
        categories.append(layout_pb2.Category(title=title, chart=chart_list))
    data = layout_pb2.Layout(category=categories).SerializeToString()
    t = TensorProto(dtype="DT_STRING", string_val=[data], tensor_shape=TensorShapeProto())
    return Summary(value=[Summary.Value(tag="custom_scalars__config__", tensor=t,
                                        metadata=_plugin("custom_scalars"))])
