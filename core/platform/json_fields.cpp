#include "core/platform/json_fields.h"

namespace wb {

namespace {
std::string joined(const std::string& outer, const std::string& inner) {
    if (inner.empty()) return outer;
    if (outer.empty() || inner.front() == '[') return outer + inner;
    return outer + "." + inner;
}
}  // namespace

JsonFieldError::JsonFieldError(std::string path, const std::string& problem)
    : Error(path.empty() ? problem : path + ": " + problem), path_(std::move(path)), problem_(problem) {}

JsonFieldError JsonFieldError::within(const std::string& outer) const {
    return JsonFieldError(joined(outer, path_), problem_);
}

const char* kindOf(const nlohmann::json& j) {
    switch (j.type()) {
        case nlohmann::json::value_t::null: return "null";
        case nlohmann::json::value_t::boolean: return "true or false";
        case nlohmann::json::value_t::string: return "a string";
        case nlohmann::json::value_t::array: return "a list";
        case nlohmann::json::value_t::object: return "an object";
        case nlohmann::json::value_t::number_integer:
        case nlohmann::json::value_t::number_unsigned:
        case nlohmann::json::value_t::number_float: return "a number";
        default: return "something else";
    }
}

}  // namespace wb
