// `mlpwb dataset`: load a data set as `train` would, describe it, and optionally export it as .npy
// (so peers in bench/ train on exactly the same rows).
#include <chrono>
#include <cstdio>
#include <memory>

#include "commands.h"
#include "data_source.h"
#include "exit_codes.h"
#include "npy_io.h"
#include "train_options.h"

namespace wb::cli {

namespace {
struct DatasetOptions {
    DataOptions source;
    std::string npyOut;
};

int describeDataset(const DatasetOptions& opt) {
    const auto start = std::chrono::steady_clock::now();
    const Dataset ds = loadDataset(opt.source.toDataSpec());
    const double loadMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("source:   %s\nrows:     %zu\nfeatures: %zu\nlabel:    %s\n", ds.source.c_str(), ds.rows, ds.cols,
                ds.labelName.c_str());
    std::printf("balance:  %.2f %% positive\n", 100.0 * ds.positiveFraction());
    for (const auto& [text, value] : ds.labelMapping) std::printf("mapping:  %s -> %d\n", text.c_str(), value);
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
