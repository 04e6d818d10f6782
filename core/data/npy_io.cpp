// NumPy .npy reader and writer. Format: "\x93NUMPY", major, minor, header length (uint16 for
// version 1, uint32 for 2 and 3), a Python dict literal padded with spaces and ended by '\n',
// then the raw array data.
#include "core/data/npy_io.h"

#include <bit>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

#include "core/data/file_bytes.h"
#include "core/data/label_coding.h"
#include "core/platform/errors.h"

namespace wb {

static_assert(std::endian::native == std::endian::little, "the .npy code assumes a little-endian host");

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;

struct NpyHeader {
    std::string descr;
    bool fortranOrder = false;
    std::vector<std::size_t> shape;
};

std::string shapeText(const std::vector<std::size_t>& shape) {
    std::string out = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
    return out + (shape.size() == 1 ? ",)" : ")");
}

std::uint32_t readLittle(const unsigned char* p, std::size_t bytes) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < bytes; ++i) v |= static_cast<std::uint32_t>(p[i]) << (8 * i);
    return v;
}

// The text after `'key':` in the header dict (numpy writes single quotes; accept double too).
std::optional<std::string_view> valueAfterKey(std::string_view dict, std::string_view key) {
    for (const char quote : {'\'', '"'}) {
        const std::string quoted = quote + std::string(key) + quote;
        std::size_t at = dict.find(quoted);
        if (at == std::string_view::npos) continue;
        at = dict.find(':', at + quoted.size());
        if (at == std::string_view::npos) return std::nullopt;
        std::string_view rest = dict.substr(at + 1);
        while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
        return rest;
    }
    return std::nullopt;
}

NpyHeader parseHeader(std::string_view dict, const std::string& path) {
    const auto bad = [&](const std::string& what) {
        return DataError(path, 0, 0, std::string(dict), "malformed .npy header: " + what);
    };
    NpyHeader h;
    const auto descr = valueAfterKey(dict, "descr");
    if (descr && descr->starts_with("["))
        throw DataError(path, "unsupported dtype: a structured array; save a plain float32 array instead");
    if (!descr || descr->empty() || (descr->front() != '\'' && descr->front() != '"')) throw bad("no 'descr'");
    const std::size_t close = descr->find(descr->front(), 1);
    if (close == std::string_view::npos) throw bad("unterminated 'descr'");
    h.descr = std::string(descr->substr(1, close - 1));

    const auto fortran = valueAfterKey(dict, "fortran_order");
    if (!fortran) throw bad("no 'fortran_order'");
    if (fortran->starts_with("True"))
        h.fortranOrder = true;
    else if (!fortran->starts_with("False"))
        throw bad("'fortran_order' is neither True nor False");

    const auto shape = valueAfterKey(dict, "shape");
    if (!shape || shape->empty() || shape->front() != '(') throw bad("no 'shape' tuple");
    const std::size_t end = shape->find(')');
    if (end == std::string_view::npos) throw bad("unterminated 'shape' tuple");
    std::string_view dims = shape->substr(1, end - 1);
    while (!dims.empty()) {
        while (!dims.empty() && (dims.front() == ' ' || dims.front() == ',')) dims.remove_prefix(1);
        if (dims.empty()) break;
        std::size_t n = 0;
        std::size_t used = 0;
        for (; used < dims.size() && dims[used] >= '0' && dims[used] <= '9'; ++used) {
            const auto digit = static_cast<std::size_t>(dims[used] - '0');
            if (n > (SIZE_MAX - digit) / 10) throw DataError(path, "a dimension of 'shape' is too large");
            n = n * 10 + digit;
        }
        if (used == 0) throw bad("a dimension of 'shape' is not a number");
        if (used < dims.size() && dims[used] == 'L') ++used;  // Python 2 long literals
        h.shape.push_back(n);
        dims.remove_prefix(used);
    }
    return h;
}

// Checks and returns the element size in bytes for the dtypes the workbench reads.
std::size_t itemSize(const NpyHeader& h, const std::string& path) {
    if (h.descr == "<f4") return 4;
    if (h.descr == "<f8") return 8;
    throw DataError(path, "unsupported dtype '" + h.descr +
                              "': only float32 ('<f4') and float64 ('<f8') are read; convert with "
                              "a.astype(np.float32)");
}

