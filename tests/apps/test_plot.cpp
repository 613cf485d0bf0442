// Plot images: well-formed SVG, one path command per recorded value, gaps for missing values, a
// single epoch, empty panels, escaped text, series at given x values, points, and the axis ticks.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <regex>
#include <string>
#include <vector>

#include "plot.hpp"

namespace edgewise {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A small well-formedness check: tags nest and close in order, attribute values are quoted, and
// text holds no raw '<' and no '&' but the five XML entities. Returns "" or what is wrong.
std::string xml_problem(const std::string& xml) {
  std::vector<std::string> open;
  std::size_t i = 0;
  if (xml.starts_with("<?xml")) i = xml.find("?>") + 2;
  while (i < xml.size()) {
    if (xml[i] == '&') {
      static const std::regex entity("^&(amp|lt|gt|quot|apos);");
      if (!std::regex_search(xml.substr(i, 8), entity)) return "bare & at " + std::to_string(i);
      ++i;
      continue;
    }
    if (xml[i] != '<') {
      ++i;
      continue;
    }
    const std::size_t end = xml.find('>', i);
    if (end == std::string::npos) return "unclosed tag at " + std::to_string(i);
    const std::string tag = xml.substr(i + 1, end - i - 1);
    if (tag.find('<') != std::string::npos) return "'<' inside a tag at " + std::to_string(i);
    if (tag.starts_with("/")) {
      if (open.empty() || open.back() != tag.substr(1)) return "mismatched </" + tag.substr(1) + ">";
      open.pop_back();
    } else {
      static const std::regex element(R"(^[a-zA-Z]+(\s+[a-zA-Z][a-zA-Z0-9:-]*="[^"<]*")*\s*/?$)");
      if (!std::regex_match(tag, element)) return "malformed tag <" + tag + ">";
      if (!tag.ends_with("/")) open.push_back(tag.substr(0, tag.find_first_of(" \n/")));
    }
    i = end + 1;
  }
  return open.empty() ? "" : "<" + open.back() + "> is never closed";
}

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// The d attributes of the series paths, in order.
std::vector<std::string> series_paths(const std::string& svg) {
  static const std::regex path(R"re(<path class="series"[^>]* d="([^"]*)")re");
  std::vector<std::string> paths;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), path); it != std::sregex_iterator(); ++it)
    paths.push_back((*it)[1]);
  return paths;
}

std::size_t commands(const std::string& d) { return count(d, "M") + count(d, "L"); }

Plot two_panels(std::vector<double> loss, std::vector<double> metric) {
  return {"Training of model.ew",
          {{"train loss", {{"train loss", std::move(loss)}}}, {"validation rmse", {{"validation", std::move(metric)}}}}};
}

TEST(TrainingCurveTest, IsWellFormedWithOnePointPerEpoch) {
  const std::string svg = plot_svg(two_panels({1.0, 0.7, 0.5, 0.45, 0.4}, {0.9, 0.8, 0.85, 0.7, 0.72}));
  EXPECT_EQ(xml_problem(svg), "") << svg;
  EXPECT_TRUE(svg.starts_with("<?xml")) << svg;
  const std::vector<std::string> paths = series_paths(svg);
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(commands(paths[0]), 5u);
  EXPECT_EQ(commands(paths[1]), 5u);
  EXPECT_EQ(count(svg, "<circle"), 0u);
  for (const char* text : {">Training of model.ew<", ">train loss<", ">validation rmse<", ">validation<", ">epoch<"})
    EXPECT_NE(svg.find(text), std::string::npos) << text;
}

TEST(TrainingCurveTest, MissingValuesBreakTheLine) {
  const std::string svg =
      plot_svg(two_panels({1.0, 0.8, 0.6, 0.5, 0.4}, {kNaN, 0.9, 0.8, kNaN, 0.7}));
  EXPECT_EQ(xml_problem(svg), "") << svg;
  const std::vector<std::string> paths = series_paths(svg);
  ASSERT_EQ(paths.size(), 3u);  // the loss, then the metric's runs of epochs 2-3 and 5
  EXPECT_EQ(commands(paths[1]), 2u);
  EXPECT_EQ(commands(paths[2]), 1u);
  EXPECT_EQ(count(svg, "<circle class=\"point\""), 1u) << "epoch 5 stands alone";
  EXPECT_FALSE(std::regex_search(svg, std::regex("[^a-z](nan|inf)", std::regex::icase)))
      << "no coordinate or label is NaN or infinite";
}

