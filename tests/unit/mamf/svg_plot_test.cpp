// The SVG plot: well-formed XML (checked by a small parser here; the CLI tests also parse it with
// Python's xml.dom.minidom), a line per series for 1-D sweeps, a heatmap for 2-D sweeps.
#include "drivers/mamf/svg_plot.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>

namespace gemmtune::mamf {
namespace {

// Minimal well-formedness: tags nest and close, attributes are quoted, entities are known, one
// root element. Enough to catch what a hand-written writer gets wrong.
::testing::AssertionResult well_formed(const std::string& xml) {
  std::vector<std::string> open;
  int roots = 0;
  std::size_t i = 0;
  const std::regex attrs(R"((\s+[A-Za-z_:][-A-Za-z0-9_:.]*="[^"<&]*(&(amp|lt|gt|quot|apos);[^"<&]*)*")*\s*/?)");
  while (i < xml.size()) {
    if (xml[i] == '<') {
      const auto end = xml.find('>', i);
      if (end == std::string::npos) return ::testing::AssertionFailure() << "unclosed tag at " << i;
      const std::string tag = xml.substr(i + 1, end - i - 1);
      i = end + 1;
      if (tag.rfind("?xml", 0) == 0) continue;
      if (tag[0] == '/') {
        if (open.empty() || open.back() != tag.substr(1))
          return ::testing::AssertionFailure() << "</" << tag.substr(1) << "> closes "
                                               << (open.empty() ? "nothing" : open.back());
        open.pop_back();
        continue;
      }
      const auto name_end = tag.find_first_of(" \t\n/");
      const std::string name = tag.substr(0, name_end);
      const std::string rest = name_end == std::string::npos ? "" : tag.substr(name_end);
      if (!std::regex_match(rest, attrs)) return ::testing::AssertionFailure() << "bad attributes: <" << tag << ">";
      if (open.empty()) ++roots;
      if (tag.back() != '/') open.push_back(name);
      continue;
    }
    if (xml[i] == '&') {
      const auto semi = xml.find(';', i);
      const std::string entity = xml.substr(i, semi - i + 1);
      if (entity != "&amp;" && entity != "&lt;" && entity != "&gt;" && entity != "&quot;" && entity != "&apos;")
        return ::testing::AssertionFailure() << "unknown entity " << entity;
    }
    if (xml[i] == '>') return ::testing::AssertionFailure() << "stray '>' at " << i;
    ++i;
  }
  if (!open.empty()) return ::testing::AssertionFailure() << "<" << open.back() << "> never closed";
  if (roots != 1) return ::testing::AssertionFailure() << roots << " root elements";
  return ::testing::AssertionSuccess();
}

std::size_t count(const std::string& s, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) ++n;
  return n;
}

std::vector<ShapeResult> sweep(std::vector<Shape> shapes, double scale = 1) {
  std::vector<ShapeResult> out;
  for (const auto& s : shapes) {
    const double t = scale * (100 + static_cast<double>(s.m % 1000) / 10);
    out.push_back({s, {t, t + 1, t + 5}, {}, "Default"});
  }
  return out;
}

TEST(SvgPlot, EscapesText) {
  EXPECT_EQ(xml_escape(R"(a<b>&"c'd)"), "a&lt;b&gt;&amp;&quot;c&apos;d");
  EXPECT_EQ(xml_escape(std::string("x\x01y")), "x y");
}

TEST(SvgPlot, OneDimensionalSweepIsALinePerSeriesWithThePeak) {
  std::vector<Shape> shapes;
  for (int m = 256; m < 4096; m += 256) shapes.push_back({m, 4096, 4096});
  const std::string svg = plot_sweep(sweep(shapes), sweep(shapes, 1.02), "tuned",
                                     "mamf <bf16> & \"H200\"", 989.4);
  EXPECT_TRUE(well_formed(svg));
  EXPECT_EQ(count(svg, "<polyline"), 2u);                 // Default and tuned
  EXPECT_EQ(count(svg, "<circle"), 2 * shapes.size());   // a tooltip per point
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);  // the peak
  EXPECT_NE(svg.find("peak 989"), std::string::npos);
  EXPECT_NE(svg.find(">M</text>"), std::string::npos);   // x axis: the swept dimension
  EXPECT_NE(svg.find("mamf &lt;bf16&gt; &amp; &quot;H200&quot;"), std::string::npos);
}

TEST(SvgPlot, TwoDimensionalSweepIsAHeatmap) {
  std::vector<Shape> shapes;
  for (int m = 1024; m <= 4096; m += 1024)
    for (int n = 1024; n <= 3072; n += 1024) shapes.push_back({m, n, 4096});
  const std::string svg = plot_sweep(sweep(shapes), {}, "tuned", "2-D", std::nullopt);
  EXPECT_TRUE(well_formed(svg));
  EXPECT_EQ(count(svg, "<polyline"), 0u);
  EXPECT_EQ(count(svg, "<title>M="), shapes.size());  // one cell per shape, with its value
  EXPECT_NE(svg.find("<title>M=4096 N=3072: "), std::string::npos);
}

TEST(SvgPlot, ThreeDimensionsGoOverTheShapeIndexAndEmptyIsStillValid) {
  std::vector<Shape> shapes{{1, 2, 3}, {2, 3, 4}, {3, 4, 5}};
  const std::string svg = plot_sweep(sweep(shapes), {}, "tuned", "3-D", std::nullopt);
  EXPECT_TRUE(well_formed(svg));
  EXPECT_NE(svg.find("shape (sweep order)"), std::string::npos);
  const std::string empty = plot_sweep({}, {}, "tuned", "nothing", std::nullopt);
  EXPECT_TRUE(well_formed(empty));
  EXPECT_NE(empty.find("no data"), std::string::npos);
  Heatmap nan_map{"t", "x", "y", "v", {1, 2}, {1}, {{std::nan(""), 5}}};
  EXPECT_TRUE(well_formed(render_heatmap(nan_map)));
}

TEST(SvgPlot, TheCheckerRejectsBrokenXml) {
  EXPECT_FALSE(well_formed("<svg><g></svg>"));
  EXPECT_FALSE(well_formed("<svg a=b></svg>"));
  EXPECT_FALSE(well_formed("<svg>&nbsp;</svg>"));
  EXPECT_FALSE(well_formed("<a/><b/>"));
}

}  // namespace
}  // namespace gemmtune::mamf
