#include "core/data/dataset.h"

#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>

#include <openssl/evp.h>

namespace wb {

namespace {

struct DigestContextFree {
    void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

// Fixed-width little-endian so the hash is the same on every machine.
std::array<unsigned char, 8> littleEndian(std::uint64_t v) {
    std::array<unsigned char, 8> out{};
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<unsigned char>(v >> (8 * i));
    return out;
}

}  // namespace

void Dataset::computeHash() {
    std::unique_ptr<EVP_MD_CTX, DigestContextFree> ctx(EVP_MD_CTX_new());
    if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("SHA-256 is not available from OpenSSL");
    const auto r = littleEndian(rows);
    const auto c = littleEndian(cols);
    // float32 bytes as stored; every platform this builds on is little-endian IEEE 754.
    EVP_DigestUpdate(ctx.get(), r.data(), r.size());
    EVP_DigestUpdate(ctx.get(), c.data(), c.size());
    EVP_DigestUpdate(ctx.get(), features.data(), features.size() * sizeof(float));
    EVP_DigestUpdate(ctx.get(), labels.data(), labels.size() * sizeof(float));
    // The same numbers read as classes or as targets are different data; binary adds nothing, so
    // the hashes of binary data sets stay what they were before tasks existed.
    if (task != Task::Binary) {
        const std::string t = toString(task);
        EVP_DigestUpdate(ctx.get(), t.data(), t.size());
    }

    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestFinal_ex(ctx.get(), digest, &length);
    static constexpr char kHex[] = "0123456789abcdef";
    hash = "sha256:";
    for (unsigned int i = 0; i < length; ++i) {
        hash += kHex[digest[i] >> 4];
        hash += kHex[digest[i] & 0xF];
    }
}

double Dataset::positiveFraction() const {
    if (labels.empty()) return 0.0;
    std::size_t positives = 0;
    for (float y : labels) positives += y > 0.5f ? 1 : 0;
    return static_cast<double>(positives) / static_cast<double>(labels.size());
}

}  // namespace wb
