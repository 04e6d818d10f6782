#include "gui/charts/export_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <array>
#include <cmath>

namespace wb::gui {

namespace {
constexpr int kMinSide = 100;
constexpr int kMaxSide = 8000;
constexpr double kMillimetresPerPoint = 25.4 / 72.0;
const QSize kPagePoints(720, 405);  // 10 × 5.6 inches: a slide's or a page's width

struct FormatChoice {
    ChartFormat format;
    const char* label;
    const char* filter;
};
const std::array<FormatChoice, 4> kFormats = {{{ChartFormat::Png, "PNG image", "PNG image (*.png)"},
                                               {ChartFormat::Jpg, "JPEG image", "JPEG image (*.jpg *.jpeg)"},
                                               {ChartFormat::Pdf, "PDF (vector)", "PDF document (*.pdf)"},
                                               {ChartFormat::Svg, "SVG (vector)", "SVG image (*.svg)"}}};

const FormatChoice& choiceFor(ChartFormat format) {
    for (const FormatChoice& c : kFormats)
        if (c.format == format) return c;
    return kFormats[0];
}

// "Epoch time" -> "epoch-time": a file name that needs no quoting in a shell.
QString fileStem(const QString& chartName) {
    QString stem;
    for (const QChar c : chartName.toLower()) stem += c.isLetterOrNumber() ? c : QChar('-');
    while (stem.contains("--")) stem.replace("--", "-");
    stem = stem.mid(stem.startsWith('-') ? 1 : 0);
    if (stem.endsWith('-')) stem.chop(1);
    return stem.isEmpty() ? QString("chart") : stem;
}

QString withExtension(const QString& path, ChartFormat format) {
    QString base = path;
    if (chartFormatForPath(path)) base.chop(QFileInfo(path).suffix().size() + 1);
    return base + "." + extensionOf(format);
}
}  // namespace

ExportDialog::ExportDialog(const QString& chartName, QWidget* parent) : QDialog(parent) {
    setWindowTitle("Export chart: " + chartName);
    buildForm();
    restoreSettings(chartName);
    updateState();
}

QString ExportDialog::path() const {
    return pathEdit_->text().trimmed();
}

ChartFormat ExportDialog::format() const {
    return static_cast<ChartFormat>(formatBox_->currentData().toInt());
}

int ExportDialog::chartWidth() const {
    return widthBox_->value();
}

int ExportDialog::chartHeight() const {
    return heightBox_->value();
}

double ExportDialog::scale() const {
    return format() == ChartFormat::Pdf ? 1.0 : scaleBox_->value();
}

void ExportDialog::setFormat(ChartFormat format) {
    formatBox_->setCurrentIndex(formatBox_->findData(static_cast<int>(format)));
}

void ExportDialog::setPath(const QString& path) {
    pathEdit_->setText(path);
    pathEdited();
}

void ExportDialog::accept() {
    saveSettings();
    QDialog::accept();
}

void ExportDialog::buildForm() {
    formatBox_ = new QComboBox;
    for (const FormatChoice& c : kFormats) formatBox_->addItem(c.label, static_cast<int>(c.format));
    widthBox_ = new QSpinBox;
    widthBox_->setObjectName("exportWidth");
    widthBox_->setRange(kMinSide, kMaxSide);
    widthBox_->setSuffix(" px");
    heightBox_ = new QSpinBox;
    heightBox_->setObjectName("exportHeight");
    heightBox_->setRange(kMinSide, kMaxSide);
    heightBox_->setSuffix(" px");
    scaleBox_ = new QDoubleSpinBox;
    scaleBox_->setRange(0.5, 4.0);
    scaleBox_->setSingleStep(0.5);
    scaleBox_->setDecimals(2);
    scaleBox_->setToolTip("Draws the same layout finer: 2 gives a sharp image for print or high-DPI screens");
    outputLabel_ = new QLabel;
    outputLabel_->setObjectName("exportOutput");
    pathEdit_ = new QLineEdit;
    auto* browseButton = new QPushButton("Browse…");
    auto* fileRow = new QHBoxLayout;
    fileRow->addWidget(pathEdit_, 1);
    fileRow->addWidget(browseButton);

    auto* form = new QFormLayout(this);
    form->addRow("Format:", formatBox_);
    form->addRow("Width:", widthBox_);
    form->addRow("Height:", heightBox_);
    form->addRow("Scale:", scaleBox_);
    form->addRow("Output:", outputLabel_);
    form->addRow("File:", fileRow);
    buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons_->button(QDialogButtonBox::Ok)->setText("Export");
    form->addRow(buttons_);

    connect(formatBox_, &QComboBox::currentIndexChanged, this, &ExportDialog::formatChosen);
    connect(widthBox_, &QSpinBox::valueChanged, this, &ExportDialog::updateState);
    connect(heightBox_, &QSpinBox::valueChanged, this, &ExportDialog::updateState);
    connect(scaleBox_, &QDoubleSpinBox::valueChanged, this, &ExportDialog::updateState);
    connect(pathEdit_, &QLineEdit::textEdited, this, &ExportDialog::pathEdited);
    connect(browseButton, &QPushButton::clicked, this, &ExportDialog::browse);
    connect(buttons_, &QDialogButtonBox::accepted, this, &ExportDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &ExportDialog::reject);
}

void ExportDialog::browse() {
    QStringList filters;
    for (const FormatChoice& c : kFormats) filters << c.filter;
    QString selected = choiceFor(format()).filter;
    const QString chosen = QFileDialog::getSaveFileName(this, "Export chart", path(), filters.join(";;"), &selected);
    if (chosen.isEmpty()) return;
    QString file = chosen;
    for (const FormatChoice& c : kFormats)  // a name typed without extension takes the filter's
        if (selected == c.filter && !chartFormatForPath(chosen)) file = withExtension(chosen, c.format);
    setPath(file);
}

// The file name follows the format, so the two never disagree.
void ExportDialog::formatChosen() {
    if (!path().isEmpty()) pathEdit_->setText(withExtension(path(), format()));
    showSizeFor(format());
    updateState();
}

// ... and the format follows an extension typed by hand.
void ExportDialog::pathEdited() {
    if (const auto f = chartFormatForPath(path())) {
        const QSignalBlocker block(formatBox_);
        formatBox_->setCurrentIndex(formatBox_->findData(static_cast<int>(*f)));
        showSizeFor(*f);
    }
    updateState();
}

void ExportDialog::showSizeFor(ChartFormat format) {
    const bool page = format == ChartFormat::Pdf;
    const QSize shown(widthBox_->value(), heightBox_->value());
    if (page == showsPage_) return;
    (showsPage_ ? pagePoints_ : imagePixels_) = shown;
    showsPage_ = page;
    const QSize next = page ? pagePoints_ : imagePixels_;
    const QString unit = page ? " pt" : " px";
    for (QSpinBox* box : {widthBox_, heightBox_}) {
        const QSignalBlocker block(box);
        box->setSuffix(unit);
    }
    const QSignalBlocker blockWidth(widthBox_), blockHeight(heightBox_);
    widthBox_->setValue(next.width());
    heightBox_->setValue(next.height());
}

void ExportDialog::updateState() {
    const bool vectorPage = format() == ChartFormat::Pdf;
    scaleBox_->setEnabled(!vectorPage);
    if (vectorPage)
        outputLabel_->setText(QString("a %1 × %2 pt vector page (%3 × %4 mm)")
                                  .arg(chartWidth())
                                  .arg(chartHeight())
                                  .arg(std::lround(chartWidth() * kMillimetresPerPoint))
                                  .arg(std::lround(chartHeight() * kMillimetresPerPoint)));
    else
        outputLabel_->setText(QString("%1 × %2 px%3")
                                  .arg(std::lround(chartWidth() * scale()))
                                  .arg(std::lround(chartHeight() * scale()))
                                  .arg(format() == ChartFormat::Svg ? " (vector)" : ""));
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(chartFormatForPath(path()).has_value());
}

void ExportDialog::restoreSettings(const QString& chartName) {
    QSettings settings;
    settings.beginGroup("export");
    imagePixels_ = QSize(settings.value("width", 1600).toInt(), settings.value("height", 900).toInt());
    pagePoints_ = QSize(settings.value("pageWidth", kPagePoints.width()).toInt(),
                        settings.value("pageHeight", kPagePoints.height()).toInt());
    showsPage_ = false;
    widthBox_->setValue(imagePixels_.width());
    heightBox_->setValue(imagePixels_.height());
    const int formatIndex = formatBox_->findData(settings.value("format", 0).toInt());
    formatBox_->setCurrentIndex(formatIndex < 0 ? 0 : formatIndex);
    showSizeFor(format());  // the signal does not come when the index stays 0
    scaleBox_->setValue(settings.value("scale", 1.0).toDouble());
    QString folder = settings.value("folder").toString();
    if (folder.isEmpty() || !QDir(folder).exists())
        folder = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
    if (folder.isEmpty() || !QDir(folder).exists()) folder = QDir::homePath();
    pathEdit_->setText(QDir(folder).filePath(fileStem(chartName) + "." + extensionOf(format())));
}

void ExportDialog::saveSettings() {
    (showsPage_ ? pagePoints_ : imagePixels_) = QSize(chartWidth(), chartHeight());
    QSettings settings;
    settings.beginGroup("export");
    settings.setValue("format", static_cast<int>(format()));
    settings.setValue("width", imagePixels_.width());
    settings.setValue("height", imagePixels_.height());
    settings.setValue("pageWidth", pagePoints_.width());
    settings.setValue("pageHeight", pagePoints_.height());
    settings.setValue("scale", scaleBox_->value());
    settings.setValue("folder", QFileInfo(path()).absolutePath());
}

}  // namespace wb::gui
