// Text laid out for the pixels it gets: lines elided or dropped, titles wrapped. The waterfall's
// labels use it so a chart at the window's default size reads as well as a large export.
#pragma once

#include <QString>

class QFontMetrics;

namespace wb::gui {

// Every line of `text` elided (with "…") to `width` pixels.
QString elideLines(const QString& text, const QFontMetrics& metrics, int width);
// The first line of `text`, elided to `width`, then the following lines as long as each fits whole;
// from the first that does not fit on, the rest is dropped (the lines come in order of importance).
QString keepFittingLines(const QString& text, const QFontMetrics& metrics, int width);
// Each line of `text` wrapped after spaces, '_', '=', '.' and ',' into lines of at most `width`
// pixels; at most `maxLines` lines, the last elided when more would be needed.
QString wrapAtBreaks(const QString& text, const QFontMetrics& metrics, int width, int maxLines);
// `text` broken at spaces into lines of at most `width` pixels (a single longer word is elided).
QString wrapWords(const QString& text, const QFontMetrics& metrics, int width);

}  // namespace wb::gui
