// Reading fields of a loaded JSON document so that an error names where it is: a loader's message
// is `epochs[12].wall_ms: expected a number, found a string`, not nlohmann's bare
// `[json.exception.type_error.302] type must be number, but is string`.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/platform/errors.h"

namespace wb {

// A field that is missing or of the wrong type; path() is where ("epochs[12].wall_ms").
class JsonFieldError : public Error {
public:
    JsonFieldError(std::string path, const std::string& problem);
    const std::string& path() const { return path_; }
    const std::string& problem() const { return problem_; }
    // The same problem one level further out: within("epochs[12]") turns "wall_ms" into "epochs[12].wall_ms".
    JsonFieldError within(const std::string& outer) const;

private:
    std::string path_;
    std::string problem_;
};

// "a number", "a string", ... for the JSON kind a C++ type reads from.
template <typename T>
const char* expectedKind() {
    if constexpr (std::is_same_v<T, bool>)
        return "true or false";
    else if constexpr (std::is_arithmetic_v<T>)
        return "a number";
    else if constexpr (std::is_convertible_v<T, std::string>)
        return "a string";
    else
        return "a value of another kind";
}

// "a number", "null", ... for what a document holds.
const char* kindOf(const nlohmann::json& j);

// A JSON number that T cannot hold, or nullopt: converting it would be undefined behaviour (5.6e25
// as an epoch number, 1e300 as a float, found by fuzz_records) or would silently wrap (2^40 as an
// int). A fraction is no count either; a whole float (12.0) is read as an integer.
template <typename T>
std::optional<std::string> numberOutOfRange(const nlohmann::json& v) {
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
        if (!v.is_number()) return std::nullopt;
        const double d = v.get<double>();
        if constexpr (std::is_integral_v<T>) {
            const double end = std::ldexp(1.0, std::numeric_limits<T>::digits);  // T's max + 1
            const double low = std::is_signed_v<T> ? -end : 0.0;
            const bool fits = v.is_number_unsigned()  ? std::in_range<T>(v.get<std::uint64_t>())
                              : v.is_number_integer() ? std::in_range<T>(v.get<std::int64_t>())
                                                      : d >= low && d < end && d == std::floor(d);
            if (!fits)
                return "expected an integer from " + std::to_string(std::numeric_limits<T>::min()) + " to " +
                       std::to_string(std::numeric_limits<T>::max()) + ", found " + v.dump();
        } else if (std::isfinite(d) && std::fabs(d) > static_cast<double>(std::numeric_limits<T>::max())) {
            return "expected a number within ±" + nlohmann::json(double{std::numeric_limits<T>::max()}).dump() +
                   ", found " + v.dump();
        }
    }
    return std::nullopt;
}

// v as T; `path` names it in the error (JsonFieldError(path, "expected a number, found a string")).
template <typename T>
T fieldValue(const nlohmann::json& v, const std::string& path) {
    if (const auto problem = numberOutOfRange<T>(v)) throw JsonFieldError(path, *problem);
    try {
        return v.get<T>();
    } catch (const nlohmann::json::exception&) {
        throw JsonFieldError(path, std::string("expected ") + expectedKind<T>() + ", found " + kindOf(v));
    }
}

// j[key] as T: JsonFieldError(key, "missing") or (key, "expected a number, found a string").
template <typename T>
T requiredField(const nlohmann::json& j, const char* key) {
    if (!j.is_object() || !j.contains(key)) throw JsonFieldError(key, "missing");
    return fieldValue<T>(j.at(key), key);
}

// j[key] as a list of T, each element checked as fieldValue checks one: "hidden[2]: expected an
// integer ..., found 1e30".
template <typename T>
std::vector<T> requiredList(const nlohmann::json& j, const char* key) {
    if (!j.is_object() || !j.contains(key)) throw JsonFieldError(key, "missing");
    const nlohmann::json& list = j.at(key);
    if (!list.is_array()) throw JsonFieldError(key, std::string("expected a list, found ") + kindOf(list));
    std::vector<T> out;
    out.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i)
        out.push_back(fieldValue<T>(list[i], std::string(key) + "[" + std::to_string(i) + "]"));
    return out;
}

// j[key] as T, nullopt when absent or null (peers write null for what they cannot measure).
template <typename T>
std::optional<T> optionalField(const nlohmann::json& j, const char* key) {
    if (!j.is_object() || !j.contains(key) || j.at(key).is_null()) return std::nullopt;
    return requiredField<T>(j, key);
}

// j[key] as T, `fallback` when absent: nlohmann's j.value(), with the key named in its error.
template <typename T>
T fieldOr(const nlohmann::json& j, const char* key, T fallback) {
    if (!j.is_object() || !j.contains(key)) return fallback;
    return requiredField<T>(j, key);
}

// Runs `read()`; a JsonFieldError or nlohmann exception from it is rethrown as a JsonFieldError
// whose path begins with `path` ("config", "epochs[12]").
template <typename F>
auto withinField(const std::string& path, F&& read) {
    try {
        return read();
    } catch (const JsonFieldError& e) {
        throw e.within(path);
    } catch (const nlohmann::json::exception& e) {
        throw JsonFieldError(path, e.what());
    } catch (const ConfigError& e) {  // a name no enum knows ("activation 'sigmoidx'")
        throw JsonFieldError(path, e.what());
    }
}

// Writing: a value that may be missing as itself or as JSON null (a median of no epochs, a metric
// not measured), the form the readers above take back as nullopt.
inline nlohmann::json orNull(const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace wb
