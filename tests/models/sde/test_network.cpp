// Coupling networks (host code): each generator's defining property (degrees, edge counts, the
// lattice's neighbours), reproducibility from the seed, Matrix Market round trips and errors, and
// the coupling normalisations.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "parity/run/errors.hpp"
#include "parity/sde/network.hpp"

namespace parity_test_sde_network {

namespace sde = parity::sde;

sde::Network make(std::string const& kind, int n, double k = 10, std::uint64_t seed = 1) {
  sde::NetworkSpec s;
  s.kind = kind;
  s.n = n;
  s.mean_degree = k;
  s.seed = seed;
  return sde::generate_network(s);
}

// Symmetric, sorted, no diagonal, unit weights.
void expect_simple_undirected(sde::Network const& g) {
  for (int i = 0; i < g.n; ++i)
    for (auto e = g.row_ptr[i]; e < g.row_ptr[i + 1]; ++e) {
      int const j = g.col[e];
      ASSERT_NE(i, j);
      if (e > g.row_ptr[i]) ASSERT_LT(g.col[e - 1], j);
      ASSERT_EQ(g.weight[e], 1.0);
      bool back = false;
      for (auto f = g.row_ptr[j]; f < g.row_ptr[j + 1]; ++f) back = back || g.col[f] == i;
      ASSERT_TRUE(back) << i << " -> " << j << " has no reverse edge";
    }
}

double mean(std::vector<double> const& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / double(v.size());
}

TEST(Network, ErdosRenyiMeanDegreeAndSeed) {
  int const n = 4000;
  auto const g = make("erdos-renyi", n, 8);
  expect_simple_undirected(g);
  // Edges ~ Binomial(N (N - 1) / 2, p): <k> = 2 E / N within 4 standard deviations.
  double const p = 8.0 / (n - 1), pairs = n * (n - 1) / 2.0;
  double const sd_k = 2 * std::sqrt(pairs * p * (1 - p)) / n;
  EXPECT_NEAR(double(g.nonzeros()) / n, 8.0, 4 * sd_k);
  auto const same = make("erdos-renyi", n, 8);
  auto const other = make("erdos-renyi", n, 8, 2);
  EXPECT_EQ(g.col, same.col);
  EXPECT_NE(g.col, other.col);
  // The complete graph: N - 1 neighbours each.
  auto const c = make("complete", 50);
  expect_simple_undirected(c);
  EXPECT_EQ(c.nonzeros(), 50 * 49);
}

TEST(Network, WattsStrogatzKeepsEdgeCount) {
  auto const ring = make("watts-strogatz", 200, 6);  // rewire 0.1 by default
  expect_simple_undirected(ring);
  EXPECT_EQ(ring.nonzeros(), 200 * 6);  // rewiring moves edges, never adds or removes one
  sde::NetworkSpec s;
  s.kind = "watts-strogatz", s.n = 100, s.mean_degree = 4, s.rewire = 0;
  auto const regular = sde::generate_network(s);
  for (int i = 0; i < 100; ++i) {
    std::vector<int> row(regular.col.begin() + regular.row_ptr[i], regular.col.begin() + regular.row_ptr[i + 1]);
    std::vector<int> want;
    for (int d : {-2, -1, 1, 2}) want.push_back((i + d + 100) % 100);
    std::sort(want.begin(), want.end());
    EXPECT_EQ(row, want) << "node " << i;
  }
  // Rewired: some edges are no longer ring edges (beta = 0.1 of 600 edges: ~60 rewired).
  int far = 0;
  for (int i = 0; i < 200; ++i)
    for (auto e = ring.row_ptr[i]; e < ring.row_ptr[i + 1]; ++e) {
      int const d = std::abs(ring.col[e] - i);
      far += std::min(d, 200 - d) > 3;
    }
  EXPECT_GT(far, 2 * 20);
  EXPECT_LT(far, 2 * 110);
}

TEST(Network, PeriodicLatticeNeighbours) {
  sde::NetworkSpec s;
  s.kind = "lattice", s.n = 12 * 5, s.width = 12;
  auto const g = sde::generate_network(s);
  expect_simple_undirected(g);
  for (int r = 0; r < 5; ++r)
    for (int c = 0; c < 12; ++c) {
      int const i = r * 12 + c;
      std::vector<int> row(g.col.begin() + g.row_ptr[i], g.col.begin() + g.row_ptr[i + 1]);
      std::vector<int> want{r * 12 + (c + 1) % 12, r * 12 + (c + 11) % 12, ((r + 1) % 5) * 12 + c,
                            ((r + 4) % 5) * 12 + c};
      std::sort(want.begin(), want.end());
      EXPECT_EQ(row, want) << "node " << i;
    }
  s.width = 7;
  EXPECT_THROW(sde::generate_network(s), parity::InvalidInput);  // 60 is not a multiple of 7
}

TEST(Network, ConfigurationModels) {
  auto const rr = make("random-regular", 2000, 12);
  expect_simple_undirected(rr);
  auto const k = rr.strengths();
  for (double d : k) EXPECT_LE(d, 12);
  // Erased self-loops and double edges: about (k - 1) / 2 + (k - 1)^2 / 4 = 36 of the N k / 2
  // edges, so <k> drops by about 2 * 36 / N = 0.036.
  EXPECT_GT(mean(k), 12 - 0.15);
  EXPECT_LT(mean(k), 12);
  sde::NetworkSpec s;
  s.kind = "scale-free", s.n = 20000, s.exponent = 2.5, s.k_min = 3, s.k_max = 100;
  auto const sf = sde::generate_network(s);
  expect_simple_undirected(sf);
  auto const d = sf.strengths();
  double m1 = 0, z = 0;
  for (int q = 3; q <= 100; ++q) z += std::pow(q, -2.5), m1 += q * std::pow(q, -2.5);
  m1 /= z;  // <k> of the discrete power law
  double kmax = 0;
  for (double v : d) kmax = std::max(kmax, v);
  EXPECT_LE(kmax, 100);
  EXPECT_NEAR(mean(d), m1, 0.04 * m1);  // sampling (about 1 %) and erased edges
}

TEST(Network, MatrixMarketRoundTripAndErrors) {
  auto const dir = std::filesystem::temp_directory_path() / ("parity_network_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto const g = sde::coupling_matrix(make("erdos-renyi", 300, 6), 2.5, "degree");
  sde::write_matrix_market((dir / "g.mtx").string(), g);
  auto const back = sde::read_matrix_market((dir / "g.mtx").string());
  EXPECT_EQ(back.row_ptr, g.row_ptr);
  EXPECT_EQ(back.col, g.col);
  for (std::size_t e = 0; e < g.weight.size(); ++e) EXPECT_EQ(back.weight[e], g.weight[e]);
  // Symmetric pattern: the lower triangle mirrored, the diagonal dropped, duplicates summed.
  {
    std::ofstream f(dir / "s.mtx");
    f << "%%MatrixMarket matrix coordinate pattern symmetric\n% comment\n3 3 4\n2 1\n3 1\n3 3\n2 1\n";
  }
  auto const s = sde::read_matrix_market((dir / "s.mtx").string());
  EXPECT_EQ(s.row_ptr, (std::vector<std::int64_t>{0, 2, 3, 4}));
  EXPECT_EQ(s.col, (std::vector<int>{1, 2, 0, 0}));
  EXPECT_EQ(s.weight, (std::vector<double>{2, 1, 2, 1}));
  auto bad = [&](std::string const& text) {
    std::ofstream(dir / "bad.mtx") << text;
    try {
      sde::read_matrix_market((dir / "bad.mtx").string());
    } catch (parity::InvalidInput const& e) {
      EXPECT_NE(std::string(e.what()).find("--network-file"), std::string::npos) << e.what();
      return;
    }
    ADD_FAILURE() << "accepted: " << text;
  };
  bad("3 3 1\n1 2 1\n");  // no banner
  bad("%%MatrixMarket matrix array real general\n3 3\n");  // dense
  bad("%%MatrixMarket matrix coordinate real general\n3 4 1\n1 2 1\n");  // not square
  bad("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n");  // too few entries
  bad("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 4 1\n");  // outside
  bad("%%MatrixMarket matrix coordinate complex general\n3 3 1\n1 2 1 0\n");
  EXPECT_THROW(sde::read_matrix_market((dir / "missing.mtx").string()), parity::InvalidInput);
  std::filesystem::remove_all(dir);
}

TEST(Network, Normalisations) {
  auto const a = make("erdos-renyi", 500, 7);
  auto const k = a.strengths();
  double const kbar = mean(k);
  auto const by_n = sde::coupling_matrix(a, 3, "n");
  auto const by_mean = sde::coupling_matrix(a, 3, "mean-degree");
  auto const by_row = sde::coupling_matrix(a, 3, "degree");
  auto const sn = by_n.strengths(), sm = by_mean.strengths(), sr = by_row.strengths();
  for (int i = 0; i < a.n; ++i) {
    EXPECT_NEAR(sn[i], 3 * k[i] / 500, 1e-12);
    EXPECT_NEAR(sm[i], 3 * k[i] / kbar, 1e-12);
    EXPECT_NEAR(sr[i], k[i] > 0 ? 3.0 : 0.0, 1e-12);
  }
  EXPECT_THROW(sde::coupling_matrix(a, 3, "sum"), parity::InvalidInput);
}

// auto stores K dense where N^2 words are fewer bytes than the CRS arrays; dense refuses an N whose
// N^2 matrix is too large, naming --storage.
TEST(Network, StorageChoice) {
  auto const complete = make("complete", 300), ring = make("watts-strogatz", 4096, 4);
  EXPECT_EQ(sde::resolve_storage("auto", complete.n, complete.nonzeros(), 8), "dense");
  EXPECT_EQ(sde::resolve_storage("auto", ring.n, ring.nonzeros(), 8), "sparse");
  EXPECT_EQ(sde::resolve_storage("dense", ring.n, ring.nonzeros(), 4), "dense");
  EXPECT_EQ(sde::resolve_storage("sparse", complete.n, complete.nonzeros(), 4), "sparse");
  std::int64_t const big = sde::max_dense_oscillators + 1;
  EXPECT_EQ(sde::resolve_storage("auto", int(big), big * (big - 1), 8), "sparse");
  try {
    sde::resolve_storage("dense", int(big), 4 * big, 8);
    ADD_FAILURE() << "dense accepted N = " << big;
  } catch (parity::InvalidInput const& e) {
    EXPECT_NE(std::string(e.what()).find("--storage"), std::string::npos) << e.what();
  }
}

// The modelled work of a step: the matrix term is the CRS arrays the device holds (or N^2 words),
// read once per product however many replicas share it; the rest grows with N R.
TEST(Network, StepWorkModel) {
  auto const g = make("erdos-renyi", 1000, 8);
  int const n = g.n;
  double const crs = 4.0 * double(g.row_ptr.size()) + (4.0 + 8.0) * double(g.col.size());
  auto const one = sde::network_step_work(n, g.nonzeros(), 1, 8, false, false, true);
  auto const many = sde::network_step_work(n, g.nonzeros(), 32, 8, false, false, true);
  EXPECT_DOUBLE_EQ(one.matrix_bytes, crs);
  EXPECT_DOUBLE_EQ(many.matrix_bytes, crs);
  EXPECT_NEAR(many.bytes - 2 * crs, 32 * (one.bytes - 2 * crs), 1e-6 * many.bytes);  // SRK2: two products
  EXPECT_NEAR(many.flops, 32 * one.flops, 1e-9 * many.flops);
  // Dense complete graph: N^2 words, and the N diagonal zeros the CRS matrix leaves out.
  auto const k = make("complete", 200);
  auto const dense = sde::network_step_work(200, k.nonzeros(), 4, 4, true, true, false);
  auto const sparse = sde::network_step_work(200, k.nonzeros(), 4, 4, false, true, false);
  EXPECT_DOUBLE_EQ(dense.matrix_bytes, 200.0 * 200.0 * 4);
  EXPECT_DOUBLE_EQ(dense.flops - sparse.flops, 4.0 * 200 * 4);  // Euler: one product, 4 flops a coupling
  // SRK2 is two Euler coupling evaluations plus one more phase array per oscillator (7 against 2 x 3).
  auto const euler = sde::network_step_work(n, g.nonzeros(), 2, 8, false, true, false);
  auto const srk2 = sde::network_step_work(n, g.nonzeros(), 2, 8, false, true, true);
  EXPECT_DOUBLE_EQ(srk2.bytes, 2 * euler.bytes + 1.0 * n * 2 * 8);
}

}  // namespace parity_test_sde_network
