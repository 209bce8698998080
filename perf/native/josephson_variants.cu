// Native CUDA microbenchmark: what an SRK2 Josephson step costs, one change at a time.
// Not part of the build; used once to decide which changes to make in models/parity/sde/.
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -o josephson_variants josephson_variants.cu
//   (Random123 headers: add -I/usr/include or wherever librandom123-dev put them)
//   ./josephson_variants [paths=524288] [launches=200]
// Each variant: 2^19 paths x launches x 100 SRK2 steps (100 steps per drive period), state in
// registers for a launch, x kept in [0,1) with a winding count, velocity time sum per path.
// Variants (cumulative unless stated):
//   V0 baseline: step % steps_per_period in 64 bits, cos(phase) in both drift calls, normals
//      from a cursor with a dynamically indexed buffer (as models/parity/sde/ on 2026-11-21)
//   V1 + drive from a table (int phase counter), drive of step+1 carried to the next step
//   V2 + noise: one Philox block per per_block steps, consumed by an unrolled inner loop
//   V3 + sin/cos(2 pi u) by a portable polynomial on the octant (drift and Box-Muller)
//   V4 = V2 with CUDA's cospi/sincospi (exact range reduction, CUDA only)
//   V5 = V2 with fast intrinsics (__cosf/__logf/__sincosf; float only, reference)
//   V6 = V3 without noise (cost of the noise)
//   V7 = V3 with the drift's cos(2 pi x) by one odd polynomial after a half-turn reduction
//        (models/parity/sde/trig.hpp cos_2pi since 2026-11-23; Box-Muller keeps sincos2pi_poly)
//   V8 = V7 with occupancy capped at 50 % (4 blocks of 256 per SM, by dynamic shared memory): the
//        Kokkos kernel's occupancy before 2026-11-23 (51 registers: at most 36 warps per SM)
//   V9 = V7 with occupancy capped at 75 % (6 blocks of 256 per SM: 40 registers, no launch bounds)
//   V10 = V7 with weak noise: a five-point law with the normal's moments through the fifth, from 4
//         bits (32 variates per Philox block; models/parity/sde/noise.hpp NoiseLaw::five_point, 2026-11-23)
//   V11 = V10 with the drift's cos(2 pi x) by __cosf (hardware approximation; reference only)
//   V12 = V7 with the textbook three-point law (+-sqrt 3 with probability 1/6) from a 32-bit word
//   V13 = V7 with Box-Muller's -2 log u by a portable polynomial (models/parity/sde/log.hpp scaled_log:
//         exponent and mantissa from the bits, m in [sqrt(1/2), sqrt 2), f + f^2 Q(f) with Q of
//         degree 7 / 18 and -2 folded in, explicit FMAs), since 2026-11-28
//   V14 = V7 with -2 log u by __log2f times -2 ln 2 (hardware approximation, float only; reference:
//         the least a log can cost)
// Occupancy of each kernel: printed beside its time (cudaOccupancyMaxActiveBlocksPerMultiprocessor).
#include <Random123/philox.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#define CK(x)                                                      \
  do {                                                             \
    cudaError_t e_ = (x);                                          \
    if (e_ != cudaSuccess) {                                       \
      printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); \
      exit(1);                                                     \
    }                                                              \
  } while (0)

