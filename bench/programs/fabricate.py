"""Writes every dataset the clients of ``clients.py`` read, in the formats they expect, into
one directory: deterministic (a fixed NumPy seed), no downloads.

    python bench/programs/fabricate.py DIR

Layout: ``mnist/MNIST/raw/*-ubyte`` (torchvision's MNIST reads the raw idx files),
``FashionMNIST/raw/*-ubyte`` (the tutorials'), ``wikitext-2/{train,valid,test}.txt``, ``shakespeare_char/{train.bin,val.bin,meta.pkl}`` (as
nanoGPT's prepare.py writes them), ``input.txt`` (minGPT's chargpt), ``images/faces/*.png``
(dcgan's ImageFolder), ``BSDS300/images/{train,test}/*.jpg`` (super_resolution),
``names/<Language>.txt`` (the char_rnn tutorials), ``cora/cora.{content,cites}`` and
``cora.tgz`` (gcn/gat: the LINQS Cora layout, 1,800 papers of 7 topics, 500 word features),
``imagenet/{train,val}/<wnid>/*.JPEG`` (imagenet's ImageFolder).
The data carry structure (class templates, a Markov text) so that losses fall as on real data.
"""
import os
import pickle
import struct
import sys

import numpy as np

MNIST_TRAIN = 2560
MNIST_TEST = 1000


def _idx(path, array):
    code = {1: 0x08}[array.itemsize]
    with open(path, "wb") as f:
        f.write(struct.pack(">HBB", 0, code, array.ndim))
        f.write(struct.pack(">" + "I" * array.ndim, *array.shape))
        f.write(np.ascontiguousarray(array).tobytes())


def _digits(rng, templates, n):
    labels = rng.integers(0, 10, n).astype(np.uint8)
    shift = rng.integers(-2, 3, (n, 2))
    images = np.empty((n, 28, 28), np.float32)
    for i in range(n):
        images[i] = np.roll(templates[labels[i]], tuple(shift[i]), axis=(0, 1))
    images += rng.normal(0, 40, images.shape)
    return np.clip(images, 0, 255).astype(np.uint8), labels


def mnist(root, rng, sub=("mnist", "MNIST")):
    raw = os.path.join(root, *sub, "raw")
    os.makedirs(raw, exist_ok=True)
    templates = np.zeros((10, 28, 28), np.float32)
    for k in range(10):
        blob = rng.random((7, 7)) > 0.55
        templates[k, 4:24, 4:24] = np.kron(blob[:5, :5], np.ones((4, 4))) * 230
    for prefix, n in (("train", MNIST_TRAIN), ("t10k", MNIST_TEST)):
        images, labels = _digits(rng, templates, n)
        _idx(os.path.join(raw, prefix + "-images-idx3-ubyte"), images)
        _idx(os.path.join(raw, prefix + "-labels-idx1-ubyte"), labels)


def fashion_mnist(root, rng):
    """The tutorials' FashionMNIST (``data/FashionMNIST/raw``): MNIST's idx layout."""
    del rng  # other templates than MNIST's
    mnist(root, np.random.default_rng(4321), ("FashionMNIST",))


def _markov_words(rng, vocab, n_words):
    # each word prefers a few successors: a language model has something to learn
    succ = rng.integers(0, len(vocab), (len(vocab), 4))
    out, w = [], 0
    for _ in range(n_words):
        w = succ[w, rng.integers(0, 4)] if rng.random() < 0.8 else rng.integers(0, len(vocab))
        out.append(vocab[w])
    return out


def wikitext(root, rng):
    d = os.path.join(root, "wikitext-2")
    os.makedirs(d, exist_ok=True)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    vocab = sorted({"".join(rng.choice(letters, rng.integers(2, 8))) for _ in range(400)})
    for name, n in (("train", 24000), ("valid", 3000), ("test", 3000)):
        words = _markov_words(rng, vocab, n)
        lines = [" ".join(words[i:i + 20]) for i in range(0, n, 20)]
        with open(os.path.join(d, name + ".txt"), "w") as f:
            f.write("\n".join(" " + line + " " for line in lines) + "\n")


def shakespeare(root, rng):
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    vocab = sorted({"".join(rng.choice(letters, rng.integers(1, 7))) for _ in range(300)})
    words = _markov_words(rng, vocab, 40000)
    text = ""
    for i in range(0, len(words), 9):
        # chargpt's sampling prompt is "O God, O God!": its characters must be in the vocabulary
        text += "CITIZEN:\nO God, O God!\n" if i % 90 == 0 else ""
        text += " ".join(words[i:i + 9]).capitalize() + ".\n"
    with open(os.path.join(root, "input.txt"), "w") as f:
        f.write(text)
    d = os.path.join(root, "shakespeare_char")
    os.makedirs(d, exist_ok=True)
    chars = sorted(set(text))
    stoi = {ch: i for i, ch in enumerate(chars)}
    itos = {i: ch for i, ch in enumerate(chars)}
    cut = int(len(text) * 0.9)
    for name, part in (("train", text[:cut]), ("val", text[cut:])):
        np.array([stoi[c] for c in part], np.uint16).tofile(os.path.join(d, name + ".bin"))
    with open(os.path.join(d, "meta.pkl"), "wb") as f:
        pickle.dump({"vocab_size": len(chars), "itos": itos, "stoi": stoi}, f)


