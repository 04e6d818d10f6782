// Safetensors for an MLP: an 8-byte little-endian header length N, N bytes of JSON header (padded
// with spaces to a multiple of 8), then the raw little-endian float32 data. Tensors are named like
// a PyTorch stack of nn.Linear layers, "layers.{i}.weight" (out, in) and "layers.{i}.bias" (out),
// so `safetensors.torch.load_file` reads what we write and we read what it writes (in any order).
#include "core/model/safetensors.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/data/file_bytes.h"
#include "core/platform/atomic_file.h"
#include "core/platform/errors.h"

namespace wb {
namespace {

// The data section is written with memcpy of host floats; the format is little-endian.
static_assert(std::endian::native == std::endian::little, "safetensors I/O assumes a little-endian host");

using Json = nlohmann::json;

std::string widthsText(const std::vector<int>& widths) {
    std::string s;
    for (std::size_t i = 0; i < widths.size(); ++i) s += (i ? "-" : "") + std::to_string(widths[i]);
    return s.empty() ? "(none)" : s;
}

// ---- writing ----

// The header for params: weight then bias of each layer, back to back in the data section.
std::string makeHeader(const MlpParams& params) {
    nlohmann::ordered_json header;
    header["__metadata__"] = {{"format", "pt"}};
    std::size_t offset = 0;
    auto add = [&](const std::string& name, std::vector<int> shape, std::size_t count) {
        header[name] = {{"dtype", "F32"}, {"shape", shape}, {"data_offsets", {offset, offset + 4 * count}}};
        offset += 4 * count;
    };
    for (std::size_t i = 0; i < params.layers.size(); ++i) {
        const LayerSlice& l = params.layers[i];
        const auto w = static_cast<std::size_t>(l.out) * static_cast<std::size_t>(l.in);
        add("layers." + std::to_string(i) + ".weight", {l.out, l.in}, w);
        add("layers." + std::to_string(i) + ".bias", {l.out}, static_cast<std::size_t>(l.out));
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');  // keeps the data 8-byte aligned
    return text;
}

void writeFile(std::ostream& out, const MlpParams& params) {
    const std::string header = makeHeader(params);
    unsigned char len[8];
    for (int b = 0; b < 8; ++b)
        len[b] = static_cast<unsigned char>(static_cast<std::uint64_t>(header.size()) >> (8 * b));
    out.write(reinterpret_cast<const char*>(len), 8);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    for (std::size_t i = 0; i < params.layers.size(); ++i) {
        const LayerSlice& l = params.layers[i];
        const auto w = static_cast<std::size_t>(l.out) * static_cast<std::size_t>(l.in);
        out.write(reinterpret_cast<const char*>(params.weight(i)), static_cast<std::streamsize>(4 * w));
        out.write(reinterpret_cast<const char*>(params.bias(i)), 4 * static_cast<std::streamsize>(l.out));
    }
}

// ---- reading ----

struct TensorRef {
    std::string name;
    std::vector<std::uint64_t> shape;
    std::uint64_t begin = 0;  // byte offsets into the data section
    std::uint64_t end = 0;
};

struct LayerRefs {
    const TensorRef* weight = nullptr;
    const TensorRef* bias = nullptr;
};

Json parseHeader(const std::string& path, std::string_view bytes, std::uint64_t& dataStart) {
    if (bytes.size() < 8)
        throw DataError(path, "too short for a safetensors file (" + std::to_string(bytes.size()) +
                                  " bytes; the header length alone takes 8)");
    std::uint64_t n = 0;
    for (int b = 7; b >= 0; --b) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(b)]);
    if (n > bytes.size() - 8)
        throw DataError(path, "header length " + std::to_string(n) + " is larger than the file (" +
                                  std::to_string(bytes.size()) + " bytes)");
    dataStart = 8 + n;
    Json header;
    try {
        header = Json::parse(bytes.substr(8, n));
    } catch (const Json::exception& e) {  // parse_error, or out_of_range for a number like 1e400
        throw DataError(path, std::string("header is not valid JSON: ") + e.what());
    }
    if (!header.is_object()) throw DataError(path, "header is not a JSON object");
    return header;
}

bool isIndex(const std::string& s) {
    if (s.empty() || s.size() > 6 || (s.size() > 1 && s[0] == '0')) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

// "layers.{i}.weight" / "layers.{i}.bias" -> i and which; false for any other name.
bool parseName(const std::string& name, std::size_t& index, bool& isWeight) {
    const std::string prefix = "layers.";
    if (name.rfind(prefix, 0) != 0) return false;
    const auto dot = name.find('.', prefix.size());
    if (dot == std::string::npos) return false;
    const std::string idx = name.substr(prefix.size(), dot - prefix.size());
    const std::string kind = name.substr(dot + 1);
    if (!isIndex(idx) || (kind != "weight" && kind != "bias")) return false;
    index = std::stoul(idx);
    isWeight = kind == "weight";
    return true;
}

[[noreturn]] void tensorError(const std::string& path, const std::string& name, const std::string& why) {
    throw DataError(path, "tensor " + name + ": " + why);
}

std::uint64_t offsetAt(const std::string& path, const std::string& name, const Json& t, std::size_t i) {
    const auto offsets = t.find("data_offsets");
    if (offsets == t.end() || !offsets->is_array() || offsets->size() != 2 || !(*offsets)[0].is_number_unsigned() ||
        !(*offsets)[1].is_number_unsigned())
        tensorError(path, name, "data_offsets must be two byte offsets [begin, end]");
    return (*offsets)[i].get<std::uint64_t>();
}

TensorRef parseTensor(const std::string& path, const std::string& name, const Json& t, std::uint64_t dataSize) {
    if (!t.is_object()) tensorError(path, name, "its entry is not a JSON object");
    const auto dtype = t.find("dtype");
    if (dtype == t.end() || !dtype->is_string()) tensorError(path, name, "no dtype");
    if (*dtype != "F32") tensorError(path, name, "dtype " + dtype->get<std::string>() + " is not supported (only F32)");
    const auto shape = t.find("shape");
    if (shape == t.end() || !shape->is_array()) tensorError(path, name, "no shape");
    TensorRef ref;
    ref.name = name;
    std::uint64_t bytes = 4;  // of the whole tensor; checked against dataSize before it can overflow
    // Checked before the shape is printed: dump() recurses, and a deeply nested shape would overflow the stack.
    for (const Json& d : *shape)
        if (!d.is_number_unsigned())
            tensorError(path, name,
                        std::string("shape is not a list of sizes (an element is of JSON type ") + d.type_name() + ")");
    const std::string shapeText = "shape " + shape->dump();
    for (const Json& d : *shape) {
        const auto v = d.get<std::uint64_t>();
        if (v == 0) tensorError(path, name, shapeText + " has a zero size");
        if (v > dataSize / bytes) tensorError(path, name, shapeText + " is larger than the data");
        bytes *= v;
        ref.shape.push_back(v);
    }
    ref.begin = offsetAt(path, name, t, 0);
    ref.end = offsetAt(path, name, t, 1);
    const std::string span = "data_offsets [" + std::to_string(ref.begin) + ", " + std::to_string(ref.end) + "]";
    if (ref.begin > ref.end || ref.end > dataSize)
        tensorError(path, name,
                    span + " are not a range inside the data section of " + std::to_string(dataSize) + " bytes");
    if (ref.end - ref.begin != bytes)
        tensorError(path, name,
                    span + " span " + std::to_string(ref.end - ref.begin) + " bytes but " + shapeText +
                        " of F32 needs " + std::to_string(bytes));
    return ref;
}

std::string someNames(const Json& header) {
    std::string s;
    int shown = 0;
    for (const auto& [key, value] : header.items()) {
        if (key == "__metadata__") continue;
        if (shown++ == 4) return s + ", ...";
        s += (s.empty() ? "" : ", ") + key;
    }
    return s.empty() ? "no tensors" : s;
}

// Finds layers.{i}.weight/bias, checks each tensor, and returns them by index (0..L-1).
std::map<std::size_t, LayerRefs> collectLayers(const std::string& path, const Json& header, std::uint64_t dataSize,
                                               std::vector<TensorRef>& store) {
    store.reserve(header.size());  // refs below point into store: no reallocation allowed
    std::map<std::size_t, LayerRefs> layers;
    for (const auto& [key, value] : header.items()) {
        std::size_t index = 0;
        bool isWeight = false;
        if (key == "__metadata__" || !parseName(key, index, isWeight)) continue;  // not ours
        store.push_back(parseTensor(path, key, value, dataSize));
        (isWeight ? layers[index].weight : layers[index].bias) = &store.back();
    }
    if (layers.empty()) throw DataError(path, "no tensor named layers.0.weight (found: " + someNames(header) + ")");
    return layers;
}

// Tensors may not share bytes (safetensors refuses to save shared tensors), so the parameters never
// take more memory than the file, whatever the header claims.
void checkNoOverlap(const std::string& path, const std::vector<TensorRef>& store) {
    std::vector<const TensorRef*> sorted;
    sorted.reserve(store.size());
    for (const TensorRef& t : store) sorted.push_back(&t);
    std::sort(sorted.begin(), sorted.end(), [](const TensorRef* a, const TensorRef* b) { return a->begin < b->begin; });
    for (std::size_t i = 1; i < sorted.size(); ++i)
        if (sorted[i]->begin < sorted[i - 1]->end)
            throw DataError(
                path, "tensors " + sorted[i - 1]->name + " and " + sorted[i]->name + " overlap in the data section");
}

// The widths {in, h1, ..., 1} from the layers, after checking they are complete and chain.
std::vector<int> checkLayers(const std::string& path, const std::map<std::size_t, LayerRefs>& layers) {
    std::vector<int> widths;
    std::size_t expect = 0;
    for (const auto& [index, refs] : layers) {
        const std::string name = "layers." + std::to_string(expect);
        if (index != expect) throw DataError(path, "layer indices are not contiguous from 0: " + name + " is missing");
        if (!refs.weight) throw DataError(path, name + ".weight is missing");
        if (!refs.bias) throw DataError(path, name + ".bias is missing");
        const auto& ws = refs.weight->shape;
        if (ws.size() != 2) throw DataError(path, name + ".weight is not 2-D [out, in]");
        if (refs.bias->shape.size() != 1 || refs.bias->shape[0] != ws[0])
            throw DataError(path, name + ".bias does not have shape [" + std::to_string(ws[0]) + "]");
        if (ws[0] > 1u << 20 || ws[1] > 1u << 20) throw DataError(path, name + ".weight is too wide for an MLP layer");
        if (widths.empty()) widths.push_back(static_cast<int>(ws[1]));
        if (static_cast<std::uint64_t>(widths.back()) != ws[1])
            throw DataError(path, name + ".weight takes " + std::to_string(ws[1]) +
                                      " inputs but the layer before gives " + std::to_string(widths.back()));
        widths.push_back(static_cast<int>(ws[0]));
        ++expect;
    }
    if (widths.back() < 1 || static_cast<std::size_t>(widths.back()) > kMaxClasses)
        throw DataError(path, "the last layer has " + std::to_string(widths.back()) +
                                  " outputs; a model has 1 (one logit, or a regression's value) up to " +
                                  std::to_string(kMaxClasses) + " (one per class)");
    return widths;
}

void copyTensor(std::string_view bytes, std::uint64_t dataStart, const TensorRef& t, float* dst) {
    std::memcpy(dst, bytes.data() + dataStart + t.begin, t.end - t.begin);
}

}  // namespace

void saveSafetensors(const std::string& path, const MlpParams& params) {
    std::ostringstream out(std::ios::binary);
    writeFile(out, params);
    writeFileAtomically(path, out.str(), "weights");
}

MlpParams loadSafetensors(const std::string& path) {
    const FileBytes file = readFileBytes(path);
    return parseSafetensors(file.view(), path);
}

MlpParams parseSafetensors(std::string_view bytes, const std::string& name) {
    std::uint64_t dataStart = 0;
    const Json header = parseHeader(name, bytes, dataStart);
    if (auto meta = header.find("__metadata__"); meta != header.end() && !meta->is_object())
        throw DataError(name, "__metadata__ is not a JSON object");
    std::vector<TensorRef> store;
    const auto layers = collectLayers(name, header, bytes.size() - dataStart, store);
    checkNoOverlap(name, store);
    MlpParams params = MlpParams::zeros(checkLayers(name, layers));
    for (const auto& [index, refs] : layers) {
        copyTensor(bytes, dataStart, *refs.weight, params.weight(index));
        copyTensor(bytes, dataStart, *refs.bias, params.bias(index));
    }
    // An inf or NaN would train and be saved again as if it were a weight.
    for (std::size_t i = 0; i < params.values.size(); ++i)
        if (!std::isfinite(params.values[i]))
            throw DataError(name, "holds a non-finite weight (" + std::to_string(params.values[i]) + " at parameter " +
                                      std::to_string(i) + ")");
    return params;
}

void checkParamsMatch(const MlpParams& params, const ModelSpec& spec, std::size_t inputs) {
    const std::vector<int> expected = spec.widths(inputs);
    const std::vector<int> found = params.widths();
    if (found != expected)
        throw ConfigError("The weights have layer widths " + widthsText(found) + " but the model expects " +
                          widthsText(expected) + " (" + std::to_string(inputs) + " inputs).");
}

}  // namespace wb
