#pragma once
// Coupling networks for the network Kuramoto model (host code, no Kokkos): generated reproducibly
// from a seed or read from Matrix Market, held as a symmetric-or-not adjacency in compressed rows
// (CSR) without self-loops, then scaled into the coupling matrix K_ij. Random draws come from
// std::mt19937_64 turned into uniforms by hand (the standard distributions differ between
// standard libraries), so a seed gives the same network everywhere.
#include <cstdint>
#include <string>
#include <vector>

#include "parity/precision.hpp"
#include "parity/run/phase_times.hpp"
#include "parity/run/progress.hpp"
#include "parity/sde/result.hpp"

namespace parity::sde {

// Adjacency (or coupling) matrix in compressed rows: row i's entries are
// col[row_ptr[i] .. row_ptr[i + 1]), sorted by column, no duplicates, no diagonal.
struct Network {
  int n = 0;
  std::vector<std::int64_t> row_ptr{0};
  std::vector<int> col;
  std::vector<double> weight;
  std::int64_t nonzeros() const { return std::int64_t(col.size()); }
  std::vector<double> strengths() const;  // k_i = sum_j A_ij (the degree for 0/1 entries)
};

// What to generate. kind: complete | erdos-renyi | watts-strogatz | lattice | random-regular |
// scale-free (configuration model with degrees P(k) ~ k^-exponent on [k_min, k_max]).
struct NetworkSpec {
  std::string kind = "erdos-renyi";
  int n = 1024;
  double mean_degree = 10;  // erdos-renyi: p = <k> / (N - 1); random-regular: k;
                            // watts-strogatz: ring neighbours k (even)
  double rewire = 0.1;  // watts-strogatz: rewiring probability beta
  int width = 0;  // lattice: columns (0: sqrt N; N must be a multiple)
  double exponent = 3;  // scale-free: degree exponent
  int k_min = 4, k_max = 0;  // scale-free: degree range (k_max 0: sqrt N)
  std::uint64_t seed = 1;
};

// Builds a network, or throws InvalidInput naming the offending option.
Network generate_network(NetworkSpec const& s);

// Matrix Market "coordinate" files: real, integer or pattern entries (pattern reads as 1),
// general or symmetric (mirrored); duplicates summed, diagonal entries dropped. A square matrix
// only. `option` names the CLI option in error messages.
Network read_matrix_market(std::string const& path, std::string const& option = "--network-file");
void write_matrix_market(std::string const& path, Network const& g);

// Builds a network from (row, col, weight) triplets: sorted, duplicates summed, diagonal dropped;
// `symmetric` mirrors each entry.
Network network_from_triplets(int n, std::vector<int> const& rows, std::vector<int> const& cols,
                              std::vector<double> const& weights, bool symmetric);

// K_ij = K A_ij / norm with norm: "n" (N), "mean-degree" (<k> = mean of the strengths k_i) or
// "degree" (k_i, per row; rows with k_i = 0 stay empty).
Network coupling_matrix(Network const& adjacency, double K, std::string const& normalization);

// Natural frequencies: read one number per oscillator (whitespace separated) from a file.
std::vector<double> read_frequencies(std::string const& path, int n, std::string const& option = "--omega-file");

// The network Kuramoto command's parameters:
//   gamma x_i' = omega_i + sum_j K_ij sin(x_j - x_i) + sqrt(2 gamma D) xi_i,
// K_ij = K A_ij / norm (coupling_matrix). network: a NetworkSpec kind or "file" (network_file).
struct NetworkKuramotoParams {
  NetworkSpec graph;  // graph.n is the number of oscillators
  std::string network_file;  // network "file": Matrix Market adjacency or coupling weights
  std::string normalization = "mean-degree";  // n | mean-degree | degree
  double K = 4, gamma = 1, D = 1;
  std::string omega_law = "identical";  // identical | gaussian | lorentzian | file
  double omega_mean = 0, omega_width = 0;  // gaussian: standard deviation; lorentzian: half width
  std::string omega_file;
  double dt = 0.01;
  long steps = 2000;
  int sample_every = 20;
  int bins = 64;
  std::uint64_t seed = 1;  // initial phases, frequencies and noise (Philox key)
  std::string stepper = "srk2";  // srk2 | euler
  std::string noise_law = "gaussian";  // gaussian | five-point
  bool local_order = true;  // r_i at the end (one more sparse product)
  int replicas = 1;  // R independent realizations sharing K; replica r is keyed by seed + r
  std::string storage = "auto";  // sparse (CRS, spmv) | dense (N x N, gemm) | auto
};

// The largest N the dense storage accepts (N^2 words: 8 GiB in double).
inline constexpr int max_dense_oscillators = 1 << 15;

// "sparse" or "dense" for `storage` (sparse | dense | auto): auto picks the layout that reads fewer
// bytes per product, dense when N^2 w <= nonzeros (4 + w) + 4 (N + 1) (w = real_bytes) and N is at
// most max_dense_oscillators. Throws InvalidInput naming --storage for a dense N that is too large.
std::string resolve_storage(std::string const& storage, int n, std::int64_t nonzeros, int real_bytes);

// Modelled memory traffic and arithmetic of one step of all R replicas (each array touched once per
// pass, the bandwidth floor): see network_step_work in network.cpp for the passes counted.
struct NetworkStepWork {
  double bytes = 0, flops = 0;
  double matrix_bytes = 0;  // of one coupling product (read once for all replicas)
};
NetworkStepWork network_step_work(int n, std::int64_t nonzeros, int replicas, int real_bytes, bool dense,
                                  bool varied_omega, bool srk2);

// Checks the options that do not need the network; throws InvalidInput naming the option.
void validate(NetworkKuramotoParams const& p);
// The coupling matrix the parameters describe (generated or read, then normalised).
Network build_coupling(NetworkKuramotoParams const& p);

struct NetworkKuramotoRunResult {
  KuramotoResult kuramoto;  // replica 0: r(t), psi(t), histograms, as the all-to-all model
  std::vector<KuramotoResult> replicas;  // all R replicas (replicas[0] is `kuramoto`)
  std::vector<double> local_r;  // [R][N] |sum_j K_ij e^{i x_j}| / sum_j K_ij at the end (0: isolated)
  int oscillators = 0, replica_count = 1;
  std::int64_t nonzeros = 0;
  std::string storage;  // sparse | dense, as integrated
  double mean_degree = 0, mean_degree_squared = 0;  // <k>, <k^2> of the adjacency
  double dt = 0;
  NetworkStepWork work;  // per step of all replicas
};

// True when this build has Kokkos Kernels (the network model needs it).
bool network_kuramoto_available();
// The library entry point, defined per backend where Kokkos Kernels is found; throws
// InvalidInput when it is not.
NetworkKuramotoRunResult run(NetworkKuramotoParams const& p, Precision precision, run::Progress& progress,
                             run::PhaseTimes& times);

}  // namespace parity::sde