__device__ __forceinline__ uint4 philox(uint64_t seed, uint64_t stream, uint64_t block) {
  r123::Philox4x32 g;
  r123::Philox4x32::ctr_type c = {{uint32_t(block), uint32_t(block >> 32), uint32_t(stream), uint32_t(stream >> 32)}};
  r123::Philox4x32::key_type k = {{uint32_t(seed), uint32_t(seed >> 32)}};
  auto r = g(c, k);
  return make_uint4(r.v[0], r.v[1], r.v[2], r.v[3]);
}
__device__ __forceinline__ float uf(uint32_t a) { return (float(a >> 8) + 0.5f) * (1.0f / 16777216.0f); }
__device__ __forceinline__ double ud(uint32_t a, uint32_t b) {
  return (double(((uint64_t(a) << 32) | b) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

// sin and cos of 2 pi u by octant reduction and Taylor polynomials (portable arithmetic only).
template <class R>
__host__ __device__ __forceinline__ void sincos2pi_poly(R u, R& s, R& c) {
  R const r = u - rint(u);  // [-1/2, 1/2]
  R const q = rint(R(4) * r);  // quadrant -2..2
  R const t = r - R(0.25) * q;  // [-1/8, 1/8], exact
  R const t2 = t * t;
  R sp, cp;
  constexpr double p = 6.283185307179586476925286766559;
  if constexpr (std::is_same_v<R, float>) {
    sp = t * (R(p) + t2 * (R(-p * p * p / 6) + t2 * (R(p * p * p * p * p / 120) +
                                                     t2 * (R(-p * p * p * p * p * p * p / 5040) +
                                                           t2 * R(p * p * p * p * p * p * p * p * p / 362880)))));
    cp = R(1) +
         t2 * (R(-p * p / 2) + t2 * (R(p * p * p * p / 24) + t2 * (R(-p * p * p * p * p * p / 720) +
                                                                   t2 * R(p * p * p * p * p * p * p * p / 40320))));
  } else {
    double const a2 = p * p;
    // coefficients of the Taylor series in t (theta = 2 pi t)
    double sc[8], cc[9];
    double term = p;
    for (int k = 0; k < 8; ++k) {
      sc[k] = term;
      term *= -a2 / ((2 * k + 2) * (2 * k + 3));
    }
    term = 1;
    for (int k = 0; k < 9; ++k) {
      cc[k] = term;
      term *= -a2 / ((2 * k + 1) * (2 * k + 2));
    }
    R ps = sc[7], pc = cc[8];
    for (int k = 6; k >= 0; --k) ps = ps * t2 + sc[k];
    for (int k = 7; k >= 0; --k) pc = pc * t2 + cc[k];
    sp = t * ps;
    cp = pc;
  }
  int const qi = int(q) & 3;
  s = (qi == 0) ? sp : (qi == 1) ? cp : (qi == 2) ? -sp : -cp;
  c = (qi == 0) ? cp : (qi == 1) ? -sp : (qi == 2) ? -cp : sp;
}

// cos(2 pi u) alone: r = u - rint(u), t = 1/4 - |r|, sin(2 pi t) by the odd Taylor series through
// t^13 (float) or t^21 (double), leading term added last (as models/parity/sde/trig.hpp cos_2pi).
template <class R>
__host__ __device__ __forceinline__ R cos2pi_half(R u) {
  constexpr double p = 6.283185307179586476925286766559;
  constexpr int K = std::is_same_v<R, float> ? 7 : 11;
  double sc[K];
  double term = p;
  for (int k = 0; k < K; ++k) {
    sc[k] = term;
    term *= -p * p / ((2 * k + 2) * (2 * k + 3));
  }
  R const r = fabs(u - rint(u));
  R const t = R(0.25) - r, t2 = t * t;
  R q = R(sc[K - 1]);
  for (int k = K - 2; k >= 1; --k) q = q * t2 + R(sc[k]);
  return t * R(p) + (t * t2) * q;
}

template <class R>
__host__ __device__ constexpr double log_q(int k) {  // Q's coefficients (Remez)
  if constexpr (std::is_same_v<R, float>) {
    double const c[] = {-0.4999999160638075840686176, 0.3333395022149102075950415,  -0.2500175525751646419299059,
                        0.199620721386656149295458,   -0.1657050806576036597670537, 0.1491797346106381940991374,
                        -0.1430752251434709650776604, 0.08734844487605777829697167};
    return c[k];
  } else {
    double const c[] = {-0.4999999999999997332490907,  0.3333333333332809452899955,   -0.2500000000001236594392423,
                        0.2000000000174174600469343,   -0.1666666666626719530398407,  0.1428571408716794745956578,
                        -0.1249999982974730125028006,  0.1111112201823182416998651,   -0.1000001818848305456366174,
                        0.09090583290300473739436051,  -0.08332552019602219139576497, 0.07697710747066674140728774,
                        -0.07160261012622842595048995, 0.06621606910178362966602267,  -0.06041118390560564391901335,
                        0.05973533242176695937442823,  -0.06787069173748387466480858, 0.0632512311867102062199502,
                        -0.02830039284993076752042637};
    return c[k];
  }
}
template <class R, int K, int Deg>
__host__ __device__ __forceinline__ R minus_two_q(R f) {  // -2 Q(f) by Horner, every step an FMA
  constexpr double c = -2 * log_q<R>(K);
  if constexpr (K == Deg)
    return R(c);
  else
    return fma(minus_two_q<R, K + 1, Deg>(f), f, R(c));
}

// -2 log u for u in (0, 1] (the uniforms above), as models/parity/sde/log.hpp scaled_log<R, -2>: u = 2^e m
// with m in [sqrt(1/2), sqrt 2) from the bits, e to floating point by a magic-number subtraction,
// f = m - 1 exact, log(1 + f) = f + f^2 Q(f) (Q minimax, degree 7 / 18), e ln 2 in a head and a tail.
template <class R>
__host__ __device__ __forceinline__ R minus_two_log_poly(R u) {
  constexpr bool F = std::is_same_v<R, float>;
  using B = std::conditional_t<F, int32_t, int64_t>;
  constexpr int mbits = F ? 23 : 52;
  constexpr B sqrt_half = F ? B(0x3f3504f3) : B(0x3fe6a09e667f3bcdLL);
  constexpr R magic = F ? R(12582912.0f) : R(6755399441055744.0);
  constexpr double head = F ? 0.693147182464599609375 : 0.69314718055994528623;
  constexpr double tail = F ? -1.9046542999577678785e-9 : 2.3190468138462996155e-17;
  B bits, magic_bits;
  memcpy(&bits, &u, sizeof(R));
  memcpy(&magic_bits, &magic, sizeof(R));
  B const d = bits - sqrt_half;
  B const mb = bits - (d & ~((B(1) << mbits) - 1));
  magic_bits += d >> mbits;  // e, arithmetic shift
  R m, ef;
  memcpy(&m, &mb, sizeof(R));
  memcpy(&ef, &magic_bits, sizeof(R));
  ef -= magic;
  R const f = m - R(1);
  R const q = minus_two_q < R, 0, F ? 7 : 18 > (f);
  R const y = fma(f * f, q, R(-2) * f);
  return fma(ef, R(-2 * head), fma(ef, R(-2 * tail), y));
}

enum Trig { libm = 0, poly = 1, cudapi = 2, fast = 3, half = 4, half_plog = 5, half_log2 = 6 };

template <class R, int T>
__device__ __forceinline__ R cos2pi(R x) {
  constexpr R tp = R(6.283185307179586476925286766559);
  if constexpr (T == poly) {
    R s, c;
    sincos2pi_poly(x, s, c);
    return c;
  } else if constexpr (T == half || T == half_plog || T == half_log2)
    return cos2pi_half(x);
  else if constexpr (T == cudapi)
    return cospi(R(2) * x);
  else if constexpr (T == fast && std::is_same_v<R, float>)
    return __cosf(tp * x);
  else
    return cos(tp * x);
}
template <class R, int T>
__device__ __forceinline__ void box_muller(R u1, R u2, R& z1, R& z2) {
  constexpr R tp = R(6.283185307179586476925286766559);
  R r;
  if constexpr (T == half_plog)
    r = sqrt(minus_two_log_poly(u1));
  else if constexpr (T == half_log2 && std::is_same_v<R, float>)
    r = sqrt(R(-2 * 0.69314718055994530942) * __log2f(u1));
  else if constexpr (T == fast && std::is_same_v<R, float>)
    r = sqrt(R(-2) * __logf(u1));
  else
    r = sqrt(R(-2) * log(u1));
  R s, c;
  if constexpr (T == poly || T == half || T == half_plog || T == half_log2)
    sincos2pi_poly(u2, s, c);
  else if constexpr (T == cudapi)
    sincospi(R(2) * u2, &s, &c);
  else if constexpr (T == fast && std::is_same_v<R, float>)
    __sincosf(tp * u2, &s, &c);
  else
    sincos(tp * u2, &s, &c);
  z1 = r * c;
  z2 = r * s;
}

template <class R>
constexpr int per_block = std::is_same_v<R, float> ? 4 : 2;

template <class R, int T>
__device__ __forceinline__ void fill(uint64_t seed, uint64_t stream, uint64_t blk, R* z) {
  uint4 b = philox(seed, stream, blk);
  if constexpr (std::is_same_v<R, float>) {
    box_muller<R, T>(uf(b.x), uf(b.y), z[0], z[1]);
    box_muller<R, T>(uf(b.z), uf(b.w), z[2], z[3]);
  } else {
    box_muller<R, T>(ud(b.x, b.y), ud(b.z, b.w), z[0], z[1]);
  }
}

struct Par {
  float gamma = 0.9f, a = 4.2f, f = 0.1f, D = 0.001f;
  int spp = 100;
};

// V0: the 2026-11-21 structure.
template <class R>
__global__ void v0(int n, R* X, R* V, int* W, double* acc, Par p, uint64_t seed, long step0, int nsteps, R dt) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n) return;
  R x = X[g], v = V[g];
  int w = W[g];
  R const tp = R(6.283185307179586476925286766559), gamma = p.gamma, a = p.a, f = p.f;
  R const amp = sqrt(R(2) * gamma * R(p.D)) * sqrt(dt), pps = tp / R(p.spp);
  R z[per_block<R>];
  uint64_t blk = uint64_t(step0) / per_block<R>;
  int pos = int(uint64_t(step0) % per_block<R>);
  fill<R, libm>(seed, g, blk, z);
  R sv = 0;
  for (int j = 0; j < nsteps; ++j) {
    long const step = step0 + j;
    if (pos == per_block<R>) {
      ++blk;
      pos = 0;
      fill<R, libm>(seed, g, blk, z);
    }
    R const dW = amp * z[pos++];
    R const f0x = v, f0v = -gamma * v - tp * cos(tp * x) + a * cos(pps * R(int(step % p.spp))) + f;
    R const xp = x + f0x * dt, vp = v + f0v * dt + dW;
    R const f1x = vp, f1v = -gamma * vp - tp * cos(tp * xp) + a * cos(pps * R(int((step + 1) % p.spp))) + f;
    x += (f0x + f1x) * (R(0.5) * dt);
    v += (f0v + f1v) * (R(0.5) * dt) + dW;
    if (x >= R(1) || x < R(0)) {
      R const k = floor(x);
      x -= k;
      w += int(k);
    }
    sv += v;
  }
  X[g] = x;
  V[g] = v;
  W[g] = w;
  acc[g] += double(sv);
}

// V1..V6: table drive, blocked noise, selectable trig; Noise = false: no noise at all.
template <class R, int T, bool Blocked, bool Noise>
__global__ void vn(int n, R* X, R* V, int* W, double* acc, R const* drive, Par p, uint64_t seed, long step0, int nsteps,
                   R dt) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n) return;
  R x = X[g], v = V[g];
  int w = W[g];
  R const tp = R(6.283185307179586476925286766559), gamma = p.gamma, a = p.a, f = p.f, hdt = R(0.5) * dt;
  R const amp = sqrt(R(2) * gamma * R(p.D)) * sqrt(dt);
  int ph = int(step0 % p.spp);
  R d0 = a * drive[ph];
  R sv = 0;
  auto step = [&](R dW) {
    int const ph1 = ph + 1 == p.spp ? 0 : ph + 1;
    R const d1 = a * drive[ph1];
    R const f0v = -gamma * v - tp * cos2pi<R, T>(x) + d0 + f;
    R const xp = x + v * dt, vp = v + f0v * dt + dW;
    R const f1v = -gamma * vp - tp * cos2pi<R, T>(xp) + d1 + f;
    x += (v + vp) * hdt;
    v += (f0v + f1v) * hdt + dW;
    if (x >= R(1) || x < R(0)) {
      R const k = floor(x);
      x -= k;
      w += int(k);
    }
    sv += v;
    ph = ph1;
    d0 = d1;
  };
  constexpr int pb = per_block<R>;
  if constexpr (!Noise) {
    for (int j = 0; j < nsteps; ++j) step(R(0));
  } else if constexpr (Blocked) {
    // assumes step0 and nsteps multiples of pb (the benchmark's case)
    uint64_t blk = uint64_t(step0) / pb;
    for (int j = 0; j < nsteps; j += pb, ++blk) {
      R z[pb];
      fill<R, T>(seed, g, blk, z);
#pragma unroll
      for (int q = 0; q < pb; ++q) step(amp * z[q]);
    }
  } else {
    R z[pb];
    uint64_t blk = uint64_t(step0) / pb;
    int pos = 0;
    fill<R, T>(seed, g, blk, z);
    for (int j = 0; j < nsteps; ++j) {
      if (pos == pb) {
        ++blk;
        pos = 0;
        fill<R, T>(seed, g, blk, z);
      }
      step(amp * z[pos++]);
    }
  }
  X[g] = x;
  V[g] = v;
  W[g] = w;
  acc[g] += double(sv);
}

