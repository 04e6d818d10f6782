#include "frameworks/script_text.h"

#include <array>
#include <charconv>

#include <nlohmann/json.hpp>

namespace wb {

std::string pyNumber(double v) {
    std::array<char, 32> buf{};
    const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    (void)ec;
    return {buf.data(), end};
}

std::string pyFloat(double v) {
    const std::string s = pyNumber(v);
    return s.find_first_of(".eni") == std::string::npos ? s + ".0" : s;
}

std::string pyFloatList(const std::vector<float>& v) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) {
        std::array<char, 32> buf{};
        const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v[i]);
        (void)ec;
        std::string n(buf.data(), end);
        if (n.find_first_of(".eni") == std::string::npos) n += ".0";
        out += (i ? ", " : "") + n;
    }
    return out + "]";
}

std::string pyBool(bool b) {
    return b ? "True" : "False";
}

std::string plain(const std::string& s) {
    std::string out;
    for (const char c : s) out += (c == '\\' || c == '"') ? '\'' : (c == '\n' || c == '\r') ? ' ' : c;
    return out;
}

std::string join(const std::vector<int>& v, const char* sep) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
    return s;
}

std::string switchesSection(const ExecutionSettings& run, const std::vector<IgnoredSwitch>& ignored,
                            const DescribeSwitch& describe) {
    std::string s =
        "How it executes (each switch is one suspected cause of a slow training loop; the code below\n"
        "marks each with a comment naming it):\n";
    for (const auto& d : describeSwitches(run)) {
        const std::string text = describe(d.name, d.value);
        if (!text.empty()) s += "  " + d.name + "=" + d.value + ": " + text + "\n";
    }
    if (!ignored.empty()) {
        s += "Asked for but not applicable here:\n";
        for (const auto& i : ignored) s += "  " + i.name + ": " + plain(i.reason) + "\n";
    }
    return s;
}

std::string usageSection(const std::string& needs) {
    return R"PY(
Run it on a .npy pair (features (rows, cols) float32, labels (rows,) of 0 and 1):
    python3 loop.py --data x.npy --labels y.npy [--val-data vx.npy --val-labels vy.npy]
                    [--init-weights w.safetensors] [--epochs N] [--out run.json]
It prints one JSON line per epoch and, with --out, writes a RunRecord (mlpwb.run/1) that MLP
Workbench opens next to its own runs. It needs only )PY" +
           needs + ".\n\"\"\"\n";
}

std::string scriptConstants(const RunConfig& c, const std::string& framework, const std::string& device,
                            const std::string& loopName) {
    nlohmann::json config = c;
    config["backend"] = framework;
    const std::string configText = config.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
    return "\n# The run as MLP Workbench recorded it (written into the RunRecord of --out).\nCONFIG = "
           "json.loads(r\"\"\"" +
           configText + "\"\"\")\nHIDDEN = [" + join(c.model.hidden, ", ") +
           "]\nBATCH_SIZE = " + std::to_string(c.train.batchSize) + "\nEPOCHS = " + std::to_string(c.train.epochs) +
           "\nSHUFFLE = " + pyBool(c.train.shuffle) + "\nSEED = " + std::to_string(c.train.seed) + "\nDEVICE = \"" +
           device + "\"\nFRAMEWORK = \"" + framework + "\"\nLOOP_NAME = \"" + loopName + "\"\n";
}

// safetensors by hand (an 8-byte header length, a JSON header, raw little-endian floats), and .npy.
std::string pythonFileHelpers() {
    return R"PY(

def read_safetensors(path):
    with open(path, "rb") as f:
        blob = f.read()
    (length,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + length])
    data = blob[8 + length:]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if entry["dtype"] != "F32":
            raise ValueError(f"{path}: {name} is {entry['dtype']}, expected F32")
        begin, end = entry["data_offsets"]
        tensors[name] = np.frombuffer(data[begin:end], dtype="<f4").reshape(entry["shape"]).copy()
    return tensors


def write_atomically(path, payload):
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, array in tensors.items():
        data = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    write_atomically(path, struct.pack("<Q", len(text)) + text + b"".join(blobs))


def load_rows(features_path, labels_path):
    """Features (rows, cols) and labels (rows, 1) as float32 arrays."""
    x = np.ascontiguousarray(np.load(features_path, allow_pickle=False), dtype=np.float32)
    y = np.ascontiguousarray(np.load(labels_path, allow_pickle=False), dtype=np.float32).reshape(-1, 1)
    if x.ndim != 2 or y.shape[0] != x.shape[0]:
        raise ValueError(f"{features_path} {x.shape} and {labels_path} {y.shape} do not pair up as (rows, cols), (rows,)")
    return x, y
)PY";
}

