#include "trained_weights.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include <nlohmann/json.hpp>

#include "errors.h"

namespace wb {

namespace {
std::string fileBytes(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw IoError("cannot read " + path);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// Copies tensor `name` of shape `shape` from the data section into `dst`.
void copyTensor(const std::string& path, const nlohmann::json& header, const std::string& data, const std::string& name,
                const std::vector<std::size_t>& shape, float* dst) {
    const auto it = header.find(name);
    if (it == header.end()) throw DataError(path, name + " is missing");
    if (it->value("dtype", "") != "F32") throw DataError(path, name + " is not F32");
    if (it->at("shape").get<std::vector<std::size_t>>() != shape)
        throw DataError(path, name + " does not have the shape the model was given");
    const auto offsets = it->at("data_offsets").get<std::vector<std::size_t>>();
    std::size_t count = 1;
    for (const std::size_t d : shape) count *= d;
    if (offsets.size() != 2 || offsets[1] > data.size() || offsets[1] - offsets[0] != count * sizeof(float))
        throw DataError(path, name + " lies outside the file");
    std::memcpy(dst, data.data() + offsets[0], count * sizeof(float));
}
}  // namespace

MlpParams readTrainedWeights(const std::string& path, const MlpParams& like) {
    const std::string bytes = fileBytes(path);
    std::uint64_t length = 0;
    if (bytes.size() < 8) throw DataError(path, "too short for a safetensors file");
    std::memcpy(&length, bytes.data(), 8);  // little-endian, as every machine this runs on
    if (length > bytes.size() - 8) throw DataError(path, "the header runs past the end of the file");
    nlohmann::json header;
    try {
        header = nlohmann::json::parse(bytes.substr(8, length));
    } catch (const nlohmann::json::exception& e) {
        throw DataError(path, std::string("the header is not JSON: ") + e.what());
    }
    const std::string data = bytes.substr(8 + length);
    MlpParams params = like;
    try {
        for (std::size_t i = 0; i < params.layers.size(); ++i) {
            const LayerSlice& l = params.layers[i];
            const std::string name = "layers." + std::to_string(i);
            const auto out = static_cast<std::size_t>(l.out), in = static_cast<std::size_t>(l.in);
            copyTensor(path, header, data, name + ".weight", {out, in}, params.weight(i));
            copyTensor(path, header, data, name + ".bias", {out}, params.bias(i));
        }
    } catch (const nlohmann::json::exception& e) {
        throw DataError(path, std::string("a tensor's entry is malformed: ") + e.what());
    }
    return params;
}

}  // namespace wb
