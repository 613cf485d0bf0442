// Training curves as a standalone SVG image (`train --curve`): panels stacked over a shared epoch
// axis (e.g. the training loss above the validation metric), each with its own y axis, ticks, labels
// and legend.
#pragma once

#include <string>
#include <vector>

namespace edgewise {

/// One line of a panel.
struct CurveSeries {
  std::string label;           ///< in the legend
  std::vector<double> values;  ///< values[i] belongs to epoch i + 1; NaN or infinite: not recorded
};

/// One plot of the image, with its own y axis.
struct CurvePanel {
  std::string y_label;               ///< the y axis' title
  std::vector<CurveSeries> series;   ///< the lines, coloured in order
};

/// A whole image.
struct TrainingCurve {
  std::string title;               ///< above the panels
  std::vector<CurvePanel> panels;  ///< top to bottom
};

/// The image as SVG text. Each run of recorded values is one `<path class="series">` with one M or L
/// command per value; a value with no recorded neighbour is also drawn as a `<circle class="point">`.
/// A panel without any recorded value says so in its plot area. Text is XML-escaped.
std::string training_curve_svg(const TrainingCurve& curve);

/// Tick positions for an axis over [low, high]: multiples of 1, 2 or 5 times a power of ten, about
/// `count` of them, all within the range. With integer_steps, steps are whole numbers.
std::vector<double> axis_ticks(double low, double high, int count, bool integer_steps = false);

}  // namespace edgewise
