"""The clients: each real program with its command line and short settings (each run well
under two minutes on one thread). ``{data}`` is the fabricated data directory, ``{root}`` the
checkout the script lives in; paths in ``links`` are made in the run's working directory.

Fields: ``script`` (relative to ``root``: ``examples``, ``mingpt``, ``nanogpt``, ``tutorials``
(pytorch/tutorials) or ``yunjey`` (yunjey/pytorch-tutorial's tutorials/)), ``args``,
``links`` (name in the working directory -> path), ``dirs`` (made empty), ``pre``/``post``
(other scripts of the same checkout run before/after, same library unless ``pre_lib``,
untimed), ``cross`` (run
after, under the other library: reads what the run saved), ``patch`` (``{old: new}`` lines of a
program without a command line: a copy so edited runs), ``offline`` (``requests.get`` answers
from the data directory: bench/programs/offline), ``loss`` (regex;
every group of every matching line is one point of the trajectory), ``tick`` (regex of the lines
that end iterations, default ``loss``; ``skip_ticks`` leading ones dropped, where the first
interval holds an evaluation) and ``per_tick`` (iterations between two ticks) for the
timing between the first and the last tick; ``total_iters`` instead (an int, or a regex whose
group is the count) times the whole run, children included, per iteration. ``rtol``: how far
the trajectories may differ, relative, for the settings' chaos (None: not compared). ``vision``: imports
torchvision. ``env``: extra environment variables. ``cwd``: the working directory's path
under the run's own temporary one (default ``run``). No ``loss``: the whole printed output is
compared, line for line. ``cut``: seconds after which the program is stopped and its printed
prefix compared (hard-coded long loops; the timing is then that of the prefix). ``needs``: a module without which the client is skipped.
"""

_MNIST = {"../data": "{data}/mnist", "data": "{data}/mnist"}
_TRAIN_LOSS = r"\]\s+Loss: ([-\d.e]+)"


def _wlm(model, extra=()):
    return {
        "script": "word_language_model/main.py",
        "args": ["--data", "{data}/wikitext-2", "--model", model, "--epochs", "1",
                 "--log-interval", "2", "--lr", "2", "--dropout", "0", *extra],
        "post": [("word_language_model/generate.py",
                  ["--data", "{data}/wikitext-2", "--checkpoint", "model.pt", "--words", "200"])],
        "loss": r"batches \|.*\| loss\s+([\d.]+)", "per_tick": 2, "rtol": 0.01,
    }


