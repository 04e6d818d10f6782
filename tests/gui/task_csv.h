// Small CSV files with labels of each task, for the GUI suites about tasks: three text classes apart
// in feature space, and a numeric target (a linear function of the features plus a little wobble).
#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>
#include <cmath>

namespace wb::gui::testing {

// Deterministic values in [-1, 1): no random engine, so every run writes the same file.
inline double wobble(int i, int j) {
    return std::sin(12.9898 * i + 78.233 * j) * 0.5 + std::cos(3.7 * i * (j + 1)) * 0.5;
}

// `rows` rows of 4 features and a "species" column: setosa, versicolor, virginica in turn, each class
// centred 3 apart, so a small model separates them in a few epochs.
inline QByteArray multiclassCsv(int rows) {
    const char* names[] = {"setosa", "versicolor", "virginica"};
    QByteArray text = "f1,f2,f3,f4,species\n";
    for (int i = 0; i < rows; ++i) {
        const int k = i % 3;
        for (int j = 0; j < 4; ++j) text += QByteArray::number(3.0 * k + wobble(i, j), 'f', 3) + ",";
        text += QByteArray(names[k]) + "\n";
    }
    return text;
}

// `rows` rows of 4 features and "price" = 2 f1 - f2 + 0.5 f3 + 10 + wobble: fractions, so auto
// refuses it and --task regression reads it.
inline QByteArray regressionCsv(int rows) {
    QByteArray text = "f1,f2,f3,f4,price\n";
    for (int i = 0; i < rows; ++i) {
        double f[4];
        for (int j = 0; j < 4; ++j) f[j] = 2.0 * wobble(i, j);
        const double price = 2 * f[0] - f[1] + 0.5 * f[2] + 10 + 0.1 * wobble(i, 7);
        for (double v : f) text += QByteArray::number(v, 'f', 3) + ",";
        text += QByteArray::number(price, 'f', 3) + "\n";
    }
    return text;
}

inline QString writeCsv(const QString& path, const QByteArray& content) {
    QFile file(path);
    if (file.open(QIODevice::WriteOnly)) file.write(content);
    return path;
}

}  // namespace wb::gui::testing
