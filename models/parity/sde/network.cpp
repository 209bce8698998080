#include "parity/sde/network.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "parity/run/errors.hpp"

namespace parity::sde {
namespace {

using Rng = std::mt19937_64;

// Uniform on (0, 1) from the top 53 bits: the same number from every standard library.
double uniform(Rng& rng) { return (double(rng() >> 11) + 0.5) * 0x1.0p-53; }

// Uniform integer in [0, m).
int below(Rng& rng, int m) { return std::min(m - 1, int(uniform(rng) * m)); }

// An undirected edge list into a symmetric 0/1 adjacency.
Network from_edges(int n, std::vector<std::pair<int, int>> const& edges) {
  std::vector<int> rows, cols;
  rows.reserve(edges.size());
  cols.reserve(edges.size());
  for (auto [a, b] : edges) rows.push_back(a), cols.push_back(b);
  return network_from_triplets(n, rows, cols, std::vector<double>(edges.size(), 1.0), true);
}

// Erdos-Renyi G(N, p) by geometric skips over the pairs (Batagelj & Brandes 2005): O(N + edges).
Network erdos_renyi(int n, double p, Rng& rng) {
  std::vector<std::pair<int, int>> edges;
  if (p >= 1) {
    for (int v = 1; v < n; ++v)
      for (int w = 0; w < v; ++w) edges.emplace_back(v, w);
    return from_edges(n, edges);
  }
  if (p <= 0) return from_edges(n, edges);
  double const log_q = std::log1p(-p);
  long v = 1, w = -1;
  while (v < n) {
    w += 1 + long(std::floor(std::log(uniform(rng)) / log_q));
    while (w >= v && v < n) w -= v, ++v;
    if (v < n) edges.emplace_back(int(v), int(w));
  }
  return from_edges(n, edges);
}

// Watts-Strogatz: a ring with k / 2 neighbours on each side; each edge (i, i + j) is rewired with
// probability beta to (i, t), t uniform among the nodes not yet linked to i.
Network watts_strogatz(int n, int k, double beta, Rng& rng) {
  std::vector<std::set<int>> adj(n);
  for (int i = 0; i < n; ++i)
    for (int j = 1; j <= k / 2; ++j) {
      int const t = (i + j) % n;
      adj[i].insert(t), adj[t].insert(i);
    }
  for (int j = 1; j <= k / 2; ++j)
    for (int i = 0; i < n; ++i) {
      int const t = (i + j) % n;
      if (uniform(rng) >= beta || int(adj[i].size()) >= n - 1 || !adj[i].count(t)) continue;
      int u;
      do u = below(rng, n);
      while (u == i || adj[i].count(u));
      adj[i].erase(t), adj[t].erase(i);
      adj[i].insert(u), adj[u].insert(i);
    }
  std::vector<std::pair<int, int>> edges;
  for (int i = 0; i < n; ++i)
    for (int j : adj[i])
      if (j > i) edges.emplace_back(i, j);
  return from_edges(n, edges);
}

// 2-D square lattice, rows x width, periodic in both directions (four neighbours each).
Network lattice(int n, int width) {
  int const rows = n / width;
  std::vector<std::pair<int, int>> edges;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < width; ++c) {
      int const i = r * width + c;
      edges.emplace_back(i, r * width + (c + 1) % width);
      edges.emplace_back(i, ((r + 1) % rows) * width + c);
    }
  return from_edges(n, edges);
}

// Configuration model: stubs shuffled and paired; self-loops and repeated pairs are dropped (the
// "erased" model), which removes O(<k^2>^2 / <k>^2) edges, a vanishing fraction at large N.
Network configuration(std::vector<int> degree, Rng& rng) {
  int const n = int(degree.size());
  long total = 0;
  for (int d : degree) total += d;
  if (total % 2) ++degree[below(rng, n)], ++total;  // an even number of stubs
  std::vector<int> stubs;
  stubs.reserve(total);
  for (int i = 0; i < n; ++i) stubs.insert(stubs.end(), degree[i], i);
  for (long i = long(stubs.size()) - 1; i > 0; --i)
    std::swap(stubs[i], stubs[long(uniform(rng) * double(i + 1)) % (i + 1)]);
  std::vector<std::pair<int, int>> edges;
  for (std::size_t i = 0; i + 1 < stubs.size(); i += 2)
    if (stubs[i] != stubs[i + 1])
      edges.emplace_back(std::min(stubs[i], stubs[i + 1]), std::max(stubs[i], stubs[i + 1]));
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return from_edges(n, edges);
}

// Degrees drawn from P(k) ~ k^-exponent on [k_min, k_max] (inverse of the discrete distribution).
std::vector<int> power_law_degrees(int n, double exponent, int k_min, int k_max, Rng& rng) {
  std::vector<double> cdf;
  double acc = 0;
  for (int k = k_min; k <= k_max; ++k) cdf.push_back(acc += std::pow(double(k), -exponent));
  std::vector<int> d(n);
  for (int i = 0; i < n; ++i) {
    double const u = uniform(rng) * acc;
    d[i] = k_min + int(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
    d[i] = std::min(d[i], k_max);
  }
  return d;
}

std::string lower(std::string s) {
  for (auto& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

}  // namespace

std::vector<double> Network::strengths() const {
  std::vector<double> k(n, 0.0);
  for (int i = 0; i < n; ++i)
    for (auto e = row_ptr[i]; e < row_ptr[i + 1]; ++e) k[i] += weight[e];
  return k;
}

Network network_from_triplets(int n, std::vector<int> const& rows, std::vector<int> const& cols,
                              std::vector<double> const& weights, bool symmetric) {
  std::vector<std::vector<std::pair<int, double>>> r(n);
  for (std::size_t e = 0; e < rows.size(); ++e) {
    if (rows[e] == cols[e]) continue;
    r[rows[e]].emplace_back(cols[e], weights[e]);
    if (symmetric) r[cols[e]].emplace_back(rows[e], weights[e]);
  }
  Network g;
  g.n = n;
  g.row_ptr.assign(1, 0);
  for (auto& row : r) {
    std::sort(row.begin(), row.end(), [](auto const& a, auto const& b) { return a.first < b.first; });
    for (std::size_t k = 0; k < row.size(); ++k) {
      if (k > 0 && row[k].first == row[k - 1].first)
        g.weight.back() += row[k].second;
      else
        g.col.push_back(row[k].first), g.weight.push_back(row[k].second);
    }
    g.row_ptr.push_back(std::int64_t(g.col.size()));
  }
  return g;
}

Network generate_network(NetworkSpec const& s) {
  require(s.n >= 2 && s.n <= (1 << 26), "--oscillators must be in [2, 2^26] for a generated network");
  Rng rng(s.seed);
  if (s.kind == "complete") {
    require(s.n <= 8192, "--network complete stores N^2 couplings: use at most 8192 oscillators");
    return erdos_renyi(s.n, 1.0, rng);
  }
  if (s.kind == "erdos-renyi") {
    require(std::isfinite(s.mean_degree) && s.mean_degree >= 0 && s.mean_degree <= s.n - 1,
            "--mean-degree must be in [0, N - 1] for erdos-renyi");
    return erdos_renyi(s.n, s.mean_degree / (s.n - 1), rng);
  }
  if (s.kind == "watts-strogatz") {
    int const k = int(s.mean_degree);
    require(k == s.mean_degree && k >= 2 && k % 2 == 0 && k < s.n - 1,
            "--mean-degree must be an even integer in [2, N - 2] for watts-strogatz");
    require(std::isfinite(s.rewire) && s.rewire >= 0 && s.rewire <= 1, "--rewire must be in [0, 1]");
    return watts_strogatz(s.n, k, s.rewire, rng);
  }
  if (s.kind == "lattice") {
    int w = s.width;
    if (w == 0) w = int(std::lround(std::sqrt(double(s.n))));
    require(w >= 3 && s.n % w == 0 && s.n / w >= 3,
            "--lattice-width must divide --oscillators with both sides >= 3 (default sqrt N: N a square)");
    return lattice(s.n, w);
  }
  if (s.kind == "random-regular") {
    int const k = int(s.mean_degree);
    require(k == s.mean_degree && k >= 1 && k < s.n,
            "--mean-degree must be an integer in [1, N - 1] for random-regular");
    require((long(s.n) * k) % 2 == 0, "random-regular needs N * k even (--oscillators, --mean-degree)");
    return configuration(std::vector<int>(s.n, k), rng);
  }
  if (s.kind == "scale-free") {
    int const kmax = s.k_max > 0 ? s.k_max : int(std::sqrt(double(s.n)));
    require(std::isfinite(s.exponent) && s.exponent > 1 && s.exponent <= 10, "--degree-exponent must be in (1, 10]");
    require(s.k_min >= 1 && kmax >= s.k_min && kmax < s.n, "--k-min, --k-max must satisfy 1 <= k_min <= k_max < N");
    return configuration(power_law_degrees(s.n, s.exponent, s.k_min, kmax, rng), rng);
  }
  throw InvalidInput(
      "--network must be one of complete, erdos-renyi, watts-strogatz, lattice, random-regular, "
      "scale-free, file (got '" +
      s.kind + "')");
}

Network read_matrix_market(std::string const& path, std::string const& option) {
  std::ifstream in(path);
  require(bool(in), option + ": cannot open '" + path + "'");
  auto fail = [&](std::string const& why) { throw InvalidInput(option + ": '" + path + "': " + why); };
  std::string line;
  if (!std::getline(in, line)) fail("empty file");
  std::istringstream head(line);
  std::string banner, object, format, field, symmetry;
  head >> banner >> object >> format >> field >> symmetry;
  if (banner != "%%MatrixMarket") fail("not a Matrix Market file (no %%MatrixMarket banner)");
  object = lower(object), format = lower(format), field = lower(field), symmetry = lower(symmetry);
  if (object != "matrix" || format != "coordinate") fail("only 'matrix coordinate' files are read");
  if (field != "real" && field != "integer" && field != "pattern") fail("field must be real, integer or pattern");
  if (symmetry != "general" && symmetry != "symmetric") fail("symmetry must be general or symmetric");
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '%' && line.find_first_not_of(" \t\r") != std::string::npos) break;
  long rows = 0, cols = 0, entries = -1;
  std::istringstream size(line);
  if (!(size >> rows >> cols >> entries) || entries < 0) fail("bad size line '" + line + "'");
  if (rows != cols) fail("the coupling matrix must be square");
  if (rows < 2 || rows > (1L << 30)) fail("the matrix size must be in [2, 2^30]");
  int const n = int(rows);
  std::vector<int> r, c;
  std::vector<double> w;
  r.reserve(entries), c.reserve(entries), w.reserve(entries);
  for (long e = 0; e < entries; ++e) {
    long i = 0, j = 0;
    double v = 1;
    if (!(in >> i >> j)) fail("expected " + std::to_string(entries) + " entries, found " + std::to_string(e));
    if (field != "pattern" && !(in >> v)) fail("entry " + std::to_string(e + 1) + " has no value");
    if (i < 1 || i > n || j < 1 || j > n) fail("entry " + std::to_string(e + 1) + " is outside the matrix");
    if (!std::isfinite(v)) fail("entry " + std::to_string(e + 1) + " is not finite");
    r.push_back(int(i - 1)), c.push_back(int(j - 1)), w.push_back(v);
  }
  return network_from_triplets(n, r, c, w, symmetry == "symmetric");
}

void write_matrix_market(std::string const& path, Network const& g) {
  std::ofstream out(path);
  require(bool(out), "cannot write '" + path + "'");
  out << "%%MatrixMarket matrix coordinate real general\n" << g.n << ' ' << g.n << ' ' << g.nonzeros() << '\n';
  out << std::setprecision(17);
  for (int i = 0; i < g.n; ++i)
    for (auto e = g.row_ptr[i]; e < g.row_ptr[i + 1]; ++e)
      out << i + 1 << ' ' << g.col[e] + 1 << ' ' << g.weight[e] << '\n';
  require(bool(out), "cannot write '" + path + "'");
}

Network coupling_matrix(Network const& a, double K, std::string const& normalization) {
  Network g = a;
  auto const k = a.strengths();
  double mean = 0;
  for (double v : k) mean += v;
  mean /= a.n;
  if (normalization == "n") {
    for (auto& v : g.weight) v *= K / a.n;
  } else if (normalization == "mean-degree") {
    require(mean > 0, "--normalization mean-degree: the network has no edges");
    for (auto& v : g.weight) v *= K / mean;
  } else if (normalization == "degree") {
    for (int i = 0; i < a.n; ++i)
      for (auto e = g.row_ptr[i]; e < g.row_ptr[i + 1]; ++e) g.weight[e] *= k[i] != 0 ? K / k[i] : 0.0;
  } else {
    throw InvalidInput("--normalization must be n, mean-degree or degree (got '" + normalization + "')");
  }
  return g;
}

std::vector<double> read_frequencies(std::string const& path, int n, std::string const& option) {
  std::ifstream in(path);
  require(bool(in), option + ": cannot open '" + path + "'");
  std::vector<double> w;
  std::string token;
  while (in >> token) {
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(token, &used);
    } catch (std::exception const&) {
      used = 0;
    }
    require(used == token.size() && std::isfinite(v), option + ": '" + token + "' is not a finite number");
    w.push_back(v);
  }
  require(int(w.size()) == n, option + ": expected " + std::to_string(n) + " frequencies (one per oscillator), found " +
                                  std::to_string(w.size()));
  return w;
}

void validate(NetworkKuramotoParams const& p) {
  require((p.graph.n >= 2 && p.graph.n <= (1 << 26)) || p.graph.kind == "file", "--oscillators must be in [2, 2^26]");
  auto const& kind = p.graph.kind;
  require(kind == "complete" || kind == "erdos-renyi" || kind == "watts-strogatz" || kind == "lattice" ||
              kind == "random-regular" || kind == "scale-free" || kind == "file",
          "--network must be one of complete, erdos-renyi, watts-strogatz, lattice, random-regular, scale-free, "
          "file (got '" +
              kind + "')");
  require(std::isfinite(p.K), "--coupling-strength (-K) must be finite");
  require(std::isfinite(p.gamma) && p.gamma > 0, "--gamma must be positive");
  require(std::isfinite(p.D) && p.D >= 0, "--noise (-D), the noise intensity, must be >= 0");
  require(p.normalization == "n" || p.normalization == "mean-degree" || p.normalization == "degree",
          "--normalization must be n, mean-degree or degree");
  require(
      p.omega_law == "identical" || p.omega_law == "gaussian" || p.omega_law == "lorentzian" || p.omega_law == "file",
      "--omega-law must be identical, gaussian, lorentzian or file");
  require(std::isfinite(p.omega_mean), "--omega-mean must be finite");
  require(std::isfinite(p.omega_width) && p.omega_width >= 0, "--omega-width must be >= 0");
  require(p.omega_law != "file" || !p.omega_file.empty(), "--omega-law file needs --omega-file");
  require(p.omega_law == "file" || p.omega_file.empty(), "--omega-file needs --omega-law file");
  require(p.graph.kind != "file" || !p.network_file.empty(), "--network file needs --network-file");
  require(p.graph.kind == "file" || p.network_file.empty(), "--network-file needs --network file");
  require(std::isfinite(p.dt) && p.dt > 0, "--dt must be positive");
  require(p.steps >= 1, "--steps must be >= 1");
  require(p.sample_every >= 1, "--sample-every must be >= 1");
  require(p.bins >= 1 && p.bins <= 100000, "--bins must be in [1, 100000]");
  require(p.stepper == "srk2" || p.stepper == "euler", "--stepper must be srk2 or euler");
  require(p.noise_law == "gaussian" || p.noise_law == "five-point", "--noise-law must be gaussian or five-point");
  require((p.steps + p.sample_every - 1) / p.sample_every <= 10000000L / p.bins,
          "too many samples * bins to record; raise --sample-every");
  require(p.replicas >= 1 && p.replicas <= 4096, "--replicas must be in [1, 4096]");
  require(p.storage == "sparse" || p.storage == "dense" || p.storage == "auto",
          "--storage must be sparse, dense or auto (got '" + p.storage + "')");
  require(p.storage != "dense" || p.graph.kind == "file" || p.graph.n <= max_dense_oscillators,
          "--storage dense holds N^2 couplings: --oscillators must be at most " +
              std::to_string(max_dense_oscillators) + "; use --storage sparse");
  require(p.graph.kind == "file" || std::int64_t(p.graph.n) * p.replicas < (std::int64_t(1) << 31),
          "--oscillators times --replicas must be below 2^31");
}

std::string resolve_storage(std::string const& storage, int n, std::int64_t nonzeros, int real_bytes) {
  double const dense_bytes = double(n) * double(n) * real_bytes;
  double const sparse_bytes = double(nonzeros) * (4 + real_bytes) + 4.0 * (n + 1);
  if (storage == "dense") {
    require(n <= max_dense_oscillators, "--storage dense holds N^2 couplings: N = " + std::to_string(n) + " is above " +
                                            std::to_string(max_dense_oscillators) + "; use --storage sparse");
    return "dense";
  }
  if (storage == "sparse") return "sparse";
  require(storage == "auto", "--storage must be sparse, dense or auto (got '" + storage + "')");
  return n <= max_dense_oscillators && dense_bytes <= sparse_bytes ? "dense" : "sparse";
}

// One step of R replicas, w bytes a real, N R = M phases. A coupling evaluation is three passes
// and a product: sin/cos (x read, [s c] written: 3 M w), the product (the matrix read once for all
// replicas: CRS row map 4 (N + 1) plus 4 + w per nonzero, or N^2 w dense; [s c] read and [A B]
// written: 4 M w), the drift (s c A B read, f written, omega read when frequencies differ:
// (5 + om) M w). Updates: Euler x f read, x written (3 M w); SRK2 predictor x f0 read, xp written
// and corrector x f0 f1 read, x written (7 M w), with two coupling evaluations. Flops: 2 for a
// sin/cos pair, 2 x 2 per coupling per replica (a multiply-add into A and into B), 5 in the drift,
// 3 in an Euler or predictor update and 4 in the corrector; noise and the samples of r(t) and the
// histogram (every sample_every steps) are not counted.
NetworkStepWork network_step_work(int n, std::int64_t nonzeros, int replicas, int real_bytes, bool dense,
                                  bool varied_omega, bool srk2) {
  double const w = real_bytes, m = double(n) * replicas, om = varied_omega ? 1 : 0;
  double const couplings = dense ? double(n) * double(n) : double(nonzeros);
  NetworkStepWork work;
  work.matrix_bytes = dense ? couplings * w : couplings * (4 + w) + 4.0 * (n + 1);
  double const eval_bytes = work.matrix_bytes + (3 + 4 + 5 + om) * m * w;
  double const eval_flops = 4 * couplings * replicas + (2 + 5) * m;
  int const evals = srk2 ? 2 : 1;
  work.bytes = evals * eval_bytes + (srk2 ? 7 : 3) * m * w;
  work.flops = evals * eval_flops + (srk2 ? 7 : 3) * m;
  return work;
}

Network build_coupling(NetworkKuramotoParams const& p) {
  Network const a = p.graph.kind == "file" ? read_matrix_market(p.network_file) : generate_network(p.graph);
  require(a.nonzeros() < (std::int64_t(1) << 31) - 1, "the network has 2^31 or more couplings");
  return coupling_matrix(a, p.K, p.normalization);
}

bool network_kuramoto_available() {
#ifdef PARITY_HAVE_KOKKOS_KERNELS
  return true;
#else
  return false;
#endif
}

#ifndef PARITY_HAVE_KOKKOS_KERNELS
// Without Kokkos Kernels the entry point exists (the library's interface does not depend on the
// build) and says what is missing.
NetworkKuramotoRunResult run(NetworkKuramotoParams const&, Precision, run::Progress&, run::PhaseTimes&) {
  throw InvalidInput(
      "the network Kuramoto model needs Kokkos Kernels: configure Parity with KokkosKernels_ROOT "
      "(or CMAKE_PREFIX_PATH) pointing at a Kokkos Kernels install (docs/models/sde.md)");
}
#endif

}  // namespace parity::sde
