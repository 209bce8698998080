// run::resident_teams: 0 on host backends; on a GPU, the teams it counts really run at once. Each
// team of a kernel launched with that league and scratch waits (bounded) until every team has
// arrived, which happens only if all are resident together; one team more than the
// multiprocessors hold would make the others time out instead.
#include <gtest/gtest.h>

#include "parity/run/resident_teams.hpp"
#include "test_backend.hpp"

namespace parity_test_resident_teams {

using parity::test::ExecSpace;
using parity::test::MemSpace;

// Teams of `league` that gave up waiting for the others (0: all ran at once).
int teams_not_met(ExecSpace const& space, long league, int team_size, std::size_t scratch) {
  Kokkos::View<int, MemSpace> arrived("arrived"), timed_out("timed_out");
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  Kokkos::parallel_for(
      "parity::test::resident_teams",
      Policy(space, int(league), team_size).set_scratch_size(0, Kokkos::PerTeam(scratch)),
      KOKKOS_LAMBDA(Policy::member_type const& team) {
        Kokkos::single(Kokkos::PerTeam(team), [&] {
          Kokkos::atomic_fetch_add(&arrived(), 1);
          long spins = 0;
          while (Kokkos::atomic_load(&arrived()) < team.league_size() && ++spins < 20'000'000) {
          }
          if (spins >= 20'000'000) Kokkos::atomic_fetch_add(&timed_out(), 1);
        });
      });
  int late = 0;
  Kokkos::deep_copy(late, timed_out);
  return late;
}

TEST(ResidentTeams, AllCountedTeamsRunAtOnce) {
  ExecSpace space;
  int const team_size = 256;
  for (std::size_t scratch : {std::size_t(0), std::size_t(20000), std::size_t(36000)}) {
    long const wave = parity::run::resident_teams(space, team_size, scratch);
    if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible) {
      EXPECT_EQ(wave, 0) << "host backends give no figure";
      continue;
    }
    ASSERT_GT(wave, 0);
    EXPECT_EQ(teams_not_met(space, wave, team_size, scratch), 0)
        << wave << " teams with " << scratch << " bytes of scratch were not all resident at once";
  }
}

TEST(ResidentTeams, CapPerMultiprocessor) {
  // A kernel's launch bounds may hold fewer teams per multiprocessor than threads and shared memory
  // allow: the cap gives that many on each multiprocessor.
  ExecSpace space;
  long const free = parity::run::resident_teams(space, 256, 0);
  long const one = parity::run::resident_teams(space, 256, 0, 1), two = parity::run::resident_teams(space, 256, 0, 2);
  if (free == 0) {
    EXPECT_EQ(one, 0) << "host backends give no figure";
    return;
  }
  ASSERT_GT(one, 0);  // one team per multiprocessor
  EXPECT_EQ(two, 2 * one);
  EXPECT_EQ(free % one, 0);
  EXPECT_GE(free, 4 * one) << "256-thread teams without scratch: at least 4 per multiprocessor";
  EXPECT_EQ(parity::run::resident_teams(space, 256, 0, 1000), free) << "a cap above the limit changes nothing";
}

}  // namespace parity_test_resident_teams
