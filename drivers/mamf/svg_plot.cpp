#include "drivers/mamf/svg_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace gemmtune::mamf {
namespace {

constexpr double kWidth = 900, kHeight = 520;
constexpr double kLeft = 80, kRight = 170, kTop = 50, kBottom = 60;
constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"};

std::string open_svg(const std::string& title) {
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<title>{2}</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{3}\" y=\"28\" font-size=\"16\" text-anchor=\"middle\">{2}</text>\n",
      kWidth, kHeight, xml_escape(title), kWidth / 2);
}

// Round tick steps (1, 2, 5 × 10^n) giving about `want` ticks over [lo, hi].
std::vector<double> ticks(double lo, double hi, int want) {
  std::vector<double> out;
  if (!(hi > lo)) return {lo};
  const double raw = (hi - lo) / want;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push_back(v);
  return out;
}

std::string number(double v) {
  if (std::fabs(v) >= 1000 || v == std::floor(v)) return fmt::format("{:.0f}", v);
  return fmt::format("{:.3g}", v);
}

std::string axis_labels(const std::string& x_label, const std::string& y_label) {
  const double plot_h = kHeight - kTop - kBottom;
  return fmt::format(
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n"
      "<text x=\"18\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {})\">{}</text>\n",
      kLeft + (kWidth - kLeft - kRight) / 2, kHeight - 15, xml_escape(x_label), kTop + plot_h / 2,
      kTop + plot_h / 2, xml_escape(y_label));
}

std::string no_data(const std::string& title) {
  return open_svg(title) +
         fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">no data</text>\n</svg>\n",
                     kWidth / 2, kHeight / 2);
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // Control characters are not allowed in XML 1.0 documents.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string render_line_plot(const LinePlot& plot) {
  double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin, ymax = 0;
  for (const auto& s : plot.series) {
    for (const auto& [x, y] : s.points) {
      xmin = std::min(xmin, x), xmax = std::max(xmax, x), ymax = std::max(ymax, y);
    }
  }
  if (!std::isfinite(xmin)) return no_data(plot.title);
  if (plot.reference_y) ymax = std::max(ymax, *plot.reference_y);
  if (xmax == xmin) xmin -= 1, xmax += 1;
  ymax = ymax > 0 ? ymax * 1.08 : 1;
  const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
  const auto px = [&](double x) { return kLeft + (x - xmin) / (xmax - xmin) * pw; };
  const auto py = [&](double y) { return kTop + ph - y / ymax * ph; };

  std::string out = open_svg(plot.title);
  out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#444\"/>\n",
                     kLeft, kTop, pw, ph);
  for (double t : ticks(0, ymax, 8)) {
    out += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>"
                       "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
                       kLeft, py(t), kLeft + pw, kLeft - 6, py(t) + 4, number(t));
  }
  for (double t : ticks(xmin, xmax, 10)) {
    out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#eee\"/>"
                       "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
                       px(t), kTop, kTop + ph, kTop + ph + 18, number(t));
  }
  out += axis_labels(plot.x_label, plot.y_label);
  std::size_t legend = 0;
  for (std::size_t i = 0; i < plot.series.size(); ++i, ++legend) {
    const auto& s = plot.series[i];
    const char* color = kColors[i % std::size(kColors)];
    std::string pts;
    for (const auto& [x, y] : s.points) pts += fmt::format("{:.1f},{:.1f} ", px(x), py(y));
    out += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.8\" points=\"{}\"/>\n",
                       color, pts);
    for (std::size_t j = 0; j < s.points.size(); ++j) {
      const auto& [x, y] = s.points[j];
      const std::string tip = j < s.labels.size() ? s.labels[j]
                                                  : fmt::format("{}: {} → {:.1f}", s.name, number(x), y);
      out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"{}\"><title>{}</title></circle>\n",
                         px(x), py(y), color, xml_escape(tip));
    }
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"3\"/>"
                       "<text x=\"{4}\" y=\"{5}\">{6}</text>\n",
                       kLeft + pw + 12, kTop + 10 + 20.0 * static_cast<double>(legend),
                       kLeft + pw + 32, color, kLeft + pw + 38,
                       kTop + 14 + 20.0 * static_cast<double>(legend), xml_escape(s.name));
  }
  if (plot.reference_y) {
    out += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#555\" "
                       "stroke-dasharray=\"6,4\"/><text x=\"{3}\" y=\"{4:.1f}\">{5}</text>\n",
                       kLeft, py(*plot.reference_y), kLeft + pw, kLeft + pw + 6,
                       py(*plot.reference_y) + 4, xml_escape(plot.reference_label));
  }
  out += "</svg>\n";
  return out;
}