void checkLayout(const NpyHeader& h, const std::string& path) {
    if (h.fortranOrder)
        throw DataError(path, "Fortran-order arrays are not supported; save np.ascontiguousarray(a) instead");
    if (h.shape.empty() || h.shape.size() > 2)
        throw DataError(path, "only 1-D and 2-D arrays are read; this one has shape " + shapeText(h.shape));
}

std::vector<float> convert(const char* data, std::size_t count, std::size_t size, const std::string& path) {
    std::vector<float> out(count);
    if (size == 4) {
        if (count) std::memcpy(out.data(), data, count * 4);
        return out;
    }
    for (std::size_t i = 0; i < count; ++i) {
        double v = 0;
        std::memcpy(&v, data + i * 8, 8);
        if (std::isfinite(v) && std::fabs(v) > FLT_MAX)
            throw DataError(path, 0, 0, std::to_string(v),
                            "value at flat index " + std::to_string(i) + " is out of range for float32");
        out[i] = static_cast<float>(v);
    }
    return out;
}

std::string numberText(float v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
    return buf;
}

}  // namespace

NpyArray readNpy(const std::string& path) {
    const FileBytes file = readFileBytes(path);
    return parseNpy(file.view(), path);
}

NpyArray parseNpy(std::string_view bytes, const std::string& name) {
    const auto* raw = reinterpret_cast<const unsigned char*>(bytes.data());
    if (bytes.size() < kMagicSize + 4 || std::memcmp(raw, kMagic, kMagicSize) != 0)
        throw DataError(name, "not a .npy file (the magic string \\x93NUMPY is missing)");
    const int major = raw[6];
    const int minor = raw[7];
    if (major < 1 || major > 3)
        throw DataError(name, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor));
    const std::size_t lengthBytes = major == 1 ? 2 : 4;
    const std::size_t headerStart = kMagicSize + 2 + lengthBytes;
    if (bytes.size() < headerStart) throw DataError(name, "truncated .npy file: the header length is cut off");
    const std::size_t headerLength = readLittle(raw + kMagicSize + 2, lengthBytes);
    if (bytes.size() < headerStart + headerLength) throw DataError(name, "truncated .npy file: the header is cut off");

    const NpyHeader header = parseHeader(bytes.substr(headerStart, headerLength), name);
    const std::size_t size = itemSize(header, name);
    checkLayout(header, name);

    std::size_t count = 1;
    for (std::size_t d : header.shape) {
        if (d != 0 && count > SIZE_MAX / d / size)
            throw DataError(name, "shape " + shapeText(header.shape) + " is too large");
        count *= d;
    }
    const std::size_t dataStart = headerStart + headerLength;
    const std::size_t available = bytes.size() - dataStart;
    if (available < count * size) {
        throw DataError(name, "truncated .npy file: shape " + shapeText(header.shape) + " needs " +
                                  std::to_string(count * size) + " bytes of data, the file has " +
                                  std::to_string(available));
    }
    return NpyArray{header.shape, convert(bytes.data() + dataStart, count, size, name)};
}

void writeNpy(const std::string& path, const float* data, const std::vector<std::size_t>& shape) {
    if (shape.empty() || shape.size() > 2)
        throw IoError("cannot write " + path + ": only 1-D and 2-D arrays are written, not shape " + shapeText(shape));
    std::size_t count = 1;
    for (std::size_t d : shape) count *= d;

    std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shapeText(shape) + ", }";
    // numpy pads the header with spaces so the data starts on a 64-byte boundary.
    const std::size_t prefix = kMagicSize + 2 + 2;
    const std::size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
    dict.append(total - prefix - dict.size() - 1, ' ');
    dict += '\n';

    std::string head(kMagic, kMagicSize);
    head += '\x01';
    head += '\x00';
    head += static_cast<char>(dict.size() & 0xFF);
    head += static_cast<char>(dict.size() >> 8);
    head += dict;

    // Write beside the target and rename, so a failure never leaves half a file under its name.
    const std::string temp = path + ".tmp";
    std::FILE* f = std::fopen(temp.c_str(), "wb");
    if (!f) throw IoError("cannot write " + path + ": " + std::strerror(errno));
    bool ok = std::fwrite(head.data(), 1, head.size(), f) == head.size();
    ok = ok && (count == 0 || std::fwrite(data, sizeof(float), count, f) == count);
    const int savedErrno = errno;
    ok = (std::fclose(f) == 0) && ok;
    std::error_code ec;
    if (ok) std::filesystem::rename(temp, path, ec);
    if (!ok || ec) {
        std::filesystem::remove(temp, ec);
        throw IoError("cannot write " + path + ": " + std::strerror(savedErrno ? savedErrno : EIO));
    }
}

