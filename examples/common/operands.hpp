// Operands for the examples: A, B and C of a problem, in host memory on the CPU backend and in
// device memory on CUDA, filled with 0.5 (in the problem's dtype) so that every element of C is
// 0.25·k, an easy check.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "gemmtune/gemmtune.hpp"
#ifdef EXAMPLE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace example {

inline std::vector<unsigned char> half_values(gemmtune::DType t, std::int64_t count) {
  const std::size_t bytes = gemmtune::element_bytes(t);
  std::vector<unsigned char> v(static_cast<std::size_t>(count) * bytes);
  for (std::int64_t i = 0; i < count; ++i) {
    unsigned char* e = v.data() + static_cast<std::size_t>(i) * bytes;
    switch (t) {
      case gemmtune::DType::Float32:
      case gemmtune::DType::TF32: { const float x = 0.5f; std::memcpy(e, &x, 4); break; }
      case gemmtune::DType::Float64: { const double x = 0.5; std::memcpy(e, &x, 8); break; }
      case gemmtune::DType::BFloat16: { const std::uint16_t x = 0x3F00; std::memcpy(e, &x, 2); break; }
      case gemmtune::DType::Float16: { const std::uint16_t x = 0x3800; std::memcpy(e, &x, 2); break; }
      default: throw std::runtime_error("example: unsupported dtype");
    }
  }
  return v;
}

inline double to_double(gemmtune::DType t, const unsigned char* e) {
  switch (t) {
    case gemmtune::DType::Float32:
    case gemmtune::DType::TF32: { float x; std::memcpy(&x, e, 4); return x; }
    case gemmtune::DType::Float64: { double x; std::memcpy(&x, e, 8); return x; }
    case gemmtune::DType::BFloat16: {
      std::uint16_t h; std::memcpy(&h, e, 2);
      const std::uint32_t w = std::uint32_t{h} << 16;
      float x; std::memcpy(&x, &w, 4); return x;
    }
    case gemmtune::DType::Float16: {
      std::uint16_t h; std::memcpy(&h, e, 2);
      const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
      const double sign = (h & 0x8000) ? -1 : 1;
      if (exponent == 0) return sign * mantissa * 0x1p-24;
      return sign * (1 + mantissa / 1024.0) * std::ldexp(1.0, exponent - 15);
    }
    default: return 0;
  }
}

class Operands {
 public:
  Operands(const gemmtune::Problem& p, bool on_device) : p_(p), device_(on_device) {
    a_ = upload(half_values(p.a_type, p.a_elements()));
    b_ = upload(half_values(p.b_type, p.b_elements()));
    c_ = upload(std::vector<unsigned char>(static_cast<std::size_t>(p.c_elements()) *
                                           gemmtune::element_bytes(p.c_type)));
  }
  ~Operands() {
    for (void* x : {a_, b_, c_}) release(x);
  }
  Operands(const Operands&) = delete;
  Operands& operator=(const Operands&) = delete;

  const void* a() const { return a_; }
  const void* b() const { return b_; }
  void* c() const { return c_; }

  // Largest |C[i] - 0.25·k| over the first batch's first column.
  double max_error() const {
    const std::size_t bytes = gemmtune::element_bytes(p_.c_type);
    std::vector<unsigned char> host(static_cast<std::size_t>(p_.m) * bytes);
#ifdef EXAMPLE_HAVE_CUDA
    if (device_) {
      if (cudaMemcpy(host.data(), c_, host.size(), cudaMemcpyDeviceToHost) != cudaSuccess) {
        throw std::runtime_error("cudaMemcpy failed");
      }
    } else
#endif
      std::memcpy(host.data(), c_, host.size());
    double worst = 0;
    for (std::int64_t i = 0; i < p_.m; ++i) {
      const double v = to_double(p_.c_type, host.data() + static_cast<std::size_t>(i) * bytes);
      worst = std::max(worst, std::abs(v - 0.25 * static_cast<double>(p_.k)));
    }
    return worst;
  }

 private:
  void* upload(const std::vector<unsigned char>& host) {
#ifdef EXAMPLE_HAVE_CUDA
    if (device_) {
      void* d = nullptr;
      if (cudaMalloc(&d, host.size()) != cudaSuccess ||
          cudaMemcpy(d, host.data(), host.size(), cudaMemcpyHostToDevice) != cudaSuccess) {
        throw std::runtime_error("cudaMalloc/cudaMemcpy failed");
      }
      return d;
    }
#endif
    if (device_) throw std::runtime_error("example built without CUDA");
    owned_.push_back(host);
    return owned_.back().data();
  }
  void release(void* x) {
#ifdef EXAMPLE_HAVE_CUDA
    if (device_) cudaFree(x);
#else
    (void)x;
#endif
  }

  gemmtune::Problem p_;
  bool device_;
  std::vector<std::vector<unsigned char>> owned_;
  void *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
};

inline void synchronize(bool on_device) {
#ifdef EXAMPLE_HAVE_CUDA
  if (on_device) cudaDeviceSynchronize();
#else
  (void)on_device;
#endif
}

}  // namespace example
