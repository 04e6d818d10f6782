#include "gui/panels/data_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>
#include <memory>
#include <utility>

#include <nlohmann/json.hpp>

#include "gui/panels/dataset_loader.h"
#include "gui/panels/dataset_preview_model.h"
#include "gui/panels/dataset_summary.h"
#include "gui/panels/field_guard.h"
#include "gui/panels/task_fields.h"

namespace wb::gui {

namespace {

constexpr int kMaxBuiltinRows = 10'000'000;  // ~2.5 GB of features: beyond that a file is the better tool

bool isNpy(const QString& path) {
    return path.endsWith(".npy", Qt::CaseInsensitive);
}

bool isDataFile(const QString& path) {
    static const QStringList suffixes = {"csv", "tsv", "txt", "npy"};
    return suffixes.contains(QFileInfo(path).suffix().toLower());
}

// Local data files among dropped URLs, in the order given.
QStringList droppedDataFiles(const QMimeData* mime) {
    QStringList files;
    if (!mime || !mime->hasUrls()) return files;
    for (const QUrl& url : mime->urls())
        if (url.isLocalFile() && isDataFile(url.toLocalFile())) files << url.toLocalFile();
    return files;
}

// Names the CSV reader generates for a file without a header ("x0", "x1", ...), which cannot be
// used to pick a label column; real names can.
bool hasRealColumnNames(const Dataset& d) {
    if (d.labelName != "label") return true;
    for (std::size_t i = 0; i < d.columnNames.size(); ++i)
        if (QString::fromStdString(d.columnNames[i]) != QString("x%1").arg(i)) return true;
    return false;
}

struct Choice {
    QString text;
    QString value;
    QString tip;
};

QComboBox* choiceCombo(const QString& name, const std::vector<Choice>& choices, const QString& tip) {
    auto* combo = new QComboBox;
    combo->setObjectName(name);
    combo->setToolTip(tip);
    for (const Choice& c : choices) {
        combo->addItem(c.text, c.value);
        combo->setItemData(combo->count() - 1, c.tip, Qt::ToolTipRole);
    }
    return combo;
}

void selectData(QComboBox* combo, const QString& value) {
    const int index = combo->findData(value);
    if (index >= 0) combo->setCurrentIndex(index);
}

// Whether loading `a` and `b` gives the same data set: only the fields their kind reads count.
bool sameLoad(const DataSpec& a, const DataSpec& b) {
    auto essentials = [](DataSpec s) {
        const DataSpec defaults;
        if (s.kind == DataSpec::Kind::Builtin) {
            s.path = s.labelsPath = {};
            s.csv = defaults.csv;
        } else {
            s.rows = defaults.rows;
            s.seed = defaults.seed;
            if (s.kind == DataSpec::Kind::Npy) s.csv = defaults.csv;
            if (s.kind == DataSpec::Kind::Csv) s.labelsPath = {};
        }
        return nlohmann::json(s);
    };
    return essentials(a) == essentials(b);
}

}  // namespace

DataPanel::DataPanel(QWidget* parent) : QWidget(parent) {
    loader_ = new DatasetLoader(this);
    setAcceptDrops(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(buildSourceGroup());
    layout->addWidget(buildCsvGroup());
    layout->addWidget(buildPrepareGroup());
    summary_ = new DatasetSummary;
    layout->addWidget(summary_);
    connect(loader_, &DatasetLoader::loaded, this, &DataPanel::onLoaded);
    connect(loader_, &DatasetLoader::failed, this, &DataPanel::onFailed);
    connect(loader_, &DatasetLoader::busyChanged, this, &DataPanel::onBusyChanged);
    connect(loader_, &DatasetLoader::started, this,
            [this](const QString& what) { loadingLabel_->setText("Loading " + what + "…"); });
    updateSourceFields();
    guardWheel(this);
}

QWidget* DataPanel::buildSourceGroup() {
    auto* group = new QGroupBox("Data source");
    group->setToolTip("Drop a .csv or .npy file anywhere on this panel to open it.");
    sourceForm_ = new QFormLayout(group);
    buildBuiltinFields();
    buildFileFields();
    sourceForm_->addRow(builtinRadio_);
    sourceForm_->addRow("Rows", rowsSpin_);
    sourceForm_->addRow("Seed", dataSeedSpin_);
    sourceForm_->addRow(fileRadio_);
    sourceForm_->addRow(buildFileRow());
    sourceForm_->addRow("Labels", buildLabelsRow());
    sourceForm_->addRow(buildLoadRow());
    connectSourceFields();
    return group;
}

void DataPanel::buildBuiltinFields() {
    builtinRadio_ = new QRadioButton("Built-in seed-like data (61 features)");
    builtinRadio_->setObjectName("sourceBuiltin");
    builtinRadio_->setToolTip(
        "A generated data set shaped like the founding case: 61 numeric features and a "
        "0/1 label that a small network learns gradually. Needs no file.");
    builtinRadio_->setChecked(true);
    rowsSpin_ = new QSpinBox;
    rowsSpin_->setObjectName("builtinRows");
    rowsSpin_->setRange(1, kMaxBuiltinRows);
    rowsSpin_->setSingleStep(10'000);
    rowsSpin_->setGroupSeparatorShown(true);
    rowsSpin_->setValue(100'000);
    rowsSpin_->setToolTip(
        "How many rows to generate. The founding case uses 100,000; a smaller set is the "
        "first rows of a larger one with the same seed.");
    dataSeedSpin_ = new QSpinBox;
    dataSeedSpin_->setObjectName("builtinSeed");
    dataSeedSpin_->setRange(0, std::numeric_limits<int>::max());
    dataSeedSpin_->setValue(1);
    dataSeedSpin_->setToolTip("The same seed always generates the same data, on every machine.");
}

void DataPanel::buildFileFields() {
    fileRadio_ = new QRadioButton("File (CSV or .npy)");
    fileRadio_->setObjectName("sourceFile");
    fileRadio_->setToolTip(
        "Your own data: a CSV file with a 0/1 or two-valued text label column, or NumPy "
        ".npy arrays.");
    pathEdit_ = new QLineEdit;
    pathEdit_->setObjectName("filePath");
    pathEdit_->setPlaceholderText("no file chosen");
    pathEdit_->setToolTip("The data file. Type or paste a path and press Enter, use Open…, or drop a file here.");
    openButton_ = new QPushButton("Open…");
    openButton_->setObjectName("openFileButton");
    openButton_->setToolTip("Choose a CSV or .npy file and load it");
    labelsEdit_ = new QLineEdit;
    labelsEdit_->setObjectName("labelsPath");
    labelsEdit_->setPlaceholderText("none: last column is the label");
    labelsEdit_->setClearButtonEnabled(true);
    labelsEdit_->setToolTip(
        "For .npy only: a second .npy holding one 0/1 label per row. Leave empty when the "
        "label is the last column of the features array.");
    labelsButton_ = new QPushButton("…");
    labelsButton_->setObjectName("labelsButton");
    labelsButton_->setToolTip("Choose the labels .npy file");
}

QHBoxLayout* DataPanel::buildFileRow() {
    auto* fileRow = new QHBoxLayout;
    fileRow->addWidget(pathEdit_, 1);
    fileRow->addWidget(openButton_);
    return fileRow;
}

QWidget* DataPanel::buildLabelsRow() {
    labelsRow_ = new QWidget;
    auto* labelsRow = new QHBoxLayout(labelsRow_);
    labelsRow->setContentsMargins(0, 0, 0, 0);
    labelsRow->addWidget(labelsEdit_, 1);
    labelsRow->addWidget(labelsButton_);
    return labelsRow_;
}

void DataPanel::connectSourceFields() {
    connect(builtinRadio_, &QRadioButton::toggled, this, &DataPanel::updateSourceFields);
    connect(pathEdit_, &QLineEdit::textChanged, this, &DataPanel::updateSourceFields);
    connect(pathEdit_, &QLineEdit::returnPressed, this, &DataPanel::load);
    connect(labelsEdit_, &QLineEdit::returnPressed, this, &DataPanel::load);
    connect(openButton_, &QPushButton::clicked, this, &DataPanel::chooseFile);
    connect(labelsButton_, &QPushButton::clicked, this, &DataPanel::chooseLabelsFile);
}

QWidget* DataPanel::buildLoadRow() {
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* row = new QHBoxLayout;
    loadButton_ = new QPushButton("Load");
    loadButton_->setObjectName("loadButton");
    loadButton_->setToolTip(
        "Load the source above with the options below. After changing an option, Load "
        "reads the file again.");
    progress_ = new QProgressBar;
    progress_->setObjectName("loadProgress");
    progress_->setRange(0, 0);  // indeterminate: the readers do not report how far they are
    progress_->setTextVisible(false);
    progress_->setMaximumHeight(loadButton_->sizeHint().height() / 2);
    progress_->hide();
    row->addWidget(loadButton_);
    row->addWidget(progress_, 1);
    layout->addLayout(row);
    loadingLabel_ = new QLabel;
    loadingLabel_->setObjectName("loadingLabel");
    loadingLabel_->setWordWrap(true);
    loadingLabel_->hide();
    layout->addWidget(loadingLabel_);
    errorLabel_ = new QLabel;
    errorLabel_->setObjectName("errorLabel");
    errorLabel_->setWordWrap(true);
    errorLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QPalette red = errorLabel_->palette();
    red.setColor(QPalette::WindowText, QColor(176, 0, 32));
    errorLabel_->setPalette(red);
    errorLabel_->hide();
    layout->addWidget(errorLabel_);
    connect(loadButton_, &QPushButton::clicked, this, &DataPanel::load);
    return box;
}

QWidget* DataPanel::buildCsvGroup() {
    auto* group = new QGroupBox("CSV options");
    group->setToolTip("How a CSV file is read. Change an option, then press Load to read the file again.");
    auto* form = new QFormLayout(group);
    labelCombo_ = new QComboBox;
    labelCombo_->setObjectName("labelColumn");
    labelCombo_->setEditable(true);
    labelCombo_->setInsertPolicy(QComboBox::NoInsert);
    labelCombo_->lineEdit()->setPlaceholderText("last column");
    labelCombo_->setToolTip(
        "The column holding the 0/1 (or two-valued text) label, by name or 0-based index. "
        "Empty means the last column. The list fills with the columns of a loaded file.");
    headerCombo_ = choiceCombo("headerMode",
                               {{"auto", "auto", "A header when the first row has text where numbers belong"},
                                {"yes", "yes", "The first row is always the header"},
                                {"no", "no", "There is no header: every row is data"}},
                               "Whether the first row holds the column names");
    delimiterCombo_ = choiceCombo("delimiter",
                                  {{"auto", "auto", "Detected from the first lines"},
                                   {"comma  ,", ",", "Fields separated by commas"},
                                   {"semicolon  ;", ";", "Fields separated by semicolons"},
                                   {"tab", "tab", "Fields separated by tabs"}},
                                  "The character between the fields of a row");
    ignoreEdit_ = new QLineEdit;
    ignoreEdit_->setObjectName("ignoreColumns");
    ignoreEdit_->setPlaceholderText("e.g. id,date");
    ignoreEdit_->setToolTip(
        "Columns to leave out (an id, a date, ...), by name or 0-based index, separated "
        "by commas");
    missingCombo_ = choiceCombo("missingPolicy",
                                {{"error", "error", "Stop at the first empty or NA cell and say where it is"},
                                 {"drop rows", "drop", "Leave out every row with a missing value"},
                                 {"column mean", "mean", "Fill a missing value with its column's mean"}},
                                "What to do with empty or NA cells");
    skipSpin_ = new QSpinBox;
    skipSpin_->setObjectName("skipLines");
    skipSpin_->setRange(0, 1'000'000);
    skipSpin_->setToolTip(
        "Lines to skip at the top of the file (a title, comments) before the header or the "
        "first row");
    form->addRow("Label column", labelCombo_);
    form->addRow("Header", headerCombo_);
    form->addRow("Delimiter", delimiterCombo_);
    form->addRow("Ignore", ignoreEdit_);
    form->addRow("Missing", missingCombo_);
    form->addRow("Skip lines", skipSpin_);
    return group;
}

QWidget* DataPanel::buildPrepareGroup() {
    auto* group = new QGroupBox("Preparation");
    auto* form = new QFormLayout(group);
    valSplitSpin_ = new QDoubleSpinBox;
    valSplitSpin_->setObjectName("valSplit");
    valSplitSpin_->setRange(0.0, 0.9);
    valSplitSpin_->setSingleStep(0.05);
    valSplitSpin_->setDecimals(2);
    valSplitSpin_->setValue(0.2);  // so the charts show a validation curve by default
    valSplitSpin_->setToolTip(
        "The fraction of rows held out to measure validation loss and accuracy (chosen "
        "at random, same class balance). 0 trains on every row, as the founding loop "
        "does, and the charts show no validation curve.");
    standardizeCheck_ = new QCheckBox("Standardize features");
    standardizeCheck_->setObjectName("standardize");
    standardizeCheck_->setChecked(true);
    standardizeCheck_->setToolTip(
        "Scale each feature to mean 0 and standard deviation 1, using statistics of "
        "the training rows only. Networks train much better on scaled inputs.");
    form->addRow("Validation split", valSplitSpin_);
    form->addRow(standardizeCheck_);
    return group;
}

void DataPanel::updateSourceFields() {
    const bool builtin = builtinRadio_->isChecked();
    const bool npy = isNpy(pathEdit_->text().trimmed());
    rowsSpin_->setEnabled(builtin);
    dataSeedSpin_->setEnabled(builtin);
    pathEdit_->setEnabled(!builtin);
    // The labels file only means something next to a .npy features file.
    sourceForm_->setRowVisible(labelsRow_, !builtin && npy);
    loadButton_->setEnabled(builtin || !pathEdit_->text().trimmed().isEmpty());
}

CsvOptions DataPanel::csvOptions() const {
    CsvOptions o;
    o.label = labelCombo_->currentText().trimmed().toStdString();
    o.header = headerModeFromString(headerCombo_->currentData().toString().toStdString());
    o.delimiter = delimiterFromString(delimiterCombo_->currentData().toString().toStdString());
    for (const QString& part : ignoreEdit_->text().split(',', Qt::SkipEmptyParts))
        if (!part.trimmed().isEmpty()) o.ignore.push_back(part.trimmed().toStdString());
    o.skipLines = static_cast<std::size_t>(skipSpin_->value());
    o.missing = missingPolicyFromString(missingCombo_->currentData().toString().toStdString());
    return o;
}

void DataPanel::setCsvOptions(const CsvOptions& o) {
    labelCombo_->setCurrentText(QString::fromStdString(o.label));
    selectData(headerCombo_, QString::fromStdString(toString(o.header)));
    const QString delimiter = o.delimiter == 0 ? "auto" : o.delimiter == '\t' ? "tab" : QString(QChar(o.delimiter));
    selectData(delimiterCombo_, delimiter);
    QStringList ignore;
    for (const auto& column : o.ignore) ignore << QString::fromStdString(column);
    ignoreEdit_->setText(ignore.join(","));
    skipSpin_->setValue(static_cast<int>(std::min<std::size_t>(o.skipLines, 1'000'000)));
    selectData(missingCombo_, QString::fromStdString(toString(o.missing)));
}

DataSpec DataPanel::editedSpec() const {
    DataSpec spec;
    const QString path = pathEdit_->text().trimmed();
    spec.kind = builtinRadio_->isChecked() ? DataSpec::Kind::Builtin
                : isNpy(path)              ? DataSpec::Kind::Npy
                                           : DataSpec::Kind::Csv;
    spec.path = path.toStdString();
    if (spec.kind == DataSpec::Kind::Npy) spec.labelsPath = labelsEdit_->text().trimmed().toStdString();
    spec.rows = static_cast<std::size_t>(rowsSpin_->value());
    spec.seed = static_cast<std::uint64_t>(dataSeedSpin_->value());
    spec.csv = csvOptions();
    spec.task = task_;
    return spec;
}

DataSpec DataPanel::dataSpec() const {
    return dataset_ ? loadedSpec_ : editedSpec();
}

PrepareSpec DataPanel::prepareSpec(std::uint64_t seed) const {
    PrepareSpec spec;
    spec.valSplit = valSplitSpin_->value();
    spec.standardize = standardizeCheck_->isChecked();
    spec.seed = seed;
    return spec;
}

void DataPanel::setDataSpec(const DataSpec& spec) {
    (spec.kind == DataSpec::Kind::Builtin ? builtinRadio_ : fileRadio_)->setChecked(true);
    pathEdit_->setText(QString::fromStdString(spec.path));
    labelsEdit_->setText(QString::fromStdString(spec.labelsPath));
    rowsSpin_->setValue(static_cast<int>(std::clamp<std::size_t>(spec.rows, 1, kMaxBuiltinRows)));
    dataSeedSpin_->setValue(static_cast<int>(std::min<std::uint64_t>(spec.seed, std::numeric_limits<int>::max())));
    setCsvOptions(spec.csv);
    task_ = spec.task;
    updateSourceFields();
}

void DataPanel::setTaskChoice(TaskChoice choice) {
    if (task_ == choice) return;
    task_ = choice;
    if (dataset_ || isLoading()) load();
}

void DataPanel::setPrepareSpec(const PrepareSpec& spec) {
    valSplitSpin_->setValue(spec.valSplit);
    standardizeCheck_->setChecked(spec.standardize);
}

bool DataPanel::isLoading() const {
    return loader_->busy();
}

bool DataPanel::showsLoaded() const {
    return dataset_ && !isLoading() && sameLoad(loadedSpec_, editedSpec());
}

void DataPanel::whenShownLoaded(std::function<void()> ready, std::function<void(const QString&)> failed) {
    if (showsLoaded()) {
        ready();
        return;
    }
    const DataSpec wanted = editedSpec();
    if (wanted.kind != DataSpec::Kind::Builtin && wanted.path.empty()) {
        failed("no data file chosen: choose a file (Open…), or pick the built-in data");
        return;
    }
    // One answer per request: the connections live in `once`, deleted after the first answer.
    auto* once = new QObject(this);
    auto answered = std::make_shared<bool>(false);
    connect(this, &DataPanel::datasetChanged, once, [this, once, answered, wanted, ready] {
        if (*answered || !sameLoad(loadedSpec_, wanted)) return;  // an older load may arrive first
        *answered = true;
        once->deleteLater();
        ready();
    });
    connect(this, &DataPanel::loadFailed, once, [once, answered, failed](const QString& message) {
        if (*answered) return;
        *answered = true;
        once->deleteLater();
        failed(message);
    });
    startLoad(wanted);
}

void DataPanel::loadBuiltin() {
    builtinRadio_->setChecked(true);
    load();
}

void DataPanel::openFile(const QString& path) {
    fileRadio_->setChecked(true);
    pathEdit_->setText(path);
    labelsEdit_->clear();  // a labels file belongs to the features file it was chosen with
    openingFile_ = path;
    load();
}

void DataPanel::openNpyPair(const QString& features, const QString& labels) {
    fileRadio_->setChecked(true);
    pathEdit_->setText(features);
    labelsEdit_->setText(labels);
    openingFile_ = features;
    load();
}

void DataPanel::chooseFile() {
    const QString path = QFileDialog::getOpenFileName(this, "Open data", QFileInfo(pathEdit_->text()).path(),
                                                      "Data (*.csv *.tsv *.txt *.npy);;CSV (*.csv *.tsv *.txt);;"
                                                      "NumPy (*.npy);;All files (*)");
    if (!path.isEmpty()) openFile(path);
}

void DataPanel::chooseLabelsFile() {
    const QString path = QFileDialog::getOpenFileName(this, "Open labels", QFileInfo(pathEdit_->text()).path(),
                                                      "NumPy (*.npy);;All files (*)");
    if (path.isEmpty()) return;
    labelsEdit_->setText(path);
    load();
}

void DataPanel::load() {
    startLoad(editedSpec());
}

void DataPanel::startLoad(const DataSpec& spec) {
    if (spec.kind != DataSpec::Kind::Builtin && spec.path.empty()) {
        onFailed("Choose a file first (Open…), or pick the built-in data.", spec);
        return;
    }
    loader_->load(spec);
}

void DataPanel::onBusyChanged(bool busy) {
    progress_->setVisible(busy);
    loadingLabel_->setVisible(busy);
}

void DataPanel::onLoaded(const std::shared_ptr<const Dataset>& dataset, const DataSpec& spec) {
    dataset_ = dataset;
    loadedSpec_ = spec;
    openingFile_.clear();
    errorLabel_->hide();
    errorLabel_->clear();
    summary_->showDataset(dataset, loadedSpec_.kind == DataSpec::Kind::Builtin
                                       ? QString("built-in, seed %1").arg(spec.seed)
                                       : DatasetLoader::describe(spec));
    fillLabelChoices();
    emit datasetChanged(dataset_);
}

void DataPanel::onFailed(const QString& loaderMessage, const DataSpec& spec) {
    QString message = inWindowWords(loaderMessage);
    // The message names the file it is about (the readers' do; a missing file's may not).
    const bool builtin = spec.kind == DataSpec::Kind::Builtin;
    const QString refused = builtin || !spec.path.empty() ? DatasetLoader::describe(spec) : QString();
    if (!builtin && !refused.isEmpty() && !message.contains(QFileInfo(QString::fromStdString(spec.path)).fileName()))
        message = refused + ": " + message;
    // The previous data set stays: a bad file must not cost the user what already worked. A long
    // message (a CSV error quoting a whole row) is cut here; the tooltip has all of it.
    showMessage(errorLabel_, message);
    if (dataset_) {
        const QString inUse = DatasetLoader::describe(loadedSpec_);
        errorLabel_->setText(errorLabel_->text() + QString("\n(%1 stays in use.)").arg(inUse));
        if (!refused.isEmpty()) summary_->showRefused(refused, message);
    }
    errorLabel_->show();
    const QString file = std::exchange(openingFile_, QString());
    emit loadFailed(message);
    if (!file.isEmpty()) emit fileOpenFailed(file, message);
}

DatasetPreviewModel* DataPanel::previewModel() const {
    return summary_->previewModel();
}

void DataPanel::fillLabelChoices() {
    // Offer the file's column names as label choices; headerless files keep the free-text field.
    if (loadedSpec_.kind != DataSpec::Kind::Csv || !hasRealColumnNames(*dataset_)) return;
    const QString current = labelCombo_->currentText();
    labelCombo_->clear();
    labelCombo_->addItem(QString());
    for (const auto& name : dataset_->columnNames) labelCombo_->addItem(QString::fromStdString(name));
    labelCombo_->addItem(QString::fromStdString(dataset_->labelName));
    labelCombo_->setCurrentText(current);
}

void DataPanel::dragEnterEvent(QDragEnterEvent* event) {
    if (!droppedDataFiles(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void DataPanel::dropEvent(QDropEvent* event) {
    const QStringList files = droppedDataFiles(event->mimeData());
    if (files.isEmpty()) return;
    event->acceptProposedAction();
    // Two .npy files dropped together are features and labels; the one named like labels is the labels.
    if (files.size() == 2 && isNpy(files[0]) && isNpy(files[1])) {
        const bool firstIsLabels = QFileInfo(files[0]).baseName().contains("label", Qt::CaseInsensitive) ||
                                   QFileInfo(files[0]).baseName() == "y";
        openNpyPair(files[firstIsLabels ? 1 : 0], files[firstIsLabels ? 0 : 1]);
        return;
    }
    openFile(files.front());
}

}  // namespace wb::gui
