// Hand-written SVG charts of a MAMF sweep that a person opens in a browser: TFLOPS over the swept
// dimension, one line per series (Default, tuned, the peak as a dashed line), for 1-D sweeps; a
// heatmap of mean TFLOPS over the two swept dimensions for 2-D sweeps.
//
// Contract: the output is a standalone, well-formed SVG 1.1 document (text is XML-escaped, no
// external references); every point carries a <title> tooltip with its exact value. Empty input
// gives a valid document that says "no data". Sweeps over all three dimensions are drawn as
// lines over the shape index.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "drivers/mamf/sweep_stats.hpp"

namespace gemmtune::mamf {

struct LineSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y)
  std::vector<std::string> labels;                // tooltip per point (optional)
};

struct LinePlot {
  std::string title, x_label, y_label;
  std::vector<LineSeries> series;
  std::optional<double> reference_y;  // drawn dashed across the chart
  std::string reference_label;
};

struct Heatmap {
  std::string title, x_label, y_label, value_label;
  std::vector<double> xs, ys;
  std::vector<std::vector<double>> values;  // [y index][x index]; NaN where nothing was measured
};

std::string render_line_plot(const LinePlot& plot);
std::string render_heatmap(const Heatmap& map);

// Chooses the chart for a sweep's results (see the contract above). `tuned` may be empty.
std::string plot_sweep(const std::vector<ShapeResult>& baseline,
                       const std::vector<ShapeResult>& tuned, const std::string& tuned_label,
                       const std::string& title, std::optional<double> peak_tflops);

// "&amp;" etc.: text made safe for XML character data and attribute values.
std::string xml_escape(std::string_view text);

}  // namespace gemmtune::mamf