_LANGUAGES = ("Arabic", "Chinese", "Czech", "Dutch", "English", "French", "German", "Greek",
              "Irish", "Italian", "Japanese", "Korean", "Polish", "Portuguese", "Russian",
              "Scottish", "Spanish", "Vietnamese")


def names(root, rng):
    """pytorch/tutorials' ``data/names/<Language>.txt`` (char_rnn tutorials): one name a line,
    each language built from its own syllables (some accented, as the real files are)."""
    d = os.path.join(root, "names")
    os.makedirs(d, exist_ok=True)
    letters = list("abcdefghijklmnopqrstuvwxyz") + ["\u00e0", "\u00e9", "\u00f6", "\u00df"]
    for lang in _LANGUAGES:
        sylls = ["".join(rng.choice(letters, rng.integers(1, 4))) for _ in range(12)]
        out = []
        for _ in range(int(rng.integers(80, 200))):
            name = "".join(rng.choice(sylls, rng.integers(2, 4)))
            out.append(name[:1].upper() + name[1:])
        with open(os.path.join(d, lang + ".txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(out) + "\n")


def _image(rng, h, w):
    yy, xx = np.mgrid[0:h, 0:w] / max(h, w)
    c = rng.random((3, 3))
    img = np.stack([np.sin(6 * (c[k, 0] * xx + c[k, 1] * yy) + 6 * c[k, 2]) for k in range(3)], -1)
    img = (img * 0.5 + 0.5) * 200 + rng.normal(0, 20, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def images(root, rng):
    from PIL import Image

    d = os.path.join(root, "images", "faces")
    os.makedirs(d, exist_ok=True)
    for i in range(128):
        Image.fromarray(_image(rng, 72, 72)).save(os.path.join(d, f"{i:03d}.png"))
    for split, n in (("train", 16), ("test", 4)):
        d = os.path.join(root, "BSDS300", "images", split)
        os.makedirs(d, exist_ok=True)
        for i in range(n):
            Image.fromarray(_image(rng, 264, 264)).save(os.path.join(d, f"{i:03d}.jpg"), quality=95)


_TOPICS = ("Case_Based", "Genetic_Algorithms", "Neural_Networks", "Probabilistic_Methods",
           "Reinforcement_Learning", "Rule_Learning", "Theory")


def cora(root, rng, n=1800, words=500):
    """Cora's two files: ``<paper> <0/1 per word> <topic>`` lines and ``<cited> <citing>`` pairs;
    each topic favours its own words and papers mostly cite their own topic (as in Cora).
    Also packed as ``cora.tgz`` (a ``cora/`` folder), what gcn's download extracts."""
    import tarfile

    d = os.path.join(root, "cora")
    os.makedirs(d, exist_ok=True)
    ids = rng.choice(np.arange(30, 1_200_000), n, replace=False)
    topic = rng.integers(0, len(_TOPICS), n)
    favour = rng.random((len(_TOPICS), words)) < 0.08
    p = np.where(favour[topic], 0.15, 0.005)
    feats = (rng.random((n, words)) < p).astype(np.int64)
    with open(os.path.join(d, "cora.content"), "w") as f:
        f.writelines(f"{ids[i]}\t" + "\t".join(map(str, feats[i])) + f"\t{_TOPICS[topic[i]]}\n"
                     for i in range(n))
    pairs = set()
    while len(pairs) < 2 * n:
        a = int(rng.integers(0, n))
        same = np.flatnonzero(topic == topic[a]) if rng.random() < 0.8 else np.arange(n)
        b = int(rng.choice(same))
        if a != b:
            pairs.add((a, b))
    with open(os.path.join(d, "cora.cites"), "w") as f:
        f.writelines(f"{ids[a]}\t{ids[b]}\n" for a, b in sorted(pairs))
    with tarfile.open(os.path.join(root, "cora.tgz"), "w:gz") as tgz:
        tgz.add(d, arcname="cora")


def imagenet(root, rng, classes=4, train=16, val=4):
    """ImageFolder trees of small JPEGs (one colour pattern family per class)."""
    from PIL import Image

    for k in range(classes):
        family = np.random.default_rng(int(rng.integers(1 << 30)))
        for split, n in (("train", train), ("val", val)):
            d = os.path.join(root, "imagenet", split, f"n{k:08d}")
            os.makedirs(d, exist_ok=True)
            for i in range(n):
                img = _image(np.random.default_rng(family.integers(4)), 40, 40)
                img = np.clip(img + rng.normal(0, 25, img.shape), 0, 255).astype(np.uint8)
                Image.fromarray(img).save(os.path.join(d, f"{i:03d}.JPEG"), quality=90)


def main(root):
    os.makedirs(root, exist_ok=True)
    for make in (mnist, fashion_mnist, wikitext, shakespeare, images, names, cora, imagenet):
        make(root, np.random.default_rng(1234))
    with open(os.path.join(root, "DONE"), "w") as f:
        f.write("1\n")


if __name__ == "__main__":
    main(sys.argv[1])
