// The backend plugin loader (core/train/plugin_loader.h): a missing or broken plugin gives an unavailable
// "cuda" with the reason, never a crash; the real plugin (when this build makes it) registers "cuda"
// into this program's registry and refuses a program of another version or ABI.
#include <QtTest>

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>

#include <dlfcn.h>

#include <string>
#include <vector>

#include "core/model/execution_settings.h"
#include "core/platform/errors.h"
#include "core/run/backend.h"
#include "core/train/plugin_loader.h"

using namespace wb;

namespace {
// The one registration a failed load gives: "cuda", unavailable.
BackendInfo probeOfTheStandIn(const std::vector<BackendRegistration>& backends) {
    if (backends.size() != 1 || backends[0].name != "cuda") return {};
    return backends[0].probe();
}

#ifdef WB_CUDA_PLUGIN_PATH
const BackendInfo* findBackend(const std::vector<BackendInfo>& list, const std::string& name) {
    for (const auto& b : list)
        if (b.name == name) return &b;
    return nullptr;
}
#endif
}  // namespace

class TestPluginLoader : public QObject {
    Q_OBJECT

private slots:
    void missingPluginGivesUnavailableCudaNamingTheFile() {
        QTemporaryDir dir;
        const std::string nowhere = dir.filePath("no-such-dir").toStdString();
        const auto backends = pluginBackends({nowhere}, kCudaPluginFile);
        const BackendInfo info = probeOfTheStandIn(backends);
        QCOMPARE(QString::fromStdString(info.name), QString("cuda"));
        QVERIFY(!info.available);
        QVERIFY2(info.reason.find("libmlpwb-cuda.so") != std::string::npos, info.reason.c_str());
        QVERIFY2(info.reason.find(nowhere) != std::string::npos, info.reason.c_str());
        // Without the backend, its ignored-switch list cannot be answered: DeviceError, with the reason.
        try {
            (void)backends[0].ignored(ExecutionSettings{});
            QFAIL("notApplicable of a missing backend must throw");
        } catch (const DeviceError& e) {
            const std::string what = e.what();
            QVERIFY2(what.rfind("cuda backend not installed: ", 0) == 0, e.what());
            QVERIFY2(what.find("libmlpwb-cuda.so") != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(DeviceError, (void)backends[0].factory(0));
    }

    void notASharedObjectGivesReason_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<bool>("directory");
        QTest::newRow("empty file") << QByteArray() << false;
        QTest::newRow("text") << QByteArray("not a shared object\n") << false;
        QTest::newRow("ELF magic, then nothing") << QByteArray::fromHex("7f454c46020101") << false;
        QTest::newRow("a directory of that name") << QByteArray() << true;
    }
    void notASharedObjectGivesReason() {
        QFETCH(QByteArray, content);
        QFETCH(bool, directory);
        QTemporaryDir dir;
        const QString path = dir.filePath(kCudaPluginFile);
        if (directory) {
            QVERIFY(QDir(dir.path()).mkdir(kCudaPluginFile));
        } else {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QCOMPARE(f.write(content), content.size());
        }
        const PluginLoad load = loadBackendPlugin({dir.path().toStdString()}, kCudaPluginFile);
        QVERIFY(load.backends.empty());
        QCOMPARE(QString::fromStdString(load.path), path);
        QVERIFY2(load.error.find(path.toStdString() + " cannot be loaded: ") != std::string::npos, load.error.c_str());
        const BackendInfo info = probeOfTheStandIn(pluginBackends({dir.path().toStdString()}, kCudaPluginFile));
        QVERIFY(!info.available);
        QCOMPARE(QString::fromStdString(info.reason), QString::fromStdString(load.error));
    }

    // The first directory that has the file wins; a broken one there is reported, not skipped.
    void firstDirectoryWithTheFileWins() {
        QTemporaryDir first, second;
        QFile broken(first.filePath(kCudaPluginFile));
        QVERIFY(broken.open(QIODevice::WriteOnly));
        broken.close();
        const PluginLoad load = loadBackendPlugin(
            {second.filePath("absent").toStdString(), first.path().toStdString(), second.path().toStdString()},
            kCudaPluginFile);
        QCOMPARE(QString::fromStdString(load.path), first.filePath(kCudaPluginFile));
        QVERIFY(!load.error.empty());
    }

    void searchOrderIsEnvThenProgramThenInstallDir() {
        qputenv("MLPWB_PLUGIN_DIR", "/somewhere/plugins");
        const auto dirs = backendPluginDirs();
        qunsetenv("MLPWB_PLUGIN_DIR");
        QCOMPARE(dirs.size(), std::size_t{3});
        QCOMPARE(QString::fromStdString(dirs[0]), QString("/somewhere/plugins"));
        QCOMPARE(QString::fromStdString(dirs[1]), QCoreApplication::applicationDirPath());
        QVERIFY2(QString::fromStdString(dirs[2]).endsWith("/mlp-workbench"), dirs[2].c_str());
        QCOMPARE(backendPluginDirs().size(), std::size_t{2});  // unset: no entry for it
    }

    // The real plugin, as mlpwb loads it: "cuda" joins this program's registry, and its probe answers
    // (on a machine without a GPU: unavailable, "no NVIDIA driver").
    void realPluginRegistersCudaIntoTheProgramsRegistry() {
#ifndef WB_CUDA_PLUGIN_PATH
        QSKIP("this build makes no CUDA plugin (WB_CUDA=OFF or no CUDA toolkit)");
#else
        const QFileInfo plugin(WB_CUDA_PLUGIN_PATH);
        QVERIFY2(plugin.exists(), WB_CUDA_PLUGIN_PATH);
        const PluginLoad load = loadBackendPlugin({plugin.absolutePath().toStdString()}, kCudaPluginFile);
        QVERIFY2(load.error.empty(), load.error.c_str());
        QCOMPARE(load.backends.size(), std::size_t{1});
        QCOMPARE(QString::fromStdString(load.backends[0].name), QString("cuda"));

        qputenv("MLPWB_PLUGIN_DIR", plugin.absolutePath().toUtf8());
        registerBackendPlugins();
        registerBackendPlugins();  // again: nothing more
        qunsetenv("MLPWB_PLUGIN_DIR");
        const std::vector<BackendInfo> list = BackendRegistry::instance().list();
        QCOMPARE(list.size(), std::size_t{2});
        QVERIFY(findBackend(list, "cpu") != nullptr);
        const BackendInfo* cuda = findBackend(list, "cuda");
        QVERIFY(cuda != nullptr);
        if (!cuda->available) {
            QVERIFY2(!cuda->reason.empty(), "an unavailable backend says why");
            qInfo("cuda unavailable here: %s", cuda->reason.c_str());
        }
        // The ignored-switch list comes from the plugin and needs no device.
        ExecutionSettings fused;
        setSwitch(fused, "launch", "fused");
        setSwitch(fused, "gemm", "custom");
        setSwitch(fused, "zero_grad", "once");
        const auto ignored = BackendRegistry::instance().notApplicable("cuda", fused);
        QVERIFY(findIgnored(ignored, "zero_grad") != nullptr);
        QVERIFY(findIgnored(ignored, "launch") == nullptr);
        if (!cuda->available) QVERIFY_THROWS_EXCEPTION(DeviceError, (void)BackendRegistry::instance().create("cuda"));
#endif
    }

    // The entry point reads only its plain arguments until it knows the program is of its own build.
    void pluginRefusesAnotherVersionOrAbi() {
#ifndef WB_CUDA_PLUGIN_PATH
        QSKIP("this build makes no CUDA plugin (WB_CUDA=OFF or no CUDA toolkit)");
#else
        void* handle = dlopen(WB_CUDA_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
        QVERIFY2(handle != nullptr, dlerror());
        void* symbol = dlsym(handle, kBackendPluginEntry);
        QVERIFY(symbol != nullptr);
        const auto entry = reinterpret_cast<BackendPluginEntry>(symbol);
        const char* wrongAbi = entry(kBackendPluginAbi + 1, WB_PLUGIN_TEST_VERSION, nullptr);
        QVERIFY(wrongAbi != nullptr);
        QVERIFY2(QString(wrongAbi).contains("plugin ABI " + QString::number(kBackendPluginAbi)), wrongAbi);
        const char* wrongVersion = entry(kBackendPluginAbi, "0.0.0-other", nullptr);
        QVERIFY(wrongVersion != nullptr);
        QVERIFY2(QString(wrongVersion).contains("mlp-workbench " WB_PLUGIN_TEST_VERSION), wrongVersion);
        QVERIFY(entry(kBackendPluginAbi, nullptr, nullptr) != nullptr);
        dlclose(handle);  // still loaded: the earlier load holds it
#endif
    }
};

QTEST_GUILESS_MAIN(TestPluginLoader)
#include "tst_plugin_loader.moc"
