#include "gui/charts/chart_pens.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace wb::gui {

namespace {
constexpr double kTrainWidth = 2.0;
constexpr double kValidationWidth = 1.4;
constexpr double kRawWidth = 1.0;
constexpr int kRawAlpha = 60;
// A shade from a later palette pass keeps the hue (and saturation) of its first-pass colour; the
// tolerances absorb the rounding to 8-bit RGB, and stay below the 10 degrees between tab10's red
// and brown, the closest pair.
constexpr int kHueToleranceDeg = 5;
constexpr double kSaturationTolerance = 0.1;

// Dash patterns in units of the pen width, as Qt counts them: dash, gap, dash, gap...
const std::array<QList<qreal>, 4>& variantPatterns() {
    static const std::array<QList<qreal>, 4> patterns = {QList<qreal>{6, 2, 1, 2}, QList<qreal>{6, 2, 1, 2, 1, 2},
                                                         QList<qreal>{10, 3}, QList<qreal>{1, 2}};
    return patterns;
}

bool sameHue(const QColor& a, const QColor& b) {
    const QColor x = a.toHsl(), y = b.toHsl();
    if (std::abs(x.hslSaturationF() - y.hslSaturationF()) > kSaturationTolerance) return false;
    if (x.hslHue() < 0 || y.hslHue() < 0) return x.hslHue() == y.hslHue();  // both grey
    const int d = std::abs(x.hslHue() - y.hslHue());
    return std::min(d, 360 - d) <= kHueToleranceDeg;
}

QPen linePen(const QColor& color, double width) {
    QPen pen(color, width);
    pen.setCapStyle(Qt::FlatCap);
    return pen;
}

// The validation pattern of a variant: the same dashes at the thinner width, gaps three times as long.
QList<qreal> sparser(const QList<qreal>& pattern) {
    QList<qreal> out;
    for (qsizetype i = 0; i < pattern.size(); ++i)
        out << pattern[i] * (kTrainWidth / kValidationWidth) * (i % 2 == 1 ? 3.0 : 1.0);
    return out;
}
}  // namespace

std::vector<int> hueVariants(const std::vector<QColor>& colors) {
    // Compared per distinct colour seen so far (the palette has a few dozen), with how often it came:
    // each colour against each earlier one took seconds for ten thousand runs.
    std::vector<std::pair<QColor, int>> seen;
    std::vector<int> variants(colors.size(), 0);
    for (std::size_t i = 0; i < colors.size(); ++i) {
        const QColor hsl = colors[i].toHsl();  // once: sameHue() converts nothing more then
        for (const auto& [color, count] : seen)
            if (sameHue(hsl, color)) variants[i] += count;
        const auto same = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == hsl; });
        if (same != seen.end())
            ++same->second;
        else
            seen.emplace_back(hsl, 1);
    }
    return variants;
}

RunPens runPens(const QColor& color, int variant) {
    RunPens pens{linePen(color, kTrainWidth), linePen(color, kValidationWidth), linePen(color, kRawWidth)};
    QColor faint = color;
    faint.setAlpha(kRawAlpha);
    pens.raw.setColor(faint);
    if (variant <= 0) {
        pens.validation.setWidthF(kTrainWidth);
        pens.validation.setStyle(Qt::DashLine);
        return pens;
    }
    const QList<qreal>& pattern = variantPatterns()[static_cast<std::size_t>(variant - 1) % variantPatterns().size()];
    pens.train.setDashPattern(pattern);
    pens.validation.setDashPattern(sparser(pattern));
    return pens;
}

}  // namespace wb::gui
