#include "plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace edgewise {
namespace {

// Layout in SVG user units.
constexpr double kWidth = 760, kLeft = 80, kPlotWidth = 460, kLegendLeft = kLeft + kPlotWidth + 20;
constexpr double kTitleHeight = 50, kPanelHeight = 220, kPanelGap = 60, kBottom = 60;
constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                   "#9467bd", "#8c564b", "#e377c2", "#17becf"};

std::string escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string num(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

std::string tick_label(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", std::abs(value) < 1e-12 ? 0.0 : value);
  return text;
}

struct Range {
  double low = 0, high = 1;
};

// The span of `values` (NaN or infinite ones left out), widened a little so that lines do not touch
// the frame.
Range padded_range(const std::vector<const std::vector<double>*>& all_values) {
  double low = std::numeric_limits<double>::infinity(), high = -low;
  for (const std::vector<double>* values : all_values) {
    for (const double value : *values) {
      if (!std::isfinite(value)) continue;
      low = std::min(low, value);
      high = std::max(high, value);
    }
  }
  if (!std::isfinite(low)) return {};
  if (high - low < 1e-12 * std::max(1.0, std::abs(high))) {
    const double pad = std::max(std::abs(high) * 0.1, 0.5);
    return {low - pad, high + pad};
  }
  const double pad = (high - low) * 0.05;
  return {low - pad, high + pad};
}

Range value_range(const PlotPanel& panel) {
  std::vector<const std::vector<double>*> values;
  for (const PlotSeries& series : panel.series) values.push_back(&series.values);
  return padded_range(values);
}

bool counts_epochs(const PlotPanel& panel) {
  return std::all_of(panel.series.begin(), panel.series.end(), [](const PlotSeries& series) { return series.x.empty(); });
}

// The panel's x span: the given x values', or the image's epochs.
Range x_range(const PlotPanel& panel, Range epochs) {
  if (counts_epochs(panel)) return epochs;
  std::vector<const std::vector<double>*> values;
  for (const PlotSeries& series : panel.series) values.push_back(&series.x);
  return padded_range(values);
}

double x_of(const PlotSeries& series, std::size_t i) {
  return series.x.empty() ? static_cast<double>(i + 1) : series.x[i];
}

std::size_t epoch_count(const Plot& curve) {
  std::size_t epochs = 0;
  for (const PlotPanel& panel : curve.panels)
    for (const PlotSeries& series : panel.series)
      if (series.x.empty()) epochs = std::max(epochs, series.values.size());
  return epochs;
}

// Maps data coordinates to one panel's plot area.
struct Frame {
  double top;
  Range x, y;

  double px(double value) const { return kLeft + (value - x.low) / (x.high - x.low) * kPlotWidth; }
  double py(double value) const { return top + kPanelHeight - (value - y.low) / (y.high - y.low) * kPanelHeight; }
};

bool recorded(const PlotSeries& series, std::size_t i) {
  return i < series.values.size() && std::isfinite(series.values[i]) && std::isfinite(x_of(series, i));
}

void draw_point(std::ostream& out, const Frame& frame, const PlotSeries& series, std::size_t i, const char* color) {
  out << "<circle class=\"point\" fill=\"" << color << "\" r=\"3\" cx=\"" << num(frame.px(x_of(series, i)))
      << "\" cy=\"" << num(frame.py(series.values[i])) << "\"/>\n";
}

void draw_series(std::ostream& out, const Frame& frame, const PlotSeries& series, const char* color) {
  for (std::size_t i = 0; i < series.values.size(); ++i) {
    if (series.points) {
      if (recorded(series, i)) draw_point(out, frame, series, i, color);
      continue;
    }
    if (!recorded(series, i) || (i > 0 && recorded(series, i - 1))) continue;  // not the start of a run
    out << "<path class=\"series\" fill=\"none\" stroke=\"" << color << "\" stroke-width=\"1.8\" d=\"";
    std::size_t end = i;
    for (; recorded(series, end); ++end)
      out << (end == i ? "M" : " L") << num(frame.px(x_of(series, end))) << ',' << num(frame.py(series.values[end]));
    out << "\"/>\n";
    if (end == i + 1) draw_point(out, frame, series, i, color);
  }
}

void draw_axes(std::ostream& out, const Frame& frame, const PlotPanel& panel) {
  const double bottom = frame.top + kPanelHeight;
  out << "<rect x=\"" << num(kLeft) << "\" y=\"" << num(frame.top) << "\" width=\"" << num(kPlotWidth)
      << "\" height=\"" << num(kPanelHeight) << "\" fill=\"none\" stroke=\"#444\"/>\n";
  for (const double tick : axis_ticks(frame.y.low, frame.y.high, 5)) {
    const std::string y = num(frame.py(tick));
    out << "<line x1=\"" << num(kLeft) << "\" x2=\"" << num(kLeft + kPlotWidth) << "\" y1=\"" << y << "\" y2=\"" << y
        << "\" stroke=\"#ddd\"/>\n<text x=\"" << num(kLeft - 6) << "\" y=\"" << y
        << "\" text-anchor=\"end\" dominant-baseline=\"middle\">" << tick_label(tick) << "</text>\n";
  }
  for (const double tick : axis_ticks(frame.x.low, frame.x.high, 8, counts_epochs(panel))) {
    const std::string x = num(frame.px(tick));
    out << "<line x1=\"" << x << "\" x2=\"" << x << "\" y1=\"" << num(bottom) << "\" y2=\"" << num(bottom + 5)
        << "\" stroke=\"#444\"/>\n<text x=\"" << x << "\" y=\"" << num(bottom + 18) << "\" text-anchor=\"middle\">"
        << tick_label(tick) << "</text>\n";
  }
  const std::string middle = num(frame.top + kPanelHeight / 2);
  out << "<text x=\"22\" y=\"" << middle << "\" text-anchor=\"middle\" transform=\"rotate(-90 22 " << middle << ")\">"
      << escaped(panel.y_label) << "</text>\n";
  out << "<text x=\"" << num(kLeft + kPlotWidth / 2) << "\" y=\"" << num(bottom + 36) << "\" text-anchor=\"middle\">"
      << escaped(panel.x_label) << "</text>\n";
}

void draw_legend(std::ostream& out, const Frame& frame, const PlotPanel& panel) {
  for (std::size_t k = 0; k < panel.series.size(); ++k) {
    const double y = frame.top + 12 + 20 * static_cast<double>(k);
    const char* color = kColors[k % std::size(kColors)];
    if (panel.series[k].points)
      out << "<circle fill=\"" << color << "\" r=\"3\" cx=\"" << num(kLegendLeft + 12) << "\" cy=\"" << num(y)
          << "\"/>\n";
    else
      out << "<line x1=\"" << num(kLegendLeft) << "\" x2=\"" << num(kLegendLeft + 24) << "\" y1=\"" << num(y)
          << "\" y2=\"" << num(y) << "\" stroke=\"" << color << "\" stroke-width=\"2.5\"/>\n";
    out << "<text x=\"" << num(kLegendLeft + 30) << "\" y=\"" << num(y) << "\" dominant-baseline=\"middle\">"
        << escaped(panel.series[k].label) << "</text>\n";
  }
}

bool has_values(const PlotPanel& panel) {
  return std::any_of(panel.series.begin(), panel.series.end(), [](const PlotSeries& series) {
    return std::any_of(series.values.begin(), series.values.end(), [](double v) { return std::isfinite(v); });
  });
}

void draw_panel(std::ostream& out, const Frame& frame, const PlotPanel& panel) {
  draw_axes(out, frame, panel);
  if (!has_values(panel))
    out << "<text x=\"" << num(kLeft + kPlotWidth / 2) << "\" y=\"" << num(frame.top + kPanelHeight / 2)
        << "\" text-anchor=\"middle\" fill=\"#888\">no values recorded</text>\n";
  for (std::size_t k = 0; k < panel.series.size(); ++k)
    draw_series(out, frame, panel.series[k], kColors[k % std::size(kColors)]);
  draw_legend(out, frame, panel);
}

}  // namespace