// Weak noise (V10-V12): dW = amp * xi with xi discrete. Five-point: 4 bits per variate, bit 0 the
// sign, bits 1-3 m: m < 4 -> a, m == 4 -> b, else 0 (P = 1/2, 1/8, 3/8 for |xi| = a, b, 0),
// a^2 = (8 - sqrt 14) / 5, b^2 = (8 + 4 sqrt 14) / 5: E xi^2 = 1, E xi^4 = 3, odd moments 0.
template <class R, int T, int Law>
__global__ void vw(int n, R* X, R* V, int* W, double* acc, R const* drive, Par p, uint64_t seed, long step0, int nsteps,
                   R dt) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n) return;
  R x = X[g], v = V[g];
  int w = W[g];
  R const tp = R(6.283185307179586476925286766559), gamma = p.gamma, a = p.a, f = p.f, hdt = R(0.5) * dt;
  R const amp = sqrt(R(2) * gamma * R(p.D)) * sqrt(dt);
  R const la = amp * R(0.92285888555358870), lb = amp * R(2.1432045887920157), l3 = amp * R(1.7320508075688772);
  int ph = int(step0 % p.spp);
  R d0 = a * drive[ph];
  R sv = 0;
  auto step = [&](R dW) {
    int const ph1 = ph + 1 == p.spp ? 0 : ph + 1;
    R const d1 = a * drive[ph1];
    R const f0v = -gamma * v - tp * cos2pi<R, T>(x) + d0 + f;
    R const xp = x + v * dt, vp = v + f0v * dt + dW;
    R const f1v = -gamma * vp - tp * cos2pi<R, T>(xp) + d1 + f;
    x += (v + vp) * hdt;
    v += (f0v + f1v) * hdt + dW;
    if (x >= R(1) || x < R(0)) {
      R const k = floor(x);
      x -= k;
      w += int(k);
    }
    sv += v;
    ph = ph1;
    d0 = d1;
  };
  if constexpr (Law == 5) {
    // units of 4 steps (16 bits); a Philox block every 8 units. Assumes step0 % 32 == 0.
    uint64_t blk = uint64_t(step0) / 32;
    uint32_t w0 = 0, w1 = 0, w2 = 0, w3 = 0;
    for (int j = 0, u = 0; j < nsteps; j += 4, ++u) {
      if ((u & 7) == 0) {
        uint4 b = philox(seed, g, blk++);
        w0 = b.x;
        w1 = b.y;
        w2 = b.z;
        w3 = b.w;
      }
      uint32_t bits = w0;
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        uint32_t const nib = bits >> (4 * q);
        uint32_t const m = (nib >> 1) & 7u;
        R const mag = m < 4u ? la : (m == 4u ? lb : R(0));
        step((nib & 1u) ? -mag : mag);
      }
      if (u & 1) {
        w0 = w1;
        w1 = w2;
        w2 = w3;
      } else {
        w0 >>= 16;
      }
    }
  } else {
    uint64_t blk = uint64_t(step0) / 4;
    for (int j = 0; j < nsteps; j += 4, ++blk) {
      uint4 b = philox(seed, g, blk);
      uint32_t const ws[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        uint32_t const u32 = ws[q];
        step(u32 < 715827883u ? -l3 : (u32 >= 3579139413u ? l3 : R(0)));
      }
    }
  }
  X[g] = x;
  V[g] = v;
  W[g] = w;
  acc[g] += double(sv);
}

