// Enum <-> name tables, so every enum of a spec has one place that spells its values, and an
// unknown name is refused with the list of valid ones.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/platform/errors.h"

namespace wb {

template <typename E>
using EnumNames = std::vector<std::pair<E, std::string>>;

template <typename E>
std::string enumName(const EnumNames<E>& table, E value) {
    for (const auto& [v, n] : table)
        if (v == value) return n;
    return "?";
}

template <typename E>
std::vector<std::string> enumNameList(const EnumNames<E>& table) {
    std::vector<std::string> names;
    for (const auto& entry : table) names.push_back(entry.second);
    return names;
}

// Throws ConfigError("unknown <what> 'x' (valid: a, b, c)").
template <typename E>
E enumFromName(const EnumNames<E>& table, const std::string& name, const std::string& what) {
    std::string valid;
    for (const auto& [v, n] : table) {
        if (n == name) return v;
        valid += (valid.empty() ? "" : ", ") + n;
    }
    throw ConfigError("unknown " + what + " '" + name + "' (valid: " + valid + ")");
}

}  // namespace wb
