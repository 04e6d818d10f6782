// `mlpwb dataset`: load a data set as `train` would, describe it, and optionally export it as .npy
// (so peers in bench/ train on exactly the same rows).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/train_options.h"
#include "core/data/data_source.h"
#include "core/data/npy_io.h"

namespace wb::cli {

namespace {
struct DatasetOptions {
    DataOptions source;
    std::string npyOut;
};

// Each class: its label, its code and its share of the rows.
void printClasses(const Dataset& ds) {
    std::vector<std::size_t> counts(ds.classNames.size(), 0);
    for (float y : ds.labels) ++counts[static_cast<std::size_t>(y)];
    for (std::size_t k = 0; k < counts.size(); ++k)
        std::printf("class %zu:  %s: %zu rows (%.2f %%)\n", k, ds.classNames[k].c_str(), counts[k],
                    100.0 * static_cast<double>(counts[k]) / static_cast<double>(ds.rows));
}

// A regression target's range and spread, in its own units.
void printTarget(const std::vector<float>& y) {
    const auto [lo, hi] = std::minmax_element(y.begin(), y.end());
    double mean = 0.0, sq = 0.0;
    for (float v : y) mean += v;
    mean /= static_cast<double>(y.size());
    for (float v : y) sq += (v - mean) * (v - mean);
    std::printf("target:   mean %.6g, std %.6g, min %.6g, max %.6g\n", mean,
                std::sqrt(sq / static_cast<double>(y.size())), static_cast<double>(*lo), static_cast<double>(*hi));
}

int describeDataset(const DatasetOptions& opt) {
    const auto start = std::chrono::steady_clock::now();
    const Dataset ds = loadDataset(opt.source.toDataSpec());
    const double loadMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("source:   %s\nrows:     %zu\nfeatures: %zu\nlabel:    %s\n", ds.source.c_str(), ds.rows, ds.cols,
                ds.labelName.c_str());
    std::printf("task:     %s (%s)\n", toString(ds.task).c_str(), ds.taskReason.c_str());
    if (ds.task == Task::Regression)
        printTarget(ds.labels);
    else
        printClasses(ds);
    std::printf("hash:     %s\n", ds.hash.c_str());
    std::printf("loaded:   %.1f ms (parse, checks and hash)\n", loadMs);
    for (const auto& note : ds.notes) std::printf("note:     %s\n", note.c_str());
    if (!opt.npyOut.empty()) {
        writeNpy(opt.npyOut + "_x.npy", ds.features.data(), {ds.rows, ds.cols});
        writeNpy(opt.npyOut + "_y.npy", ds.labels.data(), {ds.rows});
        std::printf("wrote:    %s_x.npy %s_y.npy\n", opt.npyOut.c_str(), opt.npyOut.c_str());
    }
    return kOk;
}
}  // namespace

Command addDatasetCommand(CLI::App& app) {
    auto* cmd = app.add_subcommand("dataset", "load a data set, describe it, optionally export it as .npy");
    auto opt = std::make_shared<DatasetOptions>();
    opt->source.bind(*cmd->add_option_group("Data"));
    cmd->add_option("--npy-out", opt->npyOut, "write PREFIX_x.npy (rows, features) and PREFIX_y.npy (rows)");
    return [opt] { return describeDataset(*opt); };
}

}  // namespace wb::cli
