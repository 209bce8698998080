#pragma once
// The range of the density of the unwrapped wrapped component that an ensemble histograms at every
// sample (EnsembleConfig::density; detail/unwrapped_density.hpp fills it).

namespace parity::sde {

// Histogram range in periods of the wrapped component; bins = 0 turns the density off.
struct DensityRange {
  double lo = 0, hi = 0;
  int bins = 0;
};

}  // namespace parity::sde