TEST(TrainingCurveTest, OneEpochIsAPointInTheMiddle) {
  const std::string svg = plot_svg(two_panels({0.5}, {0.25}));
  EXPECT_EQ(xml_problem(svg), "") << svg;
  EXPECT_EQ(series_paths(svg).size(), 2u);
  EXPECT_EQ(count(svg, "<circle class=\"point\""), 2u);
  // x runs from 0.5 to 1.5 over the 460-wide plot from x = 80: epoch 1 sits at 310.
  EXPECT_NE(svg.find("cx=\"310.00\""), std::string::npos) << svg;
}

TEST(TrainingCurveTest, APanelWithoutValuesSaysSo) {
  const std::string svg = plot_svg(two_panels({0.5, 0.4, 0.3}, {kNaN, kNaN, kNaN}));
  EXPECT_EQ(xml_problem(svg), "") << svg;
  EXPECT_EQ(series_paths(svg).size(), 1u);
  EXPECT_EQ(count(svg, ">no values recorded<"), 1u);
}

TEST(TrainingCurveTest, EscapesText) {
  Plot curve = two_panels({1, 2}, {3, 4});
  curve.title = "Training of <a & \"b\">.ew";
  const std::string svg = plot_svg(curve);
  EXPECT_EQ(xml_problem(svg), "") << svg;
  EXPECT_NE(svg.find("Training of &lt;a &amp; &quot;b&quot;&gt;.ew"), std::string::npos);
}

TEST(TrainingCurveTest, SeveralSeriesGetTheirOwnColoursAndLegendEntries) {
  Plot curve{"ensemble", {{"loss", {{"member 1", {3, 2, 1}}, {"member 2", {4, 2, 1.5}}}}}};
  const std::string svg = plot_svg(curve);
  EXPECT_EQ(xml_problem(svg), "") << svg;
  EXPECT_EQ(series_paths(svg).size(), 2u);
  EXPECT_NE(svg.find(">member 2<"), std::string::npos);
  EXPECT_EQ(count(svg, "stroke=\"#1f77b4\""), 2u);  // member 1's line and legend mark
  EXPECT_EQ(count(svg, "stroke=\"#d62728\""), 2u);
}

// A panel with x values of its own: each value sits at its x, the axis is named as given and its
// ticks need not be whole; a points series is one circle a value and no path.
TEST(PlotTest, SeriesAtGivenXAndPoints) {
  const Plot plot{"Calibration",
                  {{"observed", {{"ideal", {0, 1}, {0, 1}}, {"rows", {0.2, 0.6, kNaN}, {0.25, 0.75, 0.5}, true}},
                    "expected"}}};
  const std::string svg = plot_svg(plot);
  EXPECT_EQ(xml_problem(svg), "") << svg;
  const std::vector<std::string> paths = series_paths(svg);
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_EQ(commands(paths[0]), 2u);
  EXPECT_EQ(count(svg, "<circle class=\"point\""), 2u) << "the NaN value is left out";
  EXPECT_NE(svg.find(">expected<"), std::string::npos);
  EXPECT_EQ(svg.find(">epoch<"), std::string::npos);
  EXPECT_NE(svg.find(">0.2<"), std::string::npos) << "ticks in steps of 0.2";
  // x spans 0 to 1 widened by 5 % on both sides over the 460-wide plot from x = 80: 0.25 sits at
  // 80 + (0.3 / 1.1) 460 = 205.45.
  EXPECT_NE(svg.find("cx=\"205.45\""), std::string::npos) << svg;
}

TEST(TrainingCurveTest, ChecksTheXmlChecker) {
  EXPECT_NE(xml_problem("<svg><g></svg>"), "");
  EXPECT_NE(xml_problem("<svg><text>a & b</text></svg>"), "");
  EXPECT_NE(xml_problem("<svg width=3></svg>"), "");
  EXPECT_EQ(xml_problem("<svg a=\"1\"><text>a &amp; b</text><g/></svg>"), "");
}

void expect_ticks(const std::vector<double>& ticks, const std::vector<double>& expected) {
  ASSERT_EQ(ticks.size(), expected.size());
  for (std::size_t i = 0; i < ticks.size(); ++i) EXPECT_NEAR(ticks[i], expected[i], 1e-12) << "tick " << i;
}

TEST(AxisTicksTest, PicksRoundSteps) {
  expect_ticks(axis_ticks(0, 1, 5), {0, 0.2, 0.4, 0.6, 0.8, 1});
  expect_ticks(axis_ticks(1, 100, 8, true), {20, 40, 60, 80, 100});
  expect_ticks(axis_ticks(0.5, 1.5, 8, true), {1});
  expect_ticks(axis_ticks(-0.37, -0.13, 5), {-0.35, -0.3, -0.25, -0.2, -0.15});
  EXPECT_TRUE(axis_ticks(1, 1, 5).empty());
}

}  // namespace
}  // namespace edgewise
