#include "gui/panels/label_fitting.h"

#include <QFontMetrics>
#include <QStringList>
#include <algorithm>

namespace wb::gui {

QString elideLines(const QString& text, const QFontMetrics& metrics, int width) {
    QStringList lines = text.split('\n');
    for (QString& line : lines) line = metrics.elidedText(line, Qt::ElideRight, std::max(width, 1));
    return lines.join('\n');
}

QString keepFittingLines(const QString& text, const QFontMetrics& metrics, int width) {
    const QStringList lines = text.split('\n');
    QStringList kept{metrics.elidedText(lines.front(), Qt::ElideRight, std::max(width, 1))};
    for (qsizetype i = 1; i < lines.size() && metrics.horizontalAdvance(lines[i]) <= width; ++i) kept << lines[i];
    return kept.join('\n');
}

QString wrapWords(const QString& text, const QFontMetrics& metrics, int width) {
    QStringList lines;
    QString line;
    for (const QString& word : text.split(' ', Qt::SkipEmptyParts)) {
        const QString longer = line.isEmpty() ? word : line + ' ' + word;
        if (line.isEmpty() || metrics.horizontalAdvance(longer) <= width) {
            line = longer;
            continue;
        }
        lines << line;
        line = word;
    }
    if (!line.isEmpty()) lines << line;
    for (QString& l : lines) l = metrics.elidedText(l, Qt::ElideRight, std::max(width, 1));
    return lines.join('\n');
}

QString wrapAtBreaks(const QString& text, const QFontMetrics& metrics, int width, int maxLines) {
    static const QString kBreaks = " _=.,";
    QStringList lines;
    for (const QString& paragraph : text.split('\n')) {
        QString line;
        QString piece;
        auto place = [&] {
            if (line.isEmpty() || metrics.horizontalAdvance(line + piece) <= width) {
                line += piece;
            } else {
                lines << line.trimmed();
                line = piece;
            }
            piece.clear();
        };
        for (const QChar c : paragraph) {
            piece += c;
            if (kBreaks.contains(c)) place();
        }
        if (!piece.isEmpty()) place();
        if (!line.isEmpty()) lines << line.trimmed();
    }
    if (lines.size() > maxLines) {
        lines = lines.mid(0, maxLines);
        lines.back() += "\u2026";  // more would follow
    }
    for (QString& l : lines) l = metrics.elidedText(l, Qt::ElideRight, std::max(width, 1));
    return lines.join('\n');
}

}  // namespace wb::gui
