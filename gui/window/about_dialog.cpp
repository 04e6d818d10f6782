#include "gui/window/about_dialog.h"

#include <qcustomplot.h>
#include <QDialogButtonBox>
#include <QFutureWatcher>
#include <QLabel>
#include <QPointer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "core/platform/errors.h"
#include "core/run/backend.h"

namespace wb::gui {

namespace {
// The CUDA backend's probe alone (not the framework probes, which start Python).
QString probeCuda() {
    try {
        const BackendInfo info = BackendRegistry::instance().requireAvailable("cuda");
        return QString("available (%1)").arg(QString::fromStdString(info.device));
    } catch (const ConfigError&) {  // not registered: this build has no CUDA backend
        return "not in this build (configured without CUDA)";
    } catch (const std::exception& e) {
        return QString("unavailable: %1").arg(QString::fromUtf8(e.what()));
    }
}
}  // namespace

QString compilerDescription() {
#if defined(__clang__)
    return QString("Clang %1").arg(__clang_version__);
#elif defined(__GNUC__)
    return QString("GCC %1.%2.%3").arg(__GNUC__).arg(__GNUC_MINOR__).arg(__GNUC_PATCHLEVEL__);
#elif defined(_MSC_VER)
    return QString("MSVC %1").arg(_MSC_VER);
#else
    return "unknown compiler";
#endif
}

QString aboutText(const QString& cuda) {
    return QString(
               "<h3>MLP Workbench %1</h3>"
               "<p>Trains small multilayer perceptrons and shows why one way of executing the same "
               "training is faster than another.</p>"
               "<table>"
               "<tr><td>Qt</td><td>%2 (built with %3)</td></tr>"
               "<tr><td>QCustomPlot</td><td>%4</td></tr>"
               "<tr><td>Compiler</td><td>%5</td></tr>"
               "<tr><td>CUDA</td><td>%6</td></tr>"
               "</table>")
        .arg(WB_VERSION, qVersion(), QT_VERSION_STR, QCUSTOMPLOT_VERSION_STR, compilerDescription(),
             cuda.toHtmlEscaped());
}

AboutDialog::AboutDialog(QWidget* parent) : QDialog(parent), label_(new QLabel(aboutText("checking…"))) {
    setWindowTitle("About MLP Workbench");
    setObjectName("aboutDialog");
    label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(label_);
    layout->addWidget(buttons);
    // Off the GUI thread: a driver may take its time to answer.
    auto* watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcher<QString>::finished, this,
            [this, watcher] { label_->setText(aboutText(watcher->result())); });
    watcher->setFuture(QtConcurrent::run(probeCuda));
}

QString AboutDialog::text() const {
    return label_->text();
}

}  // namespace wb::gui
