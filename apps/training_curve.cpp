#include "training_curve.hpp"

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

// The span of the panel's recorded values, widened a little so that lines do not touch the frame.
Range value_range(const CurvePanel& panel) {
  double low = std::numeric_limits<double>::infinity(), high = -low;
  for (const CurveSeries& series : panel.series) {
    for (const double value : series.values) {
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

std::size_t epoch_count(const TrainingCurve& curve) {
  std::size_t epochs = 0;
  for (const CurvePanel& panel : curve.panels)
    for (const CurveSeries& series : panel.series) epochs = std::max(epochs, series.values.size());
  return epochs;
}

// Maps data coordinates to one panel's plot area.
struct Frame {
  double top;
  Range x, y;

  double px(double epoch) const { return kLeft + (epoch - x.low) / (x.high - x.low) * kPlotWidth; }
  double py(double value) const { return top + kPanelHeight - (value - y.low) / (y.high - y.low) * kPanelHeight; }
};

bool recorded(const std::vector<double>& values, std::size_t i) { return i < values.size() && std::isfinite(values[i]); }

void draw_series(std::ostream& out, const Frame& frame, const CurveSeries& series, const char* color) {
  const std::vector<double>& v = series.values;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!recorded(v, i) || (i > 0 && recorded(v, i - 1))) continue;  // not the start of a run
    out << "<path class=\"series\" fill=\"none\" stroke=\"" << color << "\" stroke-width=\"1.8\" d=\"";
    std::size_t end = i;
    for (; recorded(v, end); ++end)
      out << (end == i ? "M" : " L") << num(frame.px(static_cast<double>(end + 1))) << ',' << num(frame.py(v[end]));
    out << "\"/>\n";
    if (end == i + 1)
      out << "<circle class=\"point\" fill=\"" << color << "\" r=\"3\" cx=\"" << num(frame.px(static_cast<double>(i + 1)))
          << "\" cy=\"" << num(frame.py(v[i])) << "\"/>\n";
  }
}

void draw_axes(std::ostream& out, const Frame& frame, const std::string& y_label) {
  const double bottom = frame.top + kPanelHeight;
  out << "<rect x=\"" << num(kLeft) << "\" y=\"" << num(frame.top) << "\" width=\"" << num(kPlotWidth)
      << "\" height=\"" << num(kPanelHeight) << "\" fill=\"none\" stroke=\"#444\"/>\n";
  for (const double tick : axis_ticks(frame.y.low, frame.y.high, 5)) {
    const std::string y = num(frame.py(tick));
    out << "<line x1=\"" << num(kLeft) << "\" x2=\"" << num(kLeft + kPlotWidth) << "\" y1=\"" << y << "\" y2=\"" << y
        << "\" stroke=\"#ddd\"/>\n<text x=\"" << num(kLeft - 6) << "\" y=\"" << y
        << "\" text-anchor=\"end\" dominant-baseline=\"middle\">" << tick_label(tick) << "</text>\n";
  }
  for (const double tick : axis_ticks(frame.x.low, frame.x.high, 8, true)) {
    const std::string x = num(frame.px(tick));
    out << "<line x1=\"" << x << "\" x2=\"" << x << "\" y1=\"" << num(bottom) << "\" y2=\"" << num(bottom + 5)
        << "\" stroke=\"#444\"/>\n<text x=\"" << x << "\" y=\"" << num(bottom + 18) << "\" text-anchor=\"middle\">"
        << tick_label(tick) << "</text>\n";
  }
  const std::string middle = num(frame.top + kPanelHeight / 2);
  out << "<text x=\"22\" y=\"" << middle << "\" text-anchor=\"middle\" transform=\"rotate(-90 22 " << middle << ")\">"
      << escaped(y_label) << "</text>\n";
  out << "<text x=\"" << num(kLeft + kPlotWidth / 2) << "\" y=\"" << num(bottom + 36)
      << "\" text-anchor=\"middle\">epoch</text>\n";
}

void draw_legend(std::ostream& out, const Frame& frame, const CurvePanel& panel) {
  for (std::size_t k = 0; k < panel.series.size(); ++k) {
    const double y = frame.top + 12 + 20 * static_cast<double>(k);
    out << "<line x1=\"" << num(kLegendLeft) << "\" x2=\"" << num(kLegendLeft + 24) << "\" y1=\"" << num(y)
        << "\" y2=\"" << num(y) << "\" stroke=\"" << kColors[k % std::size(kColors)] << "\" stroke-width=\"2.5\"/>\n"
        << "<text x=\"" << num(kLegendLeft + 30) << "\" y=\"" << num(y) << "\" dominant-baseline=\"middle\">"
        << escaped(panel.series[k].label) << "</text>\n";
  }
}

bool has_values(const CurvePanel& panel) {
  return std::any_of(panel.series.begin(), panel.series.end(), [](const CurveSeries& series) {
    return std::any_of(series.values.begin(), series.values.end(), [](double v) { return std::isfinite(v); });
  });
}

void draw_panel(std::ostream& out, const Frame& frame, const CurvePanel& panel) {
  draw_axes(out, frame, panel.y_label);
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

std::string training_curve_svg(const TrainingCurve& curve) {
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
    const Frame frame{kTitleHeight + static_cast<double>(p) * (kPanelHeight + kPanelGap), x,
                      value_range(curve.panels[p])};
    draw_panel(out, frame, curve.panels[p]);
  }
  out << "</svg>\n";
  return out.str();
}

}  // namespace edgewise
