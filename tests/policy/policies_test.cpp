// Every policy on tiny explicit workloads, with the times worked out by hand from the contract.
// linear_steps(): prefill(L) = L ms, decode(r, c) = r + c ms, so a step of r rows costs r + mean(c_i).
#include <gtest/gtest.h>

#include <vector>

#include "sim_test_support.h"

namespace kvlab::sim {
namespace {

using testing::expect_times;
using testing::linear_steps;
using testing::serve;

// Two requests at 0 (one with a one-token answer), one at 5 listed last, and two tied at 20 that arrive
// after the server has run dry. Queue order: 0, 1, 4, 2, 3.
const std::vector<policy::Request> kMixed = {
    {0, 3, 2},   // 0
    {0, 2, 1},   // 1: n = 1
    {20, 1, 3},  // 2
    {20, 2, 2},  // 3: tied with 2, stays after it
    {5, 1, 1},   // 4: listed last, queued third
};

// Three requests at 0 with the longest first: under B = 2 the third must wait for a slot.
const std::vector<policy::Request> kThirdWaits = {{0, 1, 3}, {0, 1, 2}, {0, 1, 2}};

// Three requests at 0, the first with a one-token answer: under B = 8 all fit at once.
const std::vector<policy::Request> kOneTokenFirst = {{0, 1, 1}, {0, 2, 3}, {0, 1, 2}};

TEST(SerialNoCache, EveryTokenIsAFullForward) {
  auto served = serve(linear_steps(), kMixed, "serial-nocache");
  const auto& r = served.requests;
  expect_times(r[0], 3, 7, 0);    // prefill(3) = 3; token 2: prefill(4) = 4 -> 7
  expect_times(r[1], 9, 9, 0);    // prefill(2) = 2 -> 9
  expect_times(r[4], 10, 10, 0);  // arrived at 5: prefill(1) = 1 -> 10
  expect_times(r[2], 21, 26, 0);  // idle until 20; prefill(1) -> 21, prefill(2) -> 23, prefill(3) -> 26
  expect_times(r[3], 28, 31, 0);  // prefill(2) -> 28, prefill(3) -> 31
  EXPECT_EQ(served.steps_run, 2 + 1 + 1 + 3 + 2);  // one forward per token
  EXPECT_DOUBLE_EQ(r[2].prefill_start_ms, 20);
}

TEST(SerialCache, PrefillThenOneRowDecodeSteps) {
  auto served = serve(linear_steps(), kMixed, "serial-cache");
  const auto& r = served.requests;
  expect_times(r[0], 3, 8, 0);    // prefill(3) -> 3; decode(1, 4) = 5 -> 8
  expect_times(r[1], 10, 10, 0);  // prefill(2) -> 10
  expect_times(r[4], 11, 11, 0);  // prefill(1) -> 11
  expect_times(r[2], 21, 28, 0);  // idle to 20; prefill(1) -> 21; decode(1, 2) = 3 -> 24; decode(1, 3) = 4 -> 28
  expect_times(r[3], 30, 34, 0);  // prefill(2) -> 30; decode(1, 3) = 4 -> 34
  EXPECT_EQ(served.steps_run, 9);
}

TEST(StaticBatching, BatchesOfArrivedRequestsWithPadding) {
  auto served = serve(linear_steps(), kMixed, "static:2");
  const auto& r = served.requests;
  // Batch [0, 1] at t = 0 (request 4 has not arrived): prefills 3 -> 3 and 2 -> 5; one decode step over
  // both rows, request 1 (done) as padding: contexts 3 + 1, 2 + 1: (decode(2, 4) + decode(2, 3)) / 2 = 5.5.
  expect_times(r[0], 3, 10.5, 0);
  expect_times(r[1], 5, 5, 1);
  // Batch [4] at 10.5, smaller than B: prefill(1) -> 11.5, no decode step.
  expect_times(r[4], 11.5, 11.5, 0);
  // Idle to 20. Batch [2, 3]: prefills 1 -> 21, 2 -> 23. Step 1: contexts 2, 3: (4 + 5) / 2 = 4.5 -> 27.5
  // (request 3 done). Step 2: contexts 3, 4 (request 3 padding at p + k): (5 + 6) / 2 = 5.5 -> 33.
  expect_times(r[2], 21, 33, 0);
  expect_times(r[3], 23, 27.5, 1);
  EXPECT_EQ(served.steps_run, 3 + 1 + 4);
}

TEST(StaticBatching, NextBatchWaitsForTheLastStep) {
  // The third request waits for the whole first batch, padding included.
  auto served = serve(linear_steps(), kThirdWaits, "static:2");
  const auto& r = served.requests;
  // Prefills 1 -> 1, 1 -> 2. Step 1: contexts 2, 2: 2 + 2 = 4 -> 6 (request 1 done).
  // Step 2: contexts 3, 3: 5 -> 11 (request 0 done).
  expect_times(r[0], 1, 11, 0);
  expect_times(r[1], 2, 6, 1);
  // Batch [2] at 11: prefill -> 12; decode(1, 2) = 3 -> 15.
  expect_times(r[2], 12, 15, 0);
}

TEST(StaticBatching, BatchSizeLargerThanTheWorkload) {
  auto served = serve(linear_steps(), kOneTokenFirst, "static:8");
  const auto& r = served.requests;
  // One batch of 3: prefills 1 -> 1, 2 -> 3, 1 -> 4. Step 1: contexts 2, 3, 2: 3 + 7/3 = 16/3 -> 28/3
  // (request 2 done). Step 2: contexts 3, 4, 3: 3 + 10/3 = 19/3 -> 47/3 (request 1 done).
  expect_times(r[0], 1, 1, 0);
  expect_times(r[1], 3, 47.0 / 3, 1);
  expect_times(r[2], 4, 28.0 / 3, 2);
  EXPECT_EQ(served.steps_run, 5);
}

TEST(ContinuousBatching, AdmitsIntoFreedSlotsAndIdlesUntilArrivals) {
  auto served = serve(linear_steps(), kMixed, "continuous:2");
  const auto& r = served.requests;
  // t = 0: admit 0 (slot 0): prefill 3 -> 3. Admit 1 (slot 1): prefill 2 -> 5, n = 1 so done, slot 1 free.
  // Request 4 arrived at 5 <= 5: admit (slot 1): prefill 1 -> 6, done. Request 2 (20) not yet arrived.
  // Decode request 0 alone: decode(1, 4) = 5 -> 11.
  expect_times(r[0], 3, 11, 0);
  expect_times(r[1], 5, 5, 1);
  expect_times(r[4], 6, 6, 1);
  // Nothing active, nothing arrived: jump to 20. Admit 2 (slot 0): prefill 1 -> 21; admit 3 (slot 1):
  // prefill 2 -> 23. Step over both: contexts 2, 3: 2 + 2.5 = 4.5 -> 27.5 (request 3 done).
  // Step over request 2 alone: decode(1, 3) = 4 -> 31.5.
  expect_times(r[2], 21, 31.5, 0);
  expect_times(r[3], 23, 27.5, 1);
  EXPECT_EQ(served.steps_run, 5 + 3);
}

TEST(ContinuousBatching, WaitingRequestTakesTheFirstFreedSlot) {
  auto served = serve(linear_steps(), kThirdWaits, "continuous:2");
  const auto& r = served.requests;
  // Admit 0 and 1: prefills -> 1, 2. Slots full. Step: contexts 2, 2: 4 -> 6 (request 1 done, slot 1 free).
  // Admit 2 (slot 1): prefill -> 7. Step: contexts 3 (request 0), 2 (request 2): 2 + 2.5 = 4.5 -> 11.5,
  // both done.
  expect_times(r[0], 1, 11.5, 0);
  expect_times(r[1], 2, 6, 1);
  expect_times(r[2], 7, 11.5, 1);
}

TEST(ContinuousBatching, OneTokenAnswersFreeTheirSlotAtOnce) {
  auto served = serve(linear_steps(), kOneTokenFirst, "continuous:8");
  const auto& r = served.requests;
  // Admit 0 (slot 0): prefill 1 -> 1, done, slot 0 free again. Admit 1 (slot 0): prefill 2 -> 3.
  // Admit 2 (slot 1): prefill 1 -> 4. Step: contexts 3, 2: 2 + 2.5 = 4.5 -> 8.5 (request 2 done).
  // Step: request 1 alone at context 4: decode(1, 4) = 5 -> 13.5.
  expect_times(r[0], 1, 1, 0);
  expect_times(r[1], 3, 13.5, 0);
  expect_times(r[2], 4, 8.5, 1);
  EXPECT_EQ(served.steps_run, 5);
}

}  // namespace
}  // namespace kvlab::sim