std::string render_heatmap(const Heatmap& map) {
  if (map.xs.empty() || map.ys.empty()) return no_data(map.title);
  double vmin = std::numeric_limits<double>::infinity(), vmax = -vmin;
  for (const auto& row : map.values) {
    for (double v : row) {
      if (std::isfinite(v)) vmin = std::min(vmin, v), vmax = std::max(vmax, v);
    }
  }
  if (!std::isfinite(vmin)) return no_data(map.title);
  const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
  const double cw = pw / static_cast<double>(map.xs.size());
  const double ch = ph / static_cast<double>(map.ys.size());
  // Dark blue (low) to yellow (high).
  const auto color = [&](double v) {
    const double t = vmax > vmin ? (v - vmin) / (vmax - vmin) : 1.0;
    const int r = static_cast<int>(30 + t * (250 - 30));
    const int g = static_cast<int>(40 + t * (220 - 40));
    const int b = static_cast<int>(120 + t * (40 - 120));
    return fmt::format("rgb({},{},{})", r, g, b);
  };
  std::string out = open_svg(map.title);
  for (std::size_t yi = 0; yi < map.ys.size(); ++yi) {
    for (std::size_t xi = 0; xi < map.xs.size(); ++xi) {
      const double v = yi < map.values.size() && xi < map.values[yi].size()
                           ? map.values[yi][xi]
                           : std::numeric_limits<double>::quiet_NaN();
      const double x = kLeft + cw * static_cast<double>(xi);
      const double y = kTop + ph - ch * static_cast<double>(yi + 1);  // small y at the bottom
      const std::string tip = fmt::format("{}={} {}={}: {}", map.x_label, number(map.xs[xi]), map.y_label,
                                          number(map.ys[yi]),
                                          std::isfinite(v) ? fmt::format("{:.1f} {}", v, map.value_label)
                                                           : std::string("not measured"));
      out += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\">"
                         "<title>{}</title></rect>\n",
                         x, y, cw + 0.05, ch + 0.05, std::isfinite(v) ? color(v) : std::string("#eee"),
                         xml_escape(tip));
    }
  }
  const auto label_every = [](std::size_t n) { return std::max<std::size_t>(1, n / 10); };
  for (std::size_t xi = 0; xi < map.xs.size(); xi += label_every(map.xs.size())) {
    out += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                       kLeft + cw * (static_cast<double>(xi) + 0.5), kTop + ph + 18, number(map.xs[xi]));
  }
  for (std::size_t yi = 0; yi < map.ys.size(); yi += label_every(map.ys.size())) {
    out += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", kLeft - 6,
                       kTop + ph - ch * (static_cast<double>(yi) + 0.5) + 4, number(map.ys[yi]));
  }
  out += axis_labels(map.x_label, map.y_label);
  // Colour scale.
  const double sx = kLeft + pw + 30;
  for (int i = 0; i < 20; ++i) {
    const double v = vmin + (vmax - vmin) * (i + 0.5) / 20.0;
    out += fmt::format("<rect x=\"{}\" y=\"{:.1f}\" width=\"20\" height=\"{:.1f}\" fill=\"{}\"/>\n", sx,
                       kTop + ph - ph * (i + 1) / 20.0, ph / 20.0 + 0.5, color(v));
  }
  out += fmt::format("<text x=\"{0}\" y=\"{1}\">{2:.1f}</text><text x=\"{0}\" y=\"{3}\">{4:.1f}</text>"
                     "<text x=\"{5}\" y=\"{6}\">{7}</text>\n",
                     sx + 26, kTop + 10, vmax, kTop + ph, vmin, sx, kTop - 8, xml_escape(map.value_label));
  out += "</svg>\n";
  return out;
}

