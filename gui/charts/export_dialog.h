// "Export chart…": the format (PNG, JPG, PDF, SVG), the chart's size and scale, and the file.
// Remembers the last choices (QSettings) so a series of exports keeps one size.
#pragma once

#include <QDialog>
#include <QString>

#include "chart_export.h"

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

    // What to pass to exportChart(). (width() and height() are the chart's, not the dialog's.)
    QString path() const;
    ChartFormat format() const;
    int chartWidth() const;
    int chartHeight() const;
    double scale() const;

    void setPath(const QString& path);  // also selects the format its extension names

public slots:
    void accept() override;

private:
    void buildForm();
    void browse();
    void formatChosen();
    void pathEdited();
    void updateState();
    void restoreSettings(const QString& chartName);
    void saveSettings() const;

    QComboBox* formatBox_ = nullptr;
    QSpinBox* widthBox_ = nullptr;
    QSpinBox* heightBox_ = nullptr;
    QDoubleSpinBox* scaleBox_ = nullptr;
    QLabel* outputLabel_ = nullptr;
    QLineEdit* pathEdit_ = nullptr;
    QDialogButtonBox* buttons_ = nullptr;
};

}  // namespace wb::gui