template <class R>
__global__ void init(int n, R* X, R* V, int* W, double* acc, uint64_t seed) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n) return;
  uint4 b = philox(seed, uint64_t(g) | (uint64_t(1) << 63), 0);
  X[g] = R(uf(b.x));
  V[g] = R(4) * R(uf(b.y)) - R(2);
  W[g] = 0;
  acc[g] = 0;
}

template <class R>
void run(char const* name, int n, int launches, int variant) {
  R *X, *V, *drive;
  int* W;
  double* acc;
  CK(cudaMalloc(&X, n * sizeof(R)));
  CK(cudaMalloc(&V, n * sizeof(R)));
  CK(cudaMalloc(&W, n * sizeof(int)));
  CK(cudaMalloc(&acc, n * sizeof(double)));
  CK(cudaMalloc(&drive, 100 * sizeof(R)));
  std::vector<R> dh(100);
  for (int k = 0; k < 100; ++k) dh[k] = R(std::cos(2 * M_PI * k / 100));
  CK(cudaMemcpy(drive, dh.data(), 100 * sizeof(R), cudaMemcpyHostToDevice));
  Par p;
  R const dt = R(2 * M_PI / 4.9 / 100);
  int const bs = 256, nb = (n + bs - 1) / bs;
  // V8, V9: dynamic shared memory that leaves room for only `cap` blocks per SM.
  int cap = variant == 8 ? 4 : variant == 9 ? 6 : 0;
  size_t smem = 0;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  if (cap > 0) {
    smem = prop.sharedMemPerMultiprocessor / cap - prop.reservedSharedMemPerBlock - 256;
    CK(cudaFuncSetAttribute(vn<R, half, true, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  }
  auto launch = [&](long s0) {
    switch (variant) {
      case 0:
        v0<R><<<nb, bs>>>(n, X, V, W, acc, p, 1, s0, 100, dt);
        break;
      case 1:
        vn<R, libm, false, true><<<nb, bs>>>(n, X, V, W, acc, drive, p, 1, s0, 100, dt);
        break;
      case 2:
        vn<R, libm, true, true><<<nb, bs>>>(n, X, V, W, acc, drive, p, 1, s0, 100, dt);
        break;
      case 3:
        vn<R, poly, true, true><<<nb, bs>>>(n, X, V, W, acc, drive, p, 1, s0, 100, dt);
        break;
      case 4:
        vn<R, cudapi, true, true><<<nb, bs>>>(n, X, V, W, acc, drive, p, 1, s0, 100, dt);
        break;
      case 5:
        vn<R, fast, true, true><<<nb, bs>>>(n, X, V, W, acc, drive, p, 1, s0, 100, dt);
        break;
      case 6:
        vn<R, poly, true, false><<<nb, bs>>>(n, X, V, W, acc, drive, p, 1, s0, 100, dt);
        break;
      case 7:
        vn<R, half, true, true><<<nb, bs>>>(n, X, V, W, acc, drive, p, 1, s0, 100, dt);
        break;
      case 8:
      case 9:
        vn<R, half, true, true><<<nb, bs, smem>>>(n, X, V, W, acc, drive, p, 1, s0, 100, dt);
        break;
      // weak noise: launches of 96 steps (a multiple of 32), s0 advanced by 96 below
      case 10:
        vw<R, half, 5><<<nb, bs>>>(n, X, V, W, acc, drive, p, 1, s0, 96, dt);
        break;
      case 11:
        vw<R, fast, 5><<<nb, bs>>>(n, X, V, W, acc, drive, p, 1, s0, 96, dt);
        break;
      case 12:
        vw<R, half, 3><<<nb, bs>>>(n, X, V, W, acc, drive, p, 1, s0, 96, dt);
        break;
      case 13:
        vn<R, half_plog, true, true><<<nb, bs>>>(n, X, V, W, acc, drive, p, 1, s0, 100, dt);
        break;
      case 14:
        vn<R, half_log2, true, true><<<nb, bs>>>(n, X, V, W, acc, drive, p, 1, s0, 100, dt);
        break;
    }
  };
  init<R><<<nb, bs>>>(n, X, V, W, acc, 1);
  launch(0);  // warm-up
  CK(cudaDeviceSynchronize());
  init<R><<<nb, bs>>>(n, X, V, W, acc, 1);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventRecord(e0);
  int const per_launch = variant >= 10 && variant <= 12 ? 96 : 100;
  for (int l = 0; l < launches; ++l) launch(long(l) * per_launch);
  cudaEventRecord(e1);
  CK(cudaEventSynchronize(e1));
  float ms;
  cudaEventElapsedTime(&ms, e0, e1);
  std::vector<double> ah(n);
  CK(cudaMemcpy(ah.data(), acc, n * sizeof(double), cudaMemcpyDeviceToHost));
  double m = 0;
  for (double v : ah) m += v;
  m /= double(n) * launches * per_launch;
  double const steps = double(n) * launches * per_launch;
  int blocks = 0;
  cudaFuncAttributes attr{};
  auto const* k = variant == 0                   ? (void const*)v0<R>
                  : variant >= 7 && variant <= 9 ? (void const*)vn<R, half, true, true>
                  : variant == 10                ? (void const*)vw<R, half, 5>
                  : variant == 11                ? (void const*)vw<R, fast, 5>
                  : variant == 12                ? (void const*)vw<R, half, 3>
                  : variant == 13                ? (void const*)vn<R, half_plog, true, true>
                  : variant == 14                ? (void const*)vn<R, half_log2, true, true>
                                                 : nullptr;
  if (k) {
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, bs, smem));
    CK(cudaFuncGetAttributes(&attr, k));
  }
  printf("%-6s V%d  %8.4f s  %.3e steps/s  <v> over all steps %.5f", name, variant, ms * 1e-3, steps / (ms * 1e-3), m);
  if (k) printf("  (%d regs, %d blocks of %d per SM)", attr.numRegs, blocks, bs);
  printf("\n");
  cudaFree(X);
  cudaFree(V);
  cudaFree(W);
  cudaFree(acc);
  cudaFree(drive);
}

int main(int argc, char** argv) {
  int const n = argc > 1 ? atoi(argv[1]) : 1 << 19;
  int const launches = argc > 2 ? atoi(argv[2]) : 200;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("%s, %d SMs; %d paths x %d steps\n", prop.name, prop.multiProcessorCount, n, launches * 100);
  int const only = argc > 3 ? atoi(argv[3]) : -1;  // one variant, or all
  for (int v = 0; v <= 14; ++v)
    if (only < 0 || v == only || v == 7) run<float>("float", n, launches, v);
  for (int v = 0; v <= 14; ++v)
    if (v != 5 && v != 11 && v != 14 && (only < 0 || v == only || v == 7)) run<double>("double", n, launches, v);
}
