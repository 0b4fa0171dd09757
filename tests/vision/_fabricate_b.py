"""Small dense-prediction / detection / flow / stereo datasets in their real on-disk layouts
(test_datasets_b*.py): images, VOC XML, SBD .mat, Cityscapes json, .flo, .pfm and 16-bit
PNG files, written independently of numtorchvision's readers."""

import json
import os
import struct
import zlib

import numpy as np
from PIL import Image

_RNG = np.random.default_rng(1234)


def rng():
    return _RNG


def image(path, h=12, w=16, mode="RGB", ext=None):
    """A random image file at ``path`` (its format from the extension)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    bands = {"RGB": 3, "L": 1, "P": 1, "RGBA": 4}[mode]
    arr = _RNG.integers(0, 256, size=(h, w, bands), dtype=np.uint8)
    if mode == "P":
        img = Image.fromarray(arr[..., 0] % 21, "L").convert("P")
        img.putpalette(list(_RNG.integers(0, 256, size=768, dtype=np.uint8)))
    else:
        img = Image.fromarray(arr[..., 0] if bands == 1 else arr, "L" if mode == "P" else mode)
    img.save(path)
    return path


def gray16(path, arr):
    """A 16-bit grayscale PNG of ``arr`` (uint16)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Image.fromarray(arr.astype(np.uint16)).save(path)
    return path


def text(path, content):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(content)
    return path


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def png16_rgb(path, arr, filters=(0, 1, 2, 3, 4)):
    """A 16-bit RGB PNG of ``arr`` (H, W, 3 uint16), written by hand (Pillow cannot), with
    the rows' filter types cycling through ``filters`` so a reader must undo all five."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    h, w, _ = arr.shape
    rows = [arr[i].astype(">u2").tobytes() for i in range(h)]
    bpp, out, prev = 6, [], bytes(6 * w)
    for i, row in enumerate(rows):
        kind = filters[i % len(filters)]
        enc = bytearray(len(row))
        for j, x in enumerate(row):
            a = row[j - bpp] if j >= bpp else 0
            b = prev[j]
            c = prev[j - bpp] if j >= bpp else 0
            pred = (0, a, b, (a + b) // 2, _paeth(a, b, c))[kind]
            enc[j] = (x - pred) % 256
        out.append(bytes([kind]) + bytes(enc))
        prev = row

    def chunk(tag, data):
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(b"".join(out))) + chunk(b"IEND", b""))
    return path


def read_png16_rgb(path):
    """Reference reader for :func:`png16_rgb` files (any filters): (H, W, 3) uint16."""
    with open(path, "rb") as f:
        return _decode(f.read())


def _decode(data):
    pos, idat, w, h = 8, b"", 0, 0
    while pos < len(data):
        n, tag = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if tag == b"IHDR":
            w, h = struct.unpack(">II", body[:8])
        elif tag == b"IDAT":
            idat += body
        pos += 12 + n
    raw, bpp, stride = zlib.decompress(idat), 6, 6 * w
    prev, rows = bytearray(stride), []
    for i in range(h):
        kind, line = raw[i * (stride + 1)], bytearray(raw[i * (stride + 1) + 1:(i + 1) * (stride + 1)])
        for j in range(stride):
            a = line[j - bpp] if j >= bpp else 0
            b = prev[j]
            c = prev[j - bpp] if j >= bpp else 0
            pred = (0, a, b, (a + b) // 2, _paeth(a, b, c))[kind]
            line[j] = (line[j] + pred) % 256
        rows.append(bytes(line))
        prev = line
    return np.frombuffer(b"".join(rows), ">u2").reshape(h, w, 3).astype(np.uint16)


def flo(path, flow):
    """A Middlebury .flo file of ``flow`` (2, H, W)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    _, h, w = flow.shape
    with open(path, "wb") as f:
        f.write(b"PIEH" + struct.pack("<ii", w, h)
                + np.ascontiguousarray(flow.transpose(1, 2, 0), "<f4").tobytes())
    return path


