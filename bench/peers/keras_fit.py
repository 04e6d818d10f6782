#!/usr/bin/env python3
"""Keras peer: the founding post's Keras model trained with model.fit, on TensorFlow.

The founding post's code (see /work/shared/seed/):
    model = Sequential([Dense(20, input_shape=(61,), activation='tanh'),
                        Dense(10, activation='tanh'),
                        Dense(1, activation=None, dtype='float32')])
    model.compile(loss='binary_crossentropy', optimizer=Adam(), metrics="Accuracy")
    model.fit(x_train, y_train, epochs=200, batch_size=2048, verbose=2)

Two modes:
  * default: that model and fit call with the loss the model's linear output needs,
    BinaryCrossentropy(from_logits=True), accuracy as BinaryAccuracy(threshold=0) on the logit,
    and shuffle=False, so it trains the same workload as every other peer (same loss, same rows
    in the same order, and --init-weights for the same starting point);
  * --as-posted: the compile and fit calls exactly as posted: loss='binary_crossentropy' on the
    linear output (Keras then treats the outputs as probabilities and clips them), metrics
    ["Accuracy"] (the post's bare string, which Keras 3 refuses, in a list; Keras 3 reads any
    casing of "accuracy" as BinaryAccuracy here, threshold 0.5 on the linear output), fit's
    default shuffle=True, Keras' glorot initialisation. Its loss and accuracy are not the others'.
Adam: lr 1e-3, beta 0.9/0.999, epsilon 1e-8 as PyTorch's (--as-posted: Keras' Adam(), epsilon 1e-7).
fit runs with verbose=0 (the peer prints its own line per epoch) instead of the post's verbose=2.

The epoch time comes from a callback (on_epoch_begin to on_epoch_end, which follows the epoch's
last step and its metric read); loss and accuracy are what fit reports for the epoch: means over
the epoch's rows, computed batch by batch during training, as the other peers do.

Run with the peers' venv (bench/peers/setup_venv.sh):
  .venv/bin/python bench/peers/keras_fit.py --data x.npy --labels y.npy --epochs 20 --device cpu --out run.json
Prints one line per epoch and the median epoch time (warm-up epoch 1, which traces, excluded).
Prints a line starting "SKIP:" and exits 0 when TensorFlow/Keras is missing or --device cuda has
no GPU.
"""

import os
import sys
import time

import peer_core

DEFAULT_NAME = "Keras model.fit"

# What the measured loop does, recorded in the RunRecord's config.peer.
LOOP = {
    "script": "bench/peers/keras_fit.py",
    "description": "the founding post's Keras Sequential model and model.fit(batch_size=2048) on "
                   "TensorFlow (tf.function-compiled train step), BCE from logits",
    "switches": {"data_path": "framework_pipeline", "launch": "graph_step", "loss": "bce_with_logits",
                 "zero_grad": "none", "optimizer_kernel": "per_tensor", "precision": "fp32"},
    "per_step_host_sync": False,
}


def import_keras(device):
    """Imports TensorFlow and Keras 3 for `device`; returns (tf, keras, reason)."""
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # keep TensorFlow's start-up chatter out
    if device == "cpu":
        os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")  # a GPU build must not take the GPU here
    try:
        import tensorflow as tf
        import keras
    except ImportError as exc:
        return None, None, f"TensorFlow/Keras is not importable by {sys.executable} ({exc}); use the " \
                           "peers' venv (bench/peers/setup_venv.sh)"
    if device == "cuda" and not tf.config.list_physical_devices("GPU"):
        return None, None, f"--device cuda requested but TensorFlow {tf.__version__} sees no GPU " \
                           "(tensorflow-cpu, or no driver)"
    return tf, keras, None


def build_model(keras, inputs, hidden):
    """The founding post's Sequential model, generalised to --hidden: Dense(tanh)... Dense(1)."""
    layers = [keras.Input(shape=(inputs,))]
    layers += [keras.layers.Dense(width, activation="tanh") for width in hidden]
    layers.append(keras.layers.Dense(1, activation=None, dtype="float32"))
    return keras.Sequential(layers)


def set_initial_weights(model, tensors):
    """Loads {"layers.{i}.weight": (out, in), "layers.{i}.bias": (out,)}; Keras kernels are (in, out)."""
    names = list(tensors)
    dense = [layer for layer in model.layers if layer.weights]
    for layer, w, b in zip(dense, names[0::2], names[1::2]):
        layer.set_weights([tensors[w].T.copy(), tensors[b]])


