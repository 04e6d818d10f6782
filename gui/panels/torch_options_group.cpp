#include "gui/panels/torch_options_group.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QStandardItemModel>
#include <utility>

#include "gui/panels/form_widgets.h"

namespace wb::gui {

namespace {
constexpr int kMaxWorkers = 64;
constexpr int kMaxPrefetch = 64;

const QString kLoaderTip =
    "Applies to the DataLoader of data path per_sample_gather (the founding loop's); the other data "
    "paths slice whole batches and use no DataLoader.";

QStandardItem* itemOf(const QComboBox* combo, int index) {
    return qobject_cast<QStandardItemModel*>(combo->model())->item(index);
}

}  // namespace

TorchOptionsGroup::TorchOptionsGroup(QWidget* parent) : QGroupBox("PyTorch", parent) {
    setObjectName("torchOptions");
    form_ = new QFormLayout(this);
    device_ = new QComboBox;
    device_->setObjectName("frameworkDevice");
    device_->addItem("auto", QString("auto"));
    device_->addItem("cpu", QString("cpu"));
    device_->addItem("cuda", QString("cuda"));
    device_->setToolTip("Where PyTorch trains: auto takes CUDA when PyTorch sees a device, else the CPU");
    workers_ = intSpin("numWorkers", 0, kMaxWorkers, 0,
                       "DataLoader(num_workers=...): worker processes that gather and collate the rows of each batch "
                       "(0: the training process itself does it, as in the founding loop).\n\n" +
                           kLoaderTip);
    prefetch_ = intSpin("prefetchFactor", 0, kMaxPrefetch, 0,
                        "DataLoader(prefetch_factor=...): batches each worker prepares ahead (\"default\": PyTorch's "
                        "own). Needs at least one worker.\n\n" +
                            kLoaderTip);
    prefetch_->setSpecialValueText("default");
    pinMemory_ = checkBox("pinMemory", "Pin memory",
                          "DataLoader(pin_memory=True): batches collated into page-locked memory, so their copy to a "
                          "CUDA device can be a DMA. Changes nothing on the CPU.\n\n" +
                              kLoaderTip);
    scriptModel_ = checkBox("scriptModel", "TorchScript the model",
                            "torch.jit.script(model): the model compiled with TorchScript before training");
    loaderNote_ = new QLabel("The DataLoader options apply with data path per_sample_gather only.");
    loaderNote_->setObjectName("loaderNote");
    loaderNote_->setWordWrap(true);
    loaderNote_->setForegroundRole(QPalette::PlaceholderText);
    loaderNote_->hide();
    form_->addRow("Device", device_);
    form_->addRow("DataLoader workers", workers_);
    form_->addRow("Prefetch factor", prefetch_);
    form_->addRow(pinMemory_);
    form_->addRow(loaderNote_);
    form_->addRow(scriptModel_);
    for (QWidget* field : {static_cast<QWidget*>(workers_), static_cast<QWidget*>(prefetch_)})
        if (QWidget* label = form_->labelForField(field)) label->setToolTip(field->toolTip());

    auto edited = [this] {
        if (updating_) return;
        updateDependents();
        emit changed();
    };
    connect(device_, &QComboBox::currentIndexChanged, this, edited);
    connect(workers_, &QSpinBox::valueChanged, this, edited);
    connect(prefetch_, &QSpinBox::valueChanged, this, edited);
    connect(pinMemory_, &QCheckBox::toggled, this, edited);
    connect(scriptModel_, &QCheckBox::toggled, this, edited);
    updateDependents();
}

FrameworkOptions TorchOptionsGroup::options() const {
    FrameworkOptions o;
    o.device = device_->currentData().toString().toStdString();
    o.torch.numWorkers = workers_->value();
    o.torch.prefetchFactor = workers_->value() > 0 ? prefetch_->value() : 0;
    o.torch.pinMemory = pinMemory_->isChecked();
    o.torch.scriptModel = scriptModel_->isChecked();
    return o;
}

void TorchOptionsGroup::setOptions(const FrameworkOptions& options) {
    const bool was = std::exchange(updating_, true);
    const int device = device_->findData(QString::fromStdString(options.device));
    device_->setCurrentIndex(device >= 0 ? device : 0);
    workers_->setValue(options.torch.numWorkers);
    prefetch_->setValue(options.torch.prefetchFactor);
    pinMemory_->setChecked(options.torch.pinMemory);
    scriptModel_->setChecked(options.torch.scriptModel);
    updating_ = was;
    updateDependents();
}

void TorchOptionsGroup::setFacts(const std::optional<FrameworkFacts>& facts) {
    facts_ = facts;
    updateDependents();
}

void TorchOptionsGroup::setDataPath(DataPath path) {
    const bool applies = path == DataPath::PerSampleGather;
    for (QWidget* field : {static_cast<QWidget*>(workers_), static_cast<QWidget*>(prefetch_)})
        if (QWidget* label = form_->labelForField(field)) label->setEnabled(applies);
    QPalette palette;  // empty: the normal look
    if (!applies)
        palette.setColor(QPalette::WindowText, this->palette().color(QPalette::Disabled, QPalette::WindowText));
    pinMemory_->setPalette(palette);
    loaderNote_->setVisible(!applies);
}

QString TorchOptionsGroup::invalidReason() const {
    if (facts_ && facts_->available && !facts_->cuda && options().device == "cuda")
        return QString("PyTorch on %1 sees no CUDA device; choose the device auto or cpu")
            .arg(QString::fromStdString(facts_->python));
    return {};
}

void TorchOptionsGroup::updateDependents() {
    if (workers_->value() == 0 && prefetch_->value() != 0) {
        const bool was = std::exchange(updating_, true);
        prefetch_->setValue(0);  // PyTorch refuses a prefetch factor without workers
        updating_ = was;
    }
    prefetch_->setEnabled(workers_->value() > 0);
    QString autoTip = "CUDA when PyTorch sees a device, else the CPU";
    QString cudaTip = "Train on the first CUDA device PyTorch sees";
    bool cudaSeen = true;
    if (facts_ && facts_->available) {
        cudaSeen = facts_->cuda;
        const QString python = QString::fromStdString(facts_->python);
        autoTip += cudaSeen ? QString(": here %1").arg(QString::fromStdString(facts_->cudaDevice))
                            : QString(": here the CPU (PyTorch on %1 sees no CUDA device)").arg(python);
        if (!cudaSeen) cudaTip = QString("PyTorch on %1 sees no CUDA device").arg(python);
    }
    itemOf(device_, 0)->setToolTip(autoTip);
    itemOf(device_, 1)->setToolTip("Train on the CPU, even where a CUDA device is seen");
    itemOf(device_, 2)->setToolTip(cudaTip);
    itemOf(device_, 2)->setEnabled(cudaSeen || options().device == "cuda");  // a saved choice stays shown
}

}  // namespace wb::gui
