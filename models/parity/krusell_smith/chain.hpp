#pragma once
// The 4x4 Markov chain over (aggregate state, employment) built from the calibration targets
// (host code, no Kokkos).
#include "parity/krusell_smith/params.hpp"

namespace parity::krusell_smith {

// State index s = 2 z + e: z = 0 good, 1 bad; e = 0 unemployed, 1 employed.
struct Chain {
  double pz[2][2];  // aggregate transition
  double p00[2][2];  // P(unemployed -> unemployed | z -> z')
  double p10[2][2];  // P(employed -> unemployed | z -> z')
  double P[4][4];  // joint transition P[(z,e)][(z',e')]
  double u[2];  // unemployment rate by aggregate state
};

// Builds the chain from the targets (Krusell & Smith 1998, Den Haan, Judd & Juillard 2010):
//   pi_gg = pi_bb = 1 - 1/duration_z;
//   pi_{00|gg} = 1 - 1/duration_u_good, pi_{00|bb} = 1 - 1/duration_u_bad;
//   pi_{00|gb} = ratio_gb pi_{00|bb}, pi_{00|bg} = ratio_bg pi_{00|gg};
//   job loss from consistency with the unemployment rates: u_z pi_{00|zz'} + (1-u_z) pi_{10|zz'} = u_z'.
inline Chain build_chain(Params const& p) {
  Chain c{};
  double const stay = 1 - 1 / p.duration_z;
  c.u[0] = p.u_good;
  c.u[1] = p.u_bad;
  c.pz[0][0] = stay, c.pz[0][1] = 1 - stay, c.pz[1][0] = 1 - stay, c.pz[1][1] = stay;
  double const p00_gg = 1 - 1 / p.duration_u_good, p00_bb = 1 - 1 / p.duration_u_bad;
  c.p00[0][0] = p00_gg;
  c.p00[1][1] = p00_bb;
  c.p00[0][1] = p.ratio_gb * p00_bb;
  c.p00[1][0] = p.ratio_bg * p00_gg;
  for (int z = 0; z < 2; ++z)
    for (int zn = 0; zn < 2; ++zn) c.p10[z][zn] = (c.u[zn] - c.u[z] * c.p00[z][zn]) / (1 - c.u[z]);
  for (int z = 0; z < 2; ++z)
    for (int e = 0; e < 2; ++e)
      for (int zn = 0; zn < 2; ++zn)
        for (int en = 0; en < 2; ++en) {
          double const pu = e == 0 ? c.p00[z][zn] : c.p10[z][zn];  // P(unemployed next)
          c.P[2 * z + e][2 * zn + en] = c.pz[z][zn] * (en == 0 ? pu : 1 - pu);
        }
  return c;
}

}  // namespace parity::krusell_smith