def final_tensors(model):
    """The trained weights under the workbench's safetensors names, (out, in) kernels."""
    tensors = {}
    for i, layer in enumerate(layer for layer in model.layers if layer.weights):
        kernel, bias = layer.get_weights()
        tensors[f"layers.{i}.weight"] = kernel.T.copy()
        tensors[f"layers.{i}.bias"] = bias
    return tensors


def make_recorder(keras, log, as_posted):
    """A Keras callback that times each epoch and hands fit's epoch metrics to `log`."""
    accuracy_key = "Accuracy" if as_posted else "accuracy"

    class EpochRecorder(keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.start_ns = 0
            self.failed = False

        def on_epoch_begin(self, epoch, logs=None):
            self.start_ns = time.perf_counter_ns()

        def on_epoch_end(self, epoch, logs=None):
            end_ns = time.perf_counter_ns()
            logs = logs or {}
            accuracy = logs.get(accuracy_key, logs.get(accuracy_key.lower(), float("nan")))
            if not log.add(epoch + 1, logs["loss"], accuracy, self.start_ns, end_ns):
                self.failed = True
                self.model.stop_training = True

    return EpochRecorder()


def compile_model(keras, model, as_posted, lr):
    """model.compile as posted, or with the loss and metric the linear output needs."""
    if as_posted:
        # Keras 3 refuses a bare string for metrics (Keras 2 accepted it): the list is the nearest.
        model.compile(loss="binary_crossentropy", optimizer=keras.optimizers.Adam(), metrics=["Accuracy"])
    else:
        model.compile(loss=keras.losses.BinaryCrossentropy(from_logits=True),
                      optimizer=keras.optimizers.Adam(learning_rate=lr, epsilon=1e-8),
                      metrics=[keras.metrics.BinaryAccuracy(name="accuracy", threshold=0.0)])


def main(argv=None):
    parser = peer_core.build_arg_parser(__doc__.splitlines()[0], DEFAULT_NAME)
    parser.add_argument("--as-posted", action="store_true",
                        help="compile and fit exactly as the founding post (see the module doc)")
    args = parser.parse_args(argv)
    peer_core.check_args(parser, args)
    reason = peer_core.numpy_unavailable_reason()
    if reason:
        return peer_core.skip(reason)
    tf, keras, reason = import_keras(args.device)
    if reason:
        return peer_core.skip(reason)
    if args.threads is not None:
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(args.threads)

    try:
        x, y = peer_core.load_npy_dataset(args.data, args.labels)
        tensors = None
        if args.init_weights:
            tensors = peer_core.load_initial_tensors(args.init_weights, x.shape[1], args.hidden)
    except (OSError, ValueError) as exc:  # unreadable file, wrong shape, non-binary labels
        return peer_core.fail(exc)

    keras.utils.set_random_seed(args.seed)  # glorot initialisation and fit's shuffling
    model = build_model(keras, x.shape[1], args.hidden)
    if tensors is not None:
        set_initial_weights(model, tensors)
    compile_model(keras, model, args.as_posted, args.lr)

    loop = dict(LOOP)
    if args.as_posted:
        loop["description"] = "the founding post's Keras code as posted: loss='binary_crossentropy' " \
                              "on the linear output, metrics=['Accuracy'], fit's default shuffle=True"
        loop["switches"] = dict(LOOP["switches"], loss="binary_crossentropy_on_linear_output")
    config = peer_core.peer_config(args, loop, backend="keras", init="glorot")
    config["train"]["shuffle"] = bool(args.as_posted)
    if args.as_posted:
        config["optimizer"]["eps"] = 1e-7  # Keras' Adam default; the default mode sets PyTorch's 1e-8
    threads = args.threads if args.threads is not None else tf.config.threading.get_intra_op_parallelism_threads()
    env = peer_core.base_environment("keras", args.device,
                                     f"keras {keras.__version__} on tensorflow {tf.__version__}",
                                     threads or None)
    record = peer_core.RunRecord(args.out, args.name, config,
                                 peer_core.dataset_description(args.data, args.labels, x), env)
    log = peer_core.EpochLog(args, int(x.shape[0]), record)
    recorder = make_recorder(keras, log, args.as_posted)

    log.start()
    try:
        model.fit(x, y, epochs=args.epochs, batch_size=args.batch_size, verbose=0,
                  shuffle=bool(args.as_posted), callbacks=[recorder])
    except KeyboardInterrupt:
        record.finish("cancelled", "interrupted (Ctrl-C)")
        return 130
    except Exception as exc:  # record why, then fail loudly
        record.finish("failed", f"{type(exc).__name__}: {exc}")
        raise
    if recorder.failed:
        return 3
    log.complete()
    if args.save_weights:
        peer_core.write_safetensors(args.save_weights, final_tensors(model))
    return 0


if __name__ == "__main__":
    sys.exit(main())