def pfm(path, arr, little=True):
    """A PFM file of ``arr`` ((H, W) grayscale or (H, W, 3) colour), rows stored bottom-up."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    h, w = arr.shape[:2]
    kind = b"PF" if arr.ndim == 3 else b"Pf"
    scale = -1.0 if little else 1.0
    body = np.ascontiguousarray(arr[::-1], "<f4" if little else ">f4").tobytes()
    with open(path, "wb") as f:
        f.write(kind + b"\n" + f"{w} {h}\n".encode() + f"{scale}\n".encode() + body)
    return path


def voc_xml(path, name, objects, size=(16, 12)):
    objs = "".join(
        f"<object><name>{o}</name><pose>Unspecified</pose><truncated>0</truncated>"
        f"<difficult>{k % 2}</difficult><bndbox><xmin>{1 + k}</xmin><ymin>2</ymin>"
        f"<xmax>{9 + k}</xmax><ymax>10</ymax></bndbox><part><name>hand</name></part>"
        f"<part><name>head</name></part></object>" for k, o in enumerate(objects))
    return text(path, f"<annotation>\n  <folder>VOC2012</folder><filename>{name}.jpg</filename>"
                      f"<source><database>The VOC Database</database><empty/></source>"
                      f"<size><width>{size[0]}</width><height>{size[1]}</height><depth>3"
                      f"</depth></size><segmented> </segmented>{objs}</annotation>")


def voc_tree(root, base_dir="VOCdevkit/VOC2012", ids=("2008_000001", "2008_000002",
                                                        "2008_000003")):
    voc = os.path.join(root, base_dir)
    for k, i in enumerate(ids):
        image(os.path.join(voc, "JPEGImages", i + ".jpg"), h=10 + k, w=14)
        image(os.path.join(voc, "SegmentationClass", i + ".png"), h=10 + k, w=14, mode="P")
        voc_xml(os.path.join(voc, "Annotations", i + ".xml"), i,
                [["dog"], [], ["cat", "person", "car"]][k % 3])
    for sub in ("Main", "Segmentation"):
        for split, part in (("train", ids[:2]), ("val", ids[2:]), ("trainval", ids),
                            ("test", ids[1:])):
            text(os.path.join(voc, "ImageSets", sub, split + ".txt"), "\n".join(part) + "\n")
    return voc


def sbd_tree(root, ids=("2008_000002", "2008_000003", "2008_000007")):
    from scipy.io import savemat
    from scipy.sparse import csc_matrix

    for k, i in enumerate(ids):
        h, w = 9 + k, 13
        image(os.path.join(root, "img", i + ".jpg"), h=h, w=w)
        seg = _RNG.integers(0, 21, size=(h, w)).astype(np.uint8)
        cells = np.empty((20, 1), dtype=object)
        for c in range(20):
            cells[c, 0] = csc_matrix((_RNG.random((h, w)) > 0.8).astype(np.uint8))
        gt = {"Segmentation": seg, "Boundaries": cells,
              "CategoriesPresent": np.unique(seg)[None].astype(np.uint8)}
        os.makedirs(os.path.join(root, "cls"), exist_ok=True)
        savemat(os.path.join(root, "cls", i + ".mat"), {"GTcls": gt})
    text(os.path.join(root, "train.txt"), "\n".join(ids[:2]) + "\n")
    text(os.path.join(root, "val.txt"), ids[2] + "\n")
    text(os.path.join(root, "train_noval.txt"), ids[0] + "\n")


def cityscapes_tree(root, cities=("aachen", "bochum")):
    splits = {"gtFine": ("train", "val", "test"), "gtCoarse": ("train", "train_extra", "val")}
    for mode, names in splits.items():
        for split in names:
            for c, city in enumerate(cities):
                for n in range(2):
                    stem = f"{city}_{c:06d}_{n:06d}"
                    img = os.path.join(root, "leftImg8bit", split, city,
                                       stem + "_leftImg8bit.png")
                    if not os.path.exists(img):
                        image(img, h=8, w=10)
                    tdir = os.path.join(root, mode, split, city)
                    image(os.path.join(tdir, f"{stem}_{mode}_color.png"), h=8, w=10,
                          mode="RGBA")
                    gray16(os.path.join(tdir, f"{stem}_{mode}_instanceIds.png"),
                           _RNG.integers(0, 30000, size=(8, 10)))
                    image(os.path.join(tdir, f"{stem}_{mode}_labelIds.png"), h=8, w=10, mode="L")
                    text(os.path.join(tdir, f"{stem}_{mode}_polygons.json"), json.dumps(
                        {"imgHeight": 8, "imgWidth": 10, "objects": [
                            {"label": "car", "polygon": [[1, 2], [3, 4], [5, 1]]}]}))


def widerface_tree(root):
    base = os.path.join(root, "widerface")
    files = {"train": ["0--Parade/0_Parade_marchingband_1_5.jpg", "1--Handshaking/1_h_1.jpg",
                       "1--Handshaking/1_h_2.jpg"],
             "val": ["0--Parade/0_Parade_a_1.jpg", "2--Demo/2_d_9.jpg"],
             "test": ["0--Parade/0_Parade_t_1.jpg", "9--Press/9_p_3.jpg"]}
    for split, names in files.items():
        for k, name in enumerate(names):
            image(os.path.join(base, f"WIDER_{split}", "images", name), h=10 + k, w=12,
                  mode="L" if k == 1 else "RGB")
    for split in ("train", "val"):
        lines = []
        for k, name in enumerate(files[split]):
            n = [2, 0, 3][k]
            lines += [name, str(n)]
            rows = [[int(v) for v in _RNG.integers(0, 9, size=10)] for _ in range(max(n, 1))]
            if n == 0:
                rows = [[0] * 10]
            lines += [" ".join(map(str, r)) + " " for r in rows]
        text(os.path.join(base, "wider_face_split", f"wider_face_{split}_bbx_gt.txt"),
             "\n".join(lines) + "\n")
    text(os.path.join(base, "wider_face_split", "wider_face_test_filelist.txt"),
         "\n".join(files["test"]) + "\n")
    return base


def kitti_tree(root, folder="Kitti"):
    raw = os.path.join(root, folder, "raw")
    for loc, n in (("training", 3), ("testing", 2)):
        for k in range(n):
            image(os.path.join(raw, loc, "image_2", f"{k:06d}.png"), h=9, w=15)
            if loc == "training":
                rows = [f"{t} {0.5 * k:.2f} {k % 3} -1.57 {1 + k}.5 2.00 9.25 11.00 1.50 1.60 "
                        f"3.70 -2.1 1.5 {8 + k}.4 0.{k}1"
                        for t in ("Car", "Pedestrian")[:1 + k % 2]]
                text(os.path.join(raw, loc, "label_2", f"{k:06d}.txt"), "\n".join(rows) + "\n")
    return raw


def _flow(h, w):
    return (_RNG.standard_normal((2, h, w)) * 5).astype(np.float32)


def kitti_flow_png(path, h, w):
    """A KITTI flow PNG: (u, v) * 64 + 2**15 and a 0/1 valid channel."""
    flow = np.round(_RNG.standard_normal((h, w, 2)) * 40 * 64 + 2 ** 15).clip(0, 65535)
    valid = (_RNG.random((h, w, 1)) > 0.3)
    return png16_rgb(path, np.concatenate([flow, valid], axis=2).astype(np.uint16))


def sintel_tree(root):
    base = os.path.join(root, "Sintel")
    for split, folder in (("train", "training"), ("test", "test")):
        for scene, n in (("alley_1", 3), ("bamboo_2", 2)):
            for p in ("clean", "final"):
                for k in range(n):
                    image(os.path.join(base, folder, p, scene, f"frame_{k + 1:04d}.png"), 6, 8)
            if split == "train":
                for k in range(n - 1):
                    flo(os.path.join(base, folder, "flow", scene, f"frame_{k + 1:04d}.flo"),
                        _flow(6, 8))


def flyingchairs_tree(root, n=4):
    base = os.path.join(root, "FlyingChairs")
    for k in range(n):
        image(os.path.join(base, "data", f"{k + 1:05d}_img1.ppm"), 6, 8)
        image(os.path.join(base, "data", f"{k + 1:05d}_img2.ppm"), 6, 8)
        flo(os.path.join(base, "data", f"{k + 1:05d}_flow.flo"), _flow(6, 8))
    text(os.path.join(base, "FlyingChairs_train_val.txt"), "1\n2\n1\n1\n"[:2 * n])


def kittiflow_tree(root):
    for split in ("training", "testing"):
        base = os.path.join(root, "KittiFlow", split)
        for k in range(2):
            image(os.path.join(base, "image_2", f"{k:06d}_10.png"), 5, 7)
            image(os.path.join(base, "image_2", f"{k:06d}_11.png"), 5, 7)
            if split == "training":
                kitti_flow_png(os.path.join(base, "flow_occ", f"{k:06d}_10.png"), 5, 7)


def flyingthings_tree(root):
    base = os.path.join(root, "FlyingThings3D")
    for split in ("TRAIN", "TEST"):
        for letter, seq in (("A", "0000"), ("B", "0001")):
            for cam in ("left", "right"):
                for p in ("frames_cleanpass", "frames_finalpass"):
                    for k in range(3):
                        image(os.path.join(base, p, split, letter, seq, cam, f"{6 + k:04d}.png"),
                              5, 6)
                for direction in ("into_future", "into_past"):
                    for k in range(3):
                        f3 = np.concatenate([_flow(5, 6), np.zeros((1, 5, 6), np.float32)])
                        pfm(os.path.join(base, "optical_flow", split, letter, seq, direction,
                                         cam, f"OpticalFlowInto{direction[5:].title()}_"
                                              f"{6 + k:04d}_{cam[0].upper()}.pfm"),
                            f3.transpose(1, 2, 0), little=k % 2 == 0)


def hd1k_tree(root):
    base = os.path.join(root, "hd1k")
    for seq, n in ((0, 3), (1, 2), (35, 2)):
        for k in range(n):
            image(os.path.join(base, "hd1k_input", "image_2", f"{seq:06d}_{k:04d}.png"), 5, 6)
            kitti_flow_png(os.path.join(base, "hd1k_flow_gt", "flow_occ",
                                        f"{seq:06d}_{k:04d}.png"), 5, 6)
    for k in range(2):
        for f in (10, 11):
            image(os.path.join(base, "hd1k_challenge", "image_2", f"{k:06d}_{f}.png"), 5, 6)


def _disp(h, w, negate=False):
    d = (_RNG.random((h, w)) * 30 + 0.5).astype(np.float32)
    return -d if negate else d


def carla_tree(root):
    for k in range(2):
        scene = os.path.join(root, "carla-highres", "trainingF", f"scene{k}")
        image(os.path.join(scene, "im0.png"), 5, 7)
        image(os.path.join(scene, "im1.png"), 5, 7, mode="RGBA")
        pfm(os.path.join(scene, "disp0GT.pfm"), _disp(5, 7, negate=k == 1))
        pfm(os.path.join(scene, "disp1GT.pfm"), _disp(5, 7))


def kitti_stereo_tree(root):
    for split in ("training", "testing"):
        b12, b15 = os.path.join(root, "Kitti2012", split), os.path.join(root, "Kitti2015", split)
        for k in range(2):
            image(os.path.join(b12, "colored_0", f"{k:06d}_10.png"), 5, 7)
            image(os.path.join(b12, "colored_1", f"{k:06d}_10.png"), 5, 7, mode="L")
            image(os.path.join(b15, "image_2", f"{k:06d}_10.png"), 5, 7)
            image(os.path.join(b15, "image_3", f"{k:06d}_10.png"), 5, 7)
            if split == "training":
                levels = lambda: _RNG.integers(0, 30000, size=(5, 7))
                gray16(os.path.join(b12, "disp_noc", f"{k:06d}_10.png"), levels())
                gray16(os.path.join(b15, "disp_occ_0", f"{k:06d}_10.png"), levels())
                gray16(os.path.join(b15, "disp_occ_1", f"{k:06d}_10.png"), levels())


def middlebury_tree(root):
    base = os.path.join(root, "Middlebury2014")
    for split, scenes in (("train", ["Adirondack", "Piano"]), ("additional", ["Couch"])):
        for scene in scenes:
            for cal in ("perfect", "imperfect"):
                d = os.path.join(base, split, f"{scene}-{cal}")
                for name in ("im0.png", "im1.png", "im1E.png") + (("im1L.png",) if cal == "perfect" else ()):
                    image(os.path.join(d, name), 5, 7)
                disp = _disp(5, 7)
                disp[0, :3] = np.inf
                pfm(os.path.join(d, "disp0.pfm"), disp)
                pfm(os.path.join(d, "disp1.pfm"), _disp(5, 7))
    for scene in ("Plants", "Hoops"):
        d = os.path.join(base, "test", scene)
        image(os.path.join(d, "im0.png"), 5, 7)
        image(os.path.join(d, "im1.png"), 5, 7)


def eth3d_tree(root):
    base = os.path.join(root, "ETH3D")
    for k in range(2):
        for folder in ("two_view_training", "two_view_test"):
            image(os.path.join(base, folder, f"scene{k}", "im0.png"), 5, 7)
            image(os.path.join(base, folder, f"scene{k}", "im1.png"), 5, 7)
        gt = os.path.join(base, "two_view_training_gt", f"scene{k}")
        pfm(os.path.join(gt, "disp0GT.pfm"), _disp(5, 7))
        os.makedirs(gt, exist_ok=True)
        Image.fromarray(((_RNG.random((5, 7)) > 0.5) * 255).astype(np.uint8)).save(
            os.path.join(gt, "mask0nocc.png"))


def crestereo_tree(root):
    for part in ("shapenet", "reflective", "tree", "hole"):
        for k in range(1 + (part == "tree")):
            d = os.path.join(root, "CREStereo", part)
            image(os.path.join(d, f"{k}_left.jpg"), 5, 7)
            image(os.path.join(d, f"{k}_right.jpg"), 5, 7)
            for side in ("left", "right"):
                gray16(os.path.join(d, f"{k}_{side}.disp.png"), _RNG.integers(0, 9000, (5, 7)))


def fallingthings_tree(root):
    base = os.path.join(root, "FallingThings")
    for scene in ("single/002_master_chef_can_16k/kitchen_0", "single/003_cracker_box/temple_1",
                  "mixed/kitchen_2"):
        d = os.path.join(base, *scene.split("/"))
        text(os.path.join(d, "_camera_settings.json"), json.dumps(
            {"camera_settings": [{"name": "left", "intrinsic_settings": {
                "fx": 768.1605834960938, "fy": 768.1605834960938}}]}))
        for k in range(2):
            image(os.path.join(d, f"00000{k}.left.jpg"), 5, 7)
            image(os.path.join(d, f"00000{k}.right.jpg"), 5, 7)
            for side in ("left", "right"):
                depth = _RNG.integers(0, 5000, (5, 7))
                gray16(os.path.join(d, f"00000{k}.{side}.depth.png"), depth)


def sceneflow_tree(root):
    for variant, nest in (("FlyingThings3D", "TRAIN/A/0000"), ("Driving", "15mm/forwards/fast"),
                          ("Monkaa", "a_rain_of_stones_x2")):
        base = os.path.join(root, "SceneFlow", variant)
        for k in range(2):
            for side in ("left", "right"):
                for p in ("frames_cleanpass", "frames_finalpass"):
                    image(os.path.join(base, p, *nest.split("/"), side, f"{k:04d}.png"), 5, 7)
                pfm(os.path.join(base, "disparity", *nest.split("/"), side, f"{k:04d}.pfm"),
                    _disp(5, 7, negate=True))


def sintel_stereo_tree(root):
    base = os.path.join(root, "Sintel", "training")
    for scene in ("alley_1", "cave_2"):
        for k in range(2):
            name = f"frame_{k + 1:04d}.png"
            for folder in ("clean_left", "clean_right", "final_left", "final_right",
                           "disparities"):
                image(os.path.join(base, folder, scene, name), 5, 7)
            for folder in ("occlusions", "outofframe"):
                d = os.path.join(base, folder, scene)
                os.makedirs(d, exist_ok=True)
                Image.fromarray(((_RNG.random((5, 7)) > 0.7) * 255).astype(np.uint8)).save(
                    os.path.join(d, name))


def instereo2k_tree(root):
    for split in ("train", "test"):
        for k in range(2):
            d = os.path.join(root, "InStereo2k", split, f"{k:06d}")
            image(os.path.join(d, "left.png"), 5, 7)
            image(os.path.join(d, "right.png"), 5, 7)
            gray16(os.path.join(d, "left_disp.png"), _RNG.integers(0, 60000, (5, 7)))
            gray16(os.path.join(d, "right_disp.png"), _RNG.integers(0, 60000, (5, 7)))


def video(path, frames=8, h=16, w=24, fps=10, codec="mpeg4", audio_rate=None):
    """A small video file written with PyAV directly (random-ish frames, optional sine
    audio)."""
    import av

    os.makedirs(os.path.dirname(path), exist_ok=True)
    yy, xx = np.mgrid[0:h, 0:w]
    with av.open(path, mode="w") as container:
        stream = container.add_stream(codec, rate=fps)
        stream.width, stream.height, stream.pix_fmt = w, h, "yuv420p"
        astream = None
        if audio_rate:
            astream = container.add_stream("aac", rate=audio_rate)
            astream.layout = "stereo"
        for t in range(frames):
            img = np.stack([(xx * 9 + t * 20) % 256, (yy * 13 + t * 7) % 256,
                            _RNG.integers(0, 256, (h, w))], axis=2).astype(np.uint8)
            container.mux(stream.encode(av.VideoFrame.from_ndarray(img, format="rgb24")))
        container.mux(stream.encode())
        if astream is not None:
            n = int(audio_rate * frames / fps)
            samples = (np.sin(np.arange(2 * n).reshape(2, n) / 7.0) * 0.3).astype(np.float32)
            frame = av.AudioFrame.from_ndarray(samples, format="fltp", layout="stereo")
            frame.sample_rate, frame.pts = audio_rate, 0
            container.mux(astream.encode(frame))
            container.mux(astream.encode())
    return path


def decoded_frames(path):
    """(pts, RGB frames) of every video frame, decoded with PyAV directly."""
    import av

    with av.open(path) as container:
        frames = sorted(((f.pts, f.to_ndarray(format="rgb24"))
                         for f in container.decode(video=0)), key=lambda p: p[0])
    return [p for p, _ in frames], np.stack([f for _, f in frames])


def action_tree(root, classes=("Archery", "Biking"), per_class=3, ext="avi"):
    """``root/<class>/v_<class>_g0<k>_c01.<ext>`` videos of 6-9 frames."""
    paths = []
    for c in classes:
        for k in range(per_class):
            paths.append(video(os.path.join(root, c, f"v_{c}_g0{k + 1}_c01.{ext}"),
                               frames=6 + k, fps=[10, 15, 25][k % 3]))
    return paths