std::string pythonRunHelpers() {
    return R"PY(

LINES = sys.stdout  # where the JSON lines go (see claim_stdout)
RECORD_FIELDS = ("epoch", "warmup", "train_loss", "train_accuracy", "val_loss", "val_accuracy", "wall_ms",
                 "device_ms", "samples_per_s", "phases_ms", "elapsed_ms")


def claim_stdout():
    """Keeps the real stdout for the JSON lines; whatever a library prints goes to stderr instead."""
    global LINES
    LINES = globals().get("MLPWB_LINES")  # an interpreter kept between loops has claimed it already
    if LINES is not None:
        return
    sys.stdout.flush()
    LINES = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())


def cpu_name():
    """The CPU's model name, for the RunRecord (platform.processor() is empty on Linux)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def emit(line):
    LINES.write(json.dumps(line) + "\n")
    LINES.flush()


def finite(v):
    return v if v is not None and math.isfinite(v) else None


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", required=True, help="features, (rows, cols) .npy")
    p.add_argument("--labels", required=True, help="labels 0/1, (rows,) .npy")
    p.add_argument("--val-data", help="validation features .npy")
    p.add_argument("--val-labels", help="validation labels .npy")
    p.add_argument("--init-weights", help="initial weights (safetensors, layers.{i}.weight/bias)")
    p.add_argument("--epochs", type=int, default=EPOCHS)
    p.add_argument("--device", default=DEVICE, help="cpu or cuda")
    p.add_argument("--out", help="write a RunRecord (mlpwb.run/1) here")
    p.add_argument("--save-weights", help="write the trained weights here (safetensors)")
    return p.parse_args()


class EpochLog:
    """Emits one JSON line per epoch, keeps the RunRecord's epochs and notices a non-finite loss."""

    def __init__(self, rows_val):
        self.rows_val = rows_val
        self.epochs, self.status, self.message = [], "completed", ""
        self.run_start = time.perf_counter()

    def add(self, epoch, start, end, train, val):
        """train: (loss_sum, correct, samples); val: (loss_sum, correct) or None. False: stop."""
        loss_sum, correct, samples = train
        val_loss_sum, val_correct = val if val else (None, None)
        wall_ms = (end - start) * 1000.0
        line = {"epoch": epoch, "warmup": epoch == 1,
                "train_loss": finite(loss_sum / samples), "train_accuracy": correct / samples,
                "val_loss": finite(val_loss_sum / self.rows_val) if val else None,
                "val_accuracy": val_correct / self.rows_val if val else None,
                "wall_ms": wall_ms, "device_ms": None, "samples_per_s": samples / (wall_ms / 1000.0),
                "phases_ms": None, "elapsed_ms": (end - self.run_start) * 1000.0,
                "loss_sum": finite(loss_sum), "correct": correct, "samples": samples,
                "val_loss_sum": finite(val_loss_sum) if val else None, "val_correct": val_correct}
        emit(line)
        self.epochs.append({k: line[k] for k in RECORD_FIELDS})
        if line["loss_sum"] is None:
            self.status, self.message = "diverged", f"loss became non-finite at epoch {epoch}"
            return False
        return True

    def summary(self):
        timed = [e["wall_ms"] for e in self.epochs if not e["warmup"]] or [e["wall_ms"] for e in self.epochs]
        last = self.epochs[-1] if self.epochs else {}
        return {"median_epoch_ms": statistics.median(timed) if timed else None,
                "min_epoch_ms": min(timed) if timed else None,
                "total_ms": sum(e["wall_ms"] for e in self.epochs),
                "final": {k: last.get(k) for k in ("train_loss", "train_accuracy", "val_loss", "val_accuracy")}}

    def exit_code(self):
        return 0 if self.status == "completed" else 3


def write_record(args, x, facts, log):
    """The RunRecord (mlpwb.run/1) of this run at args.out."""
    record = {"schema": "mlpwb.run/1", "name": CONFIG.get("name") or LOOP_NAME, "status": log.status,
              "message": log.message, "config": CONFIG,
              "dataset": {"source": os.path.basename(args.data), "rows": x.shape[0] + log.rows_val,
                          "features": x.shape[1], "train_rows": x.shape[0], "val_rows": log.rows_val},
              "environment": {"backend": FRAMEWORK, **{k: str(v) for k, v in facts.items()}},
              "epochs": log.epochs, "summary": log.summary()}
    write_atomically(args.out, (json.dumps(record, indent=2) + "\n").encode())
)PY";
}

std::string scriptEnding(const std::string& tensors) {
    return "    if args.save_weights:\n"
           "        write_safetensors(args.save_weights, " +
           tensors +
           ")\n"
           "    if args.out:\n"
           "        write_record(args, x, facts, log)\n"
           "    return log.exit_code()\n"
           "\n"
           "\n"
           "if __name__ == \"__main__\":\n"
           "    sys.exit(main())\n";
}

}  // namespace wb