namespace {

void checkFeatures(const Dataset& d, const std::string& path) {
    for (std::size_t i = 0; i < d.features.size(); ++i) {
        if (std::isfinite(d.features[i])) continue;
        throw DataError(path, 0, 0, numberText(d.features[i]),
                        "feature at row " + std::to_string(i / d.cols) + ", column " + std::to_string(i % d.cols) +
                            " (0-based) is not a finite number");
    }
}

// (rows, cols + 1) -> features (rows, cols) and labels = the last column.
void splitLastColumn(const NpyArray& a, Dataset& d, const std::string& path) {
    if (a.shape.size() != 2 || a.shape[1] < 2)
        throw DataError(path,
                        "a single-file .npy data set must be 2-D (rows, features + label) with at least "
                        "two columns; this one has shape " +
                            shapeText(a.shape));
    d.rows = a.shape[0];
    d.cols = a.shape[1] - 1;
    d.features.resize(d.rows * d.cols);
    d.labels.resize(d.rows);
    for (std::size_t r = 0; r < d.rows; ++r) {
        const float* row = a.data.data() + r * a.shape[1];
        std::memcpy(d.features.data() + r * d.cols, row, d.cols * sizeof(float));
        d.labels[r] = row[d.cols];
    }
}

void takePair(NpyArray&& x, NpyArray&& y, Dataset& d, const std::string& xPath, const std::string& yPath) {
    d.rows = x.shape[0];
    d.cols = x.shape.size() == 2 ? x.shape[1] : 1;  // a 1-D features array is one feature column
    if (y.shape.size() == 2 && y.shape[1] != 1)
        throw DataError(yPath, "labels must have shape (rows,) or (rows, 1); this one has shape " + shapeText(y.shape));
    if (y.shape[0] != d.rows)
        throw DataError(yPath, "has " + std::to_string(y.shape[0]) + " labels but " + xPath + " has " +
                                   std::to_string(d.rows) + " rows");
    d.features = std::move(x.data);
    d.labels = std::move(y.data);
}

// Features and labels -> a checked Dataset; with labelsPath empty the label is the last column of x.
Dataset makeDataset(NpyArray&& x, std::optional<NpyArray>&& y, const std::string& featuresPath,
                    const std::string& labelsPath, TaskChoice task) {
    Dataset d;
    if (!y)
        splitLastColumn(x, d, featuresPath);
    else
        takePair(std::move(x), std::move(*y), d, featuresPath, labelsPath);

    if (d.rows == 0) throw DataError(featuresPath, "the array has no rows");
    if (d.cols == 0) throw DataError(featuresPath, "the array has no feature columns");
    checkFeatures(d, featuresPath);

    d.source = featuresPath;
    for (std::size_t j = 0; j < d.cols; ++j) {
        d.columnNames.emplace_back("x");
        d.columnNames.back() += std::to_string(j);  // appended: GCC 12 warns falsely on "x" + s
    }
    d.labelName = "label";
    LabelColumn labels;
    labels.values = std::move(d.labels);
    codeLabels(std::move(labels), task, y ? labelsPath : featuresPath, d);
    d.computeHash();
    return d;
}

}  // namespace

Dataset loadNpyDataset(const std::string& featuresPath, const std::string& labelsPath, TaskChoice task) {
    NpyArray x = readNpy(featuresPath);
    std::optional<NpyArray> y;
    if (!labelsPath.empty()) y = readNpy(labelsPath);
    return makeDataset(std::move(x), std::move(y), featuresPath, labelsPath, task);
}

Dataset parseNpyDataset(std::string_view features, const std::string& featuresName, std::string_view labels,
                        const std::string& labelsName, TaskChoice task) {
    NpyArray x = parseNpy(features, featuresName);
    std::optional<NpyArray> y;
    if (!labelsName.empty()) y = parseNpy(labels, labelsName);
    return makeDataset(std::move(x), std::move(y), featuresName, labelsName, task);
}

}  // namespace wb
