// Line and point plots as a standalone SVG image: panels stacked one above the other, each with its
// own axes, ticks, labels and legend. Training curves (`train --plot`) share an epoch axis (the
// training loss above the validation metric); calibration plots (`eval --plot`) give their x values.
#pragma once

#include <string>
#include <vector>

namespace edgewise {

/// One line, or set of points, of a panel.
struct PlotSeries {
  std::string label;           ///< in the legend
  std::vector<double> values;  ///< y; NaN or infinite: not recorded
  std::vector<double> x = {};  ///< x of each value; empty: values[i] belongs to epoch i + 1
  bool points = false;         ///< a point per value instead of a line
};

/// One plot of the image, with its own axes.
struct PlotPanel {
  std::string y_label;              ///< the y axis' title
  std::vector<PlotSeries> series;   ///< coloured in order
  std::string x_label = "epoch";    ///< the x axis' title; series without x values count epochs
};

/// A whole image.
struct Plot {
  std::string title;               ///< above the panels
  std::vector<PlotPanel> panels;  ///< top to bottom
};

/// The image as SVG text. Each run of recorded values is one `<path class="series">` with one M or L
/// command per value; a value with no recorded neighbour is also drawn as a `<circle class="point">`.
/// A panel without any recorded value says so in its plot area. Text is XML-escaped.
std::string plot_svg(const Plot& curve);

/// Tick positions for an axis over [low, high]: multiples of 1, 2 or 5 times a power of ten, about
/// `count` of them, all within the range. With integer_steps, steps are whole numbers.
std::vector<double> axis_ticks(double low, double high, int count, bool integer_steps = false);

}  // namespace edgewise