CLIENTS = {
    "wlm_lstm": _wlm("LSTM"),
    "wlm_gru": _wlm("GRU"),
    "wlm_rnn_tanh": _wlm("RNN_TANH"),
    "wlm_transformer": _wlm("Transformer"),
    # Adadelta at its default lr 1.0 grows float32 rounding (1e-7 at step 1) to 1e-3 in 4 steps
    # (mnist and siamese_network alike): lr 0.1 to compare trajectories
    "mnist": {"script": "mnist/main.py",
              "args": ["--epochs", "1", "--log-interval", "1", "--lr", "0.1"],
              "links": _MNIST, "vision": True, "loss": _TRAIN_LOSS, "per_tick": 1, "rtol": 1e-3},
    "vae": {"script": "vae/main.py", "args": ["--epochs", "1", "--log-interval", "1"],
            "links": _MNIST, "dirs": ["results"], "vision": True, "loss": _TRAIN_LOSS,
            "per_tick": 1, "rtol": 1e-3},
    "dcgan": {"script": "dcgan/main.py",
              "args": ["--dataset", "folder", "--dataroot", "{data}/images", "--workers", "2",
                       "--batchSize", "16", "--niter", "1", "--ngf", "16", "--ndf", "16",
                       "--manualSeed", "1", "--outf", "out"],
              "dirs": ["out"], "vision": True,
              "loss": r"Loss_D: ([\d.]+) Loss_G: ([\d.]+)", "per_tick": 1, "rtol": 1e-2},
    "mnist_rnn": {"script": "mnist_rnn/main.py", "args": ["--epochs", "1", "--log-interval", "1"],
                  "links": _MNIST, "vision": True, "loss": _TRAIN_LOSS, "per_tick": 1,
                  "rtol": 1e-3},
    # one process: two Hogwild workers interleave differently in every run, torch's too
    "mnist_hogwild": {"script": "mnist_hogwild/main.py",
                      "args": ["--epochs", "1", "--num-processes", "1", "--log-interval", "1"],
                      "links": _MNIST, "vision": True, "loss": _TRAIN_LOSS, "total_iters": 40,
                      "rtol": 1e-3},
    "siamese_network": {"script": "siamese_network/main.py",
                        "args": ["--epochs", "1", "--log-interval", "1", "--lr", "0.1"],
                        "links": _MNIST, "vision": True, "loss": _TRAIN_LOSS, "per_tick": 1,
                        "rtol": 1e-3},
    "mnist_forward_forward": {"script": "mnist_forward_forward/main.py",
                              "args": ["--epochs", "60", "--train_size", "2000",
                                       "--test_size", "1000", "--log-interval", "5"],
                              "links": _MNIST, "vision": True, "loss": r"^Loss:\s+([-\d.e]+)",
                              "per_tick": 5, "rtol": 1e-4},
    "regression": {"script": "regression/main.py", "args": [],
                   "loss": r"^Loss: ([-\d.e]+) after", "total_iters": r"after (\d+) batches",
                   "rtol": None},
    "time_sequence_prediction": {
        "script": "time_sequence_prediction/train.py", "args": ["--steps", "2"],
        # its torch.load of a NumPy array fails under weights_only (torch's default since 2.6)
        "env": {"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "1"},
        "pre": [("time_sequence_prediction/generate_sine_wave.py", [])],
        "loss": r"^loss: ([-\d.e]+)", "tick": r"^STEP:", "per_tick": 1, "rtol": 1e-3},
    "reinforce": {"script": "reinforcement_learning/reinforce.py", "args": [], "needs": "gym",
                  "loss": r"Average reward: ([-\d.]+)", "per_tick": 10, "rtol": 1e-3},
    "actor_critic": {"script": "reinforcement_learning/actor_critic.py", "args": [],
                     "needs": "gym", "loss": r"Average reward: ([-\d.]+)", "per_tick": 10,
                     "rtol": 1e-3},
    "super_resolution": {
        "script": "super_resolution/main.py",
        "args": ["--upscale_factor", "3", "--batchSize", "4", "--testBatchSize", "2",
                 "--nEpochs", "2", "--lr", "0.001", "--threads", "0"],
        "links": {"dataset/BSDS300": "{data}/BSDS300"}, "vision": True,
        "post": [("super_resolution/super_resolve.py",
                  ["--input_image", "{data}/BSDS300/images/test/000.jpg",
                   "--model", "model_epoch_2.pth", "--output_filename", "out.png"])],
        "loss": r"\): Loss: ([\d.]+)", "per_tick": 1, "rtol": 1e-3},
    # its VGG-16 weights are a download: runs where torch's hub cache holds them
    "fast_neural_style": {
        "script": "fast_neural_style/neural_style/neural_style.py",
        "args": ["train", "--dataset", "{data}/images", "--save-model-dir", "models",
                 "--epochs", "1", "--batch-size", "4", "--image-size", "64",
                 "--log-interval", "4", "--style-image",
                 "{root}/fast_neural_style/images/style-images/mosaic.jpg"],
        "needs": "vgg16_weights", "vision": True, "dirs": ["models"],
        "loss": r"content: ([\d.]+)\s+style: ([\d.]+)", "per_tick": 4, "rtol": 1e-2},
    "mingpt_adder": {"root": "mingpt", "script": "projects/adder/adder.py",
                     "args": ["--trainer.max_iters=41"], "loss": r"train loss ([\d.]+)",
                     "per_tick": 10, "skip_ticks": 1, "rtol": 1e-3},
    "mingpt_chargpt": {"root": "mingpt", "script": "projects/chargpt/chargpt.py",
                       "args": ["--trainer.max_iters=41"], "links": {"input.txt": "{data}/input.txt"},
                       "loss": r"train loss ([\d.]+)", "per_tick": 10, "skip_ticks": 1,
                       "rtol": 1e-3},
    "nanogpt": {"root": "nanogpt", "script": "train.py",
                "args": ["config/train_shakespeare_char.py", "--device=cpu", "--compile=False",
                         "--eval_iters=20", "--log_interval=1", "--block_size=64",
                         "--batch_size=12", "--n_layer=4", "--n_head=4", "--n_embd=128",
                         "--max_iters=40", "--eval_interval=40", "--lr_decay_iters=2000",
                         "--dropout=0.0"],
                "links": {n: "{root}/" + n for n in ("configurator.py", "config")} | {
                    "data/shakespeare_char": "{data}/shakespeare_char"},
                "post": [("sample.py", ["--out_dir=out-shakespeare-char", "--device=cpu",
                                        "--num_samples=2", "--max_new_tokens=100"])],
                "loss": r"^iter \d+: loss ([\d.]+)", "per_tick": 1, "rtol": 1e-3},
}

# yunjey/pytorch-tutorial reads MNIST from "../../data" and trains a fixed number of epochs (on
# the fabricated 2,560 images: 26 steps an epoch, below its 100-step print interval, so the test
# accuracy it prints is the trajectory and the whole run is timed)
_YT_MNIST = {"cwd": "a/run", "links": {"../../data/MNIST": "{data}/mnist/MNIST"}, "vision": True,
             "root": "yunjey", "args": [], "loss": r"images: ([\d.]+) %"}
_EXAMPLE_LOSS = r"^\d+ ([-\d.e+]+)$"  # pytorch/tutorials' "t loss" lines


def _tut(script, vision=False, **extra):
    return {"root": "tutorials", "script": "beginner_source/" + script, "args": [],
            "vision": vision, "rtol": 0, **extra}


_FASHION = {"data": "{data}"}
CLIENTS.update({
    "yt_linear_regression": {"root": "yunjey", "script": "01-basics/linear_regression/main.py",
                             "args": [], "loss": r"Loss: ([\d.]+)", "per_tick": 5, "rtol": 1e-4},
    "yt_logistic_regression": dict(_YT_MNIST, script="01-basics/logistic_regression/main.py",
                                   total_iters=130, rtol=1e-3),
    "yt_feedforward": dict(_YT_MNIST, script="01-basics/feedforward_neural_network/main.py",
                           total_iters=130, rtol=1e-3),
    "yt_cnn": dict(_YT_MNIST, script="02-intermediate/convolutional_neural_network/main.py",
                   total_iters=130, rtol=1e-3),
    "yt_rnn": dict(_YT_MNIST, script="02-intermediate/recurrent_neural_network/main.py",
                   total_iters=52, rtol=1e-3),
    # Adam on a 2-layer bidirectional LSTM: float32 rounding grows to 1e-4 in the loss by step
    # 19 (torch at 2 threads against 1 thread: step 28); numtorch's gradients are as close to
    # float64's as torch's (1e-6)
    "yt_birnn": dict(_YT_MNIST, script="02-intermediate/bidirectional_recurrent_neural_network"
                     "/main.py", total_iters=52, rtol=1e-2),
    "yt_language_model": {"root": "yunjey", "script": "02-intermediate/language_model/main.py",
                          "args": [], "links": {"data/train.txt": "{data}/wikitext-2/train.txt"},
                          "loss": r"Loss: ([\d.]+)", "per_tick": 42, "rtol": 1e-3},
    "yt_vae": dict(_YT_MNIST, script="03-advanced/variational_autoencoder/main.py",
                   loss=r"Reconst Loss: ([\d.]+), KL Div: ([\d.]+)", per_tick=10, rtol=1e-2),
    # pytorch/tutorials' beginner scripts (transcribed: see the report of session 39)
    "tut_quickstart": _tut("basics/quickstart_tutorial.py", True, links=_FASHION,
                           loss=r"^loss: ([\d.]+)", per_tick=40, rtol=1e-4),
    "tut_optimization": _tut("basics/optimization_tutorial.py", True, links=_FASHION,
                             loss=r"^loss: ([\d.]+)", per_tick=40, rtol=1e-4),
    "tut_tensorqs": _tut("basics/tensorqs_tutorial.py"),
    "tut_autogradqs": _tut("basics/autogradqs_tutorial.py"),
    "tut_buildmodel": _tut("basics/buildmodel_tutorial.py", True),
    "tut_blitz_autograd": _tut("blitz/autograd_tutorial.py"),
    "tut_blitz_neural_networks": _tut("blitz/neural_networks_tutorial.py"),
    "tut_polynomial_custom_function": _tut("examples_autograd/polynomial_custom_function.py",
                                           loss=_EXAMPLE_LOSS, per_tick=100, rtol=1e-4),
    "tut_polynomial_nn": _tut("examples_nn/polynomial_nn.py", loss=_EXAMPLE_LOSS, per_tick=100,
                              rtol=1e-4),
    "tut_polynomial_optim": _tut("examples_nn/polynomial_optim.py", loss=_EXAMPLE_LOSS,
                                 per_tick=100, rtol=1e-4),
    "tut_polynomial_module": _tut("examples_nn/polynomial_module.py", loss=_EXAMPLE_LOSS,
                                  per_tick=100, rtol=1e-4),
    "tut_pruning": _tut("../intermediate_source/pruning_tutorial.py"),
    # no output: it asserts (make_dual keeps the tangent object, functorch's jvp runs)
    "tut_forward_ad_usage": _tut("../intermediate_source/forward_ad_usage.py"),
    # prints timeit measurements: runs, not compared; timed whole (ms = the run's CPU time)
    "tut_jacobians_hessians": _tut("../intermediate_source/jacobians_hessians.py",
                                   loss=r"Performance delta: ([\d.]+)", rtol=None,
                                   total_iters=1),
    # 100,000 iterations hard-coded: the first 60 s (its timings are wall clock: not compared).
    # Plain SGD on one name at a time: the printed 4-digit losses agree for 50,000 iterations,
    # then single-sample losses drift apart (1.6118 vs 1.6195 at 55,000)
    "tut_char_rnn_classification": _tut(
        "../intermediate_source/char_rnn_classification_tutorial.py",
        links={"data/names": "{data}/names"}, loss=r"^\d+ \d+% \([^)]*\) ([\d.]+)",
        per_tick=5000, rtol=1e-4, cut=60),
    "tut_dynamic_net": _tut("examples_nn/dynamic_net.py", loss=_EXAMPLE_LOSS, per_tick=2000,
                            rtol=1e-4),
})

# session 40: gcn/gat (fabricated Cora), imagenet (fabricated ImageFolder), fx, mnist's saved
# model read by the other library, ng-video-lecture, vit-pytorch (through a driver)
_DRIVERS = __import__("os").path.join(__import__("os").path.dirname(__file__), "drivers")
_GRAPH_LOSS = r"loss_train: ([\d.]+) acc_train: [\d.]+ loss_val: ([\d.]+)"
_IMAGENET = ["{data}/imagenet", "-a", "resnet18", "-j", "0", "-b", "8", "-p", "1",
             "--seed", "1", "--lr", "0.01"]
_NG_GPT = {"batch_size = 64 ": "batch_size = 16 ", "block_size = 256 ": "block_size = 32 ",
           "max_iters = 5000": "max_iters = 41", "eval_interval = 500": "eval_interval = 10",
           "eval_iters = 200": "eval_iters = 4", "n_embd = 384": "n_embd = 64",
           "n_head = 6": "n_head = 4", "n_layer = 6": "n_layer = 2",
           "max_new_tokens=500": "max_new_tokens=100"}


def _fx(name):
    return {"script": f"fx/{name}.py", "args": [], "rtol": 0, "vision": True}


CLIENTS.update({
    # gcn downloads cora.tgz on every run (served offline); gat finds ./cora
    "gcn": {"script": "gcn/main.py", "args": ["--epochs", "40", "--val-every", "1"],
            "offline": True, "loss": _GRAPH_LOSS, "per_tick": 1, "rtol": 1e-4},
    "gat": {"script": "gat/main.py", "args": ["--epochs", "12", "--val-every", "1",
                                               "--num-heads", "4", "--hidden-dim", "16"],
            "links": {"cora": "{data}/cora"}, "loss": _GRAPH_LOSS, "per_tick": 1, "rtol": 1e-4},
    # resnet18 at 224x224, batch 8, BatchNorm and momentum: torch at 2 threads against 1
    # thread already differs by 4e-3 at step 4 and 8% at step 8; the first 3 steps are compared
    "imagenet": {"script": "imagenet/main.py", "args": [*_IMAGENET, "--epochs", "1"],
                 "vision": True, "loss": r"^Epoch: \[\d\]\[\s*[123]/\d+\].*\tLoss ([\d.e+-]+) ",
                 "tick": r"^Epoch: \[", "per_tick": 1, "rtol": 1e-2},
    # each library evaluates (--evaluate --resume) the checkpoint of one untimed torch training run
    "imagenet_evaluate": {"script": "imagenet/main.py",
                          "args": [*_IMAGENET, "--evaluate", "--resume", "checkpoint.pth.tar"],
                          "pre": [("imagenet/main.py", [*_IMAGENET, "--epochs", "1"])],
                          "pre_lib": "torch", "vision": True,
                          "loss": r"^Test: .*\tLoss ([\d.e+-]+) ", "per_tick": 1, "rtol": 1e-3},
    # one-process gloo group through mp.spawn (DistributedSampler, the meters' all_reduce); the
    # spawned worker draws its model from an unseeded generator (torch's too): not compared
    "imagenet_distributed": {"script": "imagenet/main.py",
                             "args": [*_IMAGENET, "--epochs", "1", "--multiprocessing-distributed",
                                      "--world-size", "1", "--rank", "0", "--dist-backend",
                                      "gloo", "--dist-url", "tcp://127.0.0.1:29561"],
                             "vision": True, "loss": r"^Epoch: \[.*\tLoss ([\d.e+-]+) ",
                             "total_iters": 8, "rtol": None},
    "mnist_save_model": {"script": "mnist/main.py",
                         "args": ["--epochs", "1", "--log-interval", "1", "--lr", "0.1",
                                  "--save-model"],
                         "cross": [(_DRIVERS + "/reload_mnist_cnn.py", ["{root}/mnist"])],
                         "links": _MNIST, "vision": True, "loss": _TRAIN_LOSS, "per_tick": 1,
                         "rtol": 1e-3},
    # torch.fx examples: whole output compared (custom_tracer needs tabulate: not installed;
    # profiling_tracer prints timings)
    **{f"fx_{n}": _fx(n) for n in ("inline_function", "invert", "module_tracer",
                                   "primitive_library", "proxy_based_graph_creation",
                                   "replace_op", "subgraph_rewriter_basic_use",
                                   "wrap_output_dynamically")},
    # bigram.py runs unmodified (3,000 steps of a bigram table); gpt.py has no command line and
    # 5,000 steps of a 6-layer 384-wide model hard-coded: a copy with smaller constants runs
    "ng_bigram": {"root": "ngvideo", "script": "bigram.py", "args": [],
                  "links": {"input.txt": "{root}/input.txt"},
                  "loss": r"^step \d+: train loss ([\d.]+), val loss ([\d.]+)",
                  "total_iters": 3000, "rtol": 1e-3},
    "ng_gpt": {"root": "ngvideo", "script": "gpt.py", "args": [], "patch": _NG_GPT,
               "links": {"input.txt": "{root}/input.txt"},
               "loss": r"^step \d+: train loss ([\d.]+), val loss ([\d.]+)",
               "total_iters": 41, "rtol": 1e-3},
    # vit-pytorch's models (its examples/ is a Kaggle notebook): a driver builds 15 of them
    # small from one seed and prints 3 Adam steps each; eval outputs are printed, not compared
    # (conv biases before BatchNorm have zero true gradient: Adam turns each library's rounding
    # noise into lr-sized steps that only the eval-mode running means see)
    "vit_pytorch": {"root": "drivers", "script": "vit_models.py", "args": [], "vision": True,
                    "loss": r" step \d+ loss ([\d.]+)", "total_iters": 45, "rtol": 1e-3},
})

# session 41: karpathy/makemore (every --type: 201 AdamW steps, the samples printed at step 200;
# names.txt is the checkout's own) and timm's own train.py/validate.py on the fabricated
# ImageFolder (2 epochs of 8 batches; the closing JSON's train/validation losses are the
# trajectory: its per-step lines print 3 digits)
_MAKEMORE_LOSS = r"^step \d+ \| loss ([\d.]+) \|"


def _makemore(kind, workers="0"):
    return {"root": "makemore", "script": "makemore.py",
            "args": ["--type", kind, "--max-steps", "201", "-o", "out", "-n", workers],
            "links": {"names.txt": "{root}/names.txt"}, "loss": _MAKEMORE_LOSS, "per_tick": 10,
            "skip_ticks": 1, "rtol": 1e-4}


_TIMM = ["--data-dir", "{data}/imagenet", "--val-split", "val", "--num-classes", "4", "-b", "8",
         "--device", "cpu", "--workers", "1", "--log-interval", "1", "--seed", "1",
         "--img-size", "64", "--epochs", "2", "--warmup-epochs", "1", "--experiment", "x"]


def _timm(*args, rtol=1e-4):
    return {"root": "timm", "script": "train.py", "args": [*_TIMM, *args], "vision": True,
            "loss": r'^\s+"loss": ([\d.]+)', "order": r'"epoch": (\d+)', "total_iters": 16,
            "rtol": rtol}


CLIENTS.update({
    **{f"makemore_{k}": _makemore(k) for k in ("bigram", "mlp", "rnn", "gru", "bow")},
    # two DataLoader worker processes feed the transformer
    "makemore_transformer": _makemore("transformer", "2"),
    # SGD at lr 0.01 after the warmup epoch: both libraries' step losses agree to 1e-7 for 12
    # steps, then a 2e-5 difference grows ~10x a step (BatchNorm on 8 images of 2x2 maps)
    "timm_resnet18": _timm("--model", "resnet18", "--lr", "0.01", rtol=1e-2),
    # AdamW, cosine warmup, mixup+cutmix, label smoothing, RandAugment, random erasing (the
    # prefetcher's: Python's random in the main process), drop path, model EMA
    "timm_efficientnet": _timm("--model", "efficientnet_b0", "--opt", "adamw", "--lr", "1e-3",
                               "--mixup", "0.8", "--cutmix", "1.0", "--smoothing", "0.1",
                               "--aa", "rand-m9-mstd0.5", "--reprob", "0.25",
                               "--drop-path", "0.1", "--model-ema"),
    "timm_convnext": _timm("--model", "convnext_atto", "--opt", "lamb", "--lr", "2e-3",
                           "--sched", "step", "--decay-epochs", "1", "--bce-loss",
                           "--clip-grad", "1.0", "--layer-decay", "0.75"),
    "timm_vit": _timm("--model", "vit_tiny_patch16_224", "--model-kwargs", "img_size=64",
                      "--opt", "adamw", "--lr", "1e-3", "--model-ema", "--clip-grad", "0.5",
                      "--clip-mode", "agc", "--grad-accum-steps", "2"),
    # AugMix in 3 splits, Jensen-Shannon loss, split BatchNorm
    "timm_augmix_jsd": _timm("--model", "resnet18", "--opt", "adamw", "--lr", "1e-3",
                             "--aug-splits", "3", "--jsd-loss", "--aa", "augmix-m5-w3-d2",
                             "--split-bn"),
    # BatchNorm on batches of 8 and SGD/RMSprop at lr 0.05/1e-3 in epoch 2: torch at 2 threads
    # against 1 already differs 2-3e-4 (numtorch 3e-4/3e-3; its one-batch gradients are as close
    # to float64's as torch's)
    "timm_regnet": _timm("--model", "regnetx_002", "--opt", "sgd", "--momentum", "0.9",
                         "--lr", "0.05", "--sched", "poly", "--mixup", "0.5", rtol=1e-2),
    "timm_mobilenetv3": _timm("--model", "mobilenetv3_small_050", "--opt", "rmsproptf",
                              "--lr", "1e-3", "--sched", "tanh", "--smoothing", "0.1",
                              "--channels-last", rtol=1e-2),
    # validate.py on the EMA weights of one untimed torch training run
    "timm_validate": {"root": "timm", "script": "validate.py",
                      "args": ["--data-dir", "{data}/imagenet", "--split", "val", "--model",
                               "efficientnet_b0", "--num-classes", "4", "--img-size", "64",
                               "-b", "8", "--workers", "1", "--device", "cpu", "--checkpoint",
                               "output/train/x/model_best.pth.tar", "--use-ema"],
                      "pre": [("train.py", [*_TIMM, "--model", "efficientnet_b0", "--model-ema",
                                            "--opt", "adamw", "--lr", "1e-3"])],
                      "pre_lib": "torch", "vision": True,
                      "loss": r'^\s+"top1": ([\d.]+)', "total_iters": 2, "rtol": 1e-4},
})