std::string plot_sweep(const std::vector<ShapeResult>& baseline, const std::vector<ShapeResult>& tuned,
                       const std::string& tuned_label, const std::string& title,
                       std::optional<double> peak_tflops) {
  std::set<std::int64_t> ms, ns, ks;
  for (const auto& r : baseline) ms.insert(r.shape.m), ns.insert(r.shape.n), ks.insert(r.shape.k);
  struct Axis {
    const char* name;
    std::int64_t Shape::*field;
    std::size_t count;
  };
  std::vector<Axis> varying;
  for (const Axis a : {Axis{"M", &Shape::m, ms.size()}, Axis{"N", &Shape::n, ns.size()},
                       Axis{"K", &Shape::k, ks.size()}}) {
    if (a.count > 1) varying.push_back(a);
  }
  if (varying.size() == 2) {
    const auto& source = tuned.empty() ? baseline : tuned;
    Heatmap map;
    map.title = title + (tuned.empty() ? " (Default, mean TFLOPS)" : " (" + tuned_label + ", mean TFLOPS)");
    map.x_label = varying[0].name;
    map.y_label = varying[1].name;
    map.value_label = "TFLOPS";
    std::set<std::int64_t> xs, ys;
    for (const auto& r : source) xs.insert(r.shape.*varying[0].field), ys.insert(r.shape.*varying[1].field);
    map.xs.assign(xs.begin(), xs.end());
    map.ys.assign(ys.begin(), ys.end());
    map.values.assign(ys.size(), std::vector<double>(xs.size(), std::numeric_limits<double>::quiet_NaN()));
    for (const auto& r : source) {
      const auto xi = std::distance(xs.begin(), xs.find(r.shape.*varying[0].field));
      const auto yi = std::distance(ys.begin(), ys.find(r.shape.*varying[1].field));
      double& cell = map.values[static_cast<std::size_t>(yi)][static_cast<std::size_t>(xi)];
      cell = std::isfinite(cell) ? std::max(cell, r.tflops.mean) : r.tflops.mean;  // best over a 3rd dim
    }
    return render_heatmap(map);
  }
  LinePlot plot;
  plot.title = title;
  plot.y_label = "TFLOPS (mean)";
  const bool by_index = varying.size() != 1;
  plot.x_label = by_index ? "shape (sweep order)" : varying[0].name;
  const auto series = [&](const std::vector<ShapeResult>& results, std::string name) {
    LineSeries s;
    s.name = std::move(name);
    for (std::size_t i = 0; i < results.size(); ++i) {
      const auto& r = results[i];
      const double x = by_index ? static_cast<double>(i + 1) : static_cast<double>(r.shape.*varying[0].field);
      s.points.emplace_back(x, r.tflops.mean);
      s.labels.push_back(fmt::format("{} {}: {:.1f} mean, {:.1f} median, {:.1f} max TFLOPS ({})", s.name,
                                     r.shape.text(), r.tflops.mean, r.tflops.median, r.tflops.max, r.solution));
    }
    return s;
  };
  plot.series.push_back(series(baseline, "Default"));
  if (!tuned.empty()) plot.series.push_back(series(tuned, tuned_label));
  if (peak_tflops) {
    plot.reference_y = *peak_tflops;
    plot.reference_label = fmt::format("peak {:.0f}", *peak_tflops);
  }
  return render_line_plot(plot);
}

}  // namespace gemmtune::mamf
