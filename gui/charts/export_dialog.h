// "Export chart…": the format (PNG, JPG, PDF, SVG), the chart's size and scale, and the file.
// The size is asked in the unit the file has: pixels for an image (and an SVG's view box), points for
// a PDF page (the dialog says it, and the page in millimetres too); each keeps its own last value.
// Remembers the last choices (QSettings) so a series of exports keeps one size.
#pragma once

#include <QDialog>
#include <QSize>
#include <QString>

#include "gui/charts/chart_export.h"

class QComboBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace wb::gui {

class ExportDialog : public QDialog {
    Q_OBJECT

public:
    // `chartName` (e.g. "Epoch time") suggests the file name.
    explicit ExportDialog(const QString& chartName, QWidget* parent = nullptr);

    // What to pass to exportChart(): pixels, or for a PDF points. (width() and height() are the chart's,
    // not the dialog's.)
    QString path() const;
    ChartFormat format() const;
    int chartWidth() const;
    int chartHeight() const;
    double scale() const;

    void setPath(const QString& path);  // also selects the format its extension names
    void setFormat(ChartFormat format);

public slots:
    void accept() override;

private:
    void buildForm();
    void browse();
    void formatChosen();
    void pathEdited();
    void updateState();
    void restoreSettings(const QString& chartName);
    void saveSettings();
    // Shows the image's size in pixels or the page's in points in the width and height boxes, keeping
    // the other's value for when its format comes back.
    void showSizeFor(ChartFormat format);

    QComboBox* formatBox_ = nullptr;
    QSpinBox* widthBox_ = nullptr;
    QSpinBox* heightBox_ = nullptr;
    QDoubleSpinBox* scaleBox_ = nullptr;
    QLabel* outputLabel_ = nullptr;
    QLineEdit* pathEdit_ = nullptr;
    QDialogButtonBox* buttons_ = nullptr;
    QSize imagePixels_;       // PNG, JPG, SVG
    QSize pagePoints_;        // PDF
    bool showsPage_ = false;  // the boxes hold pagePoints_ (else imagePixels_)
};

}  // namespace wb::gui
