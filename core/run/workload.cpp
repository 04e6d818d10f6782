#include "core/run/workload.h"

namespace wb {

namespace {
using nlohmann::json;

const json& section(const RunRecord& r, const char* key) {
    static const json kEmpty = json::object();
    const auto it = r.config.find(key);
    return (it != r.config.end() && it->is_object()) ? *it : kEmpty;
}

// One value of the config, or null where the record does not say.
json field(const RunRecord& r, const char* sectionName, const char* key) {
    const json& s = section(r, sectionName);
    const auto it = s.find(key);
    return it == s.end() ? json() : *it;
}

std::string dataName(const RunRecord& r) {
    return r.dataset.source.empty() ? "unnamed data" : r.dataset.source;
}

std::optional<std::string> dataDifference(const RunRecord& a, const RunRecord& b) {
    const auto& da = a.dataset;
    const auto& db = b.dataset;
    const bool hashes = !da.hash.empty() && !db.hash.empty();
    if ((hashes && da.hash != db.hash) || da.features != db.features ||
        (!hashes && (da.source != db.source || da.rows != db.rows)))
        return "different data (" + dataName(b) + ", " + std::to_string(db.rows) + " rows vs " + dataName(a) + ", " +
               std::to_string(da.rows) + " rows)";
    if (da.trainRows != db.trainRows || da.valRows != db.valRows)
        return "a different split (" + std::to_string(db.trainRows) + " training rows vs " +
               std::to_string(da.trainRows) + ")";
    return std::nullopt;
}

std::string modelText(const RunRecord& r) {
    std::string widths;
    for (const auto& w : field(r, "model", "hidden")) widths += (widths.empty() ? "" : "-") + w.dump();
    const json activation = field(r, "model", "activation");
    return widths + " " + (activation.is_string() ? activation.get<std::string>() : "?");
}

// Ours write "type", the peers "kind".
json optimizerKind(const RunRecord& r) {
    const json type = field(r, "optimizer", "type");
    return type.is_null() ? field(r, "optimizer", "kind") : type;
}

// Differences in values both records state; a value one of them leaves out is not a difference.
bool differs(const json& a, const json& b) {
    if (a.is_null() || b.is_null()) return false;
    if (a.is_number() && b.is_number()) return a.get<double>() != b.get<double>();
    return a != b;
}

std::optional<std::string> setupDifference(const RunRecord& a, const RunRecord& b) {
    if (differs(field(a, "model", "hidden"), field(b, "model", "hidden")) ||
        differs(field(a, "model", "activation"), field(b, "model", "activation")))
        return "a different model (" + modelText(b) + " vs " + modelText(a) + ")";
    if (differs(optimizerKind(a), optimizerKind(b)))
        return "a different optimizer (" + optimizerKind(b).dump() + " vs " + optimizerKind(a).dump() + ")";
    for (const char* key : {"lr", "beta1", "beta2", "eps", "weight_decay", "momentum", "nesterov", "alpha", "centered"})
        if (differs(field(a, "optimizer", key), field(b, "optimizer", key)))
            return std::string("a different optimizer setting (") + key + " " + field(b, "optimizer", key).dump() +
                   " vs " + field(a, "optimizer", key).dump() + ")";
    const json batchA = field(a, "train", "batch_size"), batchB = field(b, "train", "batch_size");
    if (differs(batchA, batchB)) return "a different batch size (" + batchB.dump() + " vs " + batchA.dump() + ")";
    const json epochsA = field(a, "train", "epochs"), epochsB = field(b, "train", "epochs");
    if (differs(epochsA, epochsB)) return "different epochs (" + epochsB.dump() + " vs " + epochsA.dump() + ")";
    return std::nullopt;
}
}  // namespace

std::optional<std::string> workloadDifference(const RunRecord& baseline, const RunRecord& other) {
    if (auto d = dataDifference(baseline, other)) return d;
    return setupDifference(baseline, other);
}

}  // namespace wb