std::vector<double> axis_ticks(double low, double high, int count, bool integer_steps) {
  if (!(high > low) || count < 1) return {};
  const double rough = (high - low) / count;
  const double power = std::pow(10.0, std::floor(std::log10(rough)));
  double step = power * 10;
  for (const double multiple : {1.0, 2.0, 5.0})
    if (rough <= multiple * power) {
      step = multiple * power;
      break;
    }
  if (integer_steps) step = std::max(step, 1.0);
  std::vector<double> ticks;
  const double first = std::ceil(low / step) * step;
  for (int i = 0; first + i * step <= high + step * 1e-9; ++i) ticks.push_back(first + i * step);
  return ticks;
}

std::string plot_svg(const Plot& curve) {
  const auto panels = static_cast<double>(curve.panels.size());
  const double height = kTitleHeight + panels * kPanelHeight + std::max(panels - 1, 0.0) * kPanelGap + kBottom;
  const auto epochs = static_cast<double>(epoch_count(curve));
  // One epoch gets a little room on both sides; more span from the first to the last.
  const Range x = epochs > 1 ? Range{1, epochs} : Range{0.5, 1.5};
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(kWidth) << "\" height=\"" << num(height)
      << "\" viewBox=\"0 0 " << num(kWidth) << ' ' << num(height) << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << num(kWidth / 2) << "\" y=\"30\" text-anchor=\"middle\" font-size=\"16\">"
      << escaped(curve.title) << "</text>\n";
  for (std::size_t p = 0; p < curve.panels.size(); ++p) {
    const Frame frame{kTitleHeight + static_cast<double>(p) * (kPanelHeight + kPanelGap), x_range(curve.panels[p], x),
                      value_range(curve.panels[p])};
    draw_panel(out, frame, curve.panels[p]);
  }
  out << "</svg>\n";
  return out.str();
}

}  // namespace edgewise
