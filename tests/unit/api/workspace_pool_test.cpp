// WorkspacePool: one workspace per stream, reused and grown; nothing allocated for a stream while
// it is captured into a graph (an allocation would fail the capture), where a workspace the
// stream already has is still leased.
#include <gtest/gtest.h>

#include <thread>

#include "../engine/fake_backend.hpp"
#include "api/workspace_pool.hpp"

namespace gemmtune::api {
namespace {

void* stream(std::uintptr_t id) {
  return reinterpret_cast<void*>(id);
}

TEST(WorkspacePool, OnePerStreamReusedAndGrown) {
  testing::FakeBackend backend;
  WorkspacePool pool(backend, true);
  const void* first = pool.acquire(stream(1), 1000).data();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(pool.acquire(stream(1), 1000).data(), first);
  EXPECT_NE(pool.acquire(stream(2), 1000).data(), first);
  EXPECT_EQ(backend.allocations, 2);
  const auto grown = pool.acquire(stream(1), 3u << 20);
  EXPECT_GE(grown.bytes(), 3u << 20);
  EXPECT_EQ(backend.allocations, 3);
}

TEST(WorkspacePool, NothingAllocatedForAStreamBeingCaptured) {
  testing::FakeBackend backend;
  WorkspacePool pool(backend, true);
  const void* before = pool.acquire(stream(1), 1000).data();
  backend.captured_stream = stream(1);
  // The workspace it has is leased; a larger one, or one for a new captured stream, is not made.
  EXPECT_EQ(pool.acquire(stream(1), 1000).data(), before);
  EXPECT_EQ(pool.acquire(stream(1), 3u << 20).data(), nullptr);
  backend.captured_stream = stream(2);
  EXPECT_EQ(pool.acquire(stream(2), 1000).data(), nullptr);
  EXPECT_EQ(pool.acquire(stream(2), 1000).bytes(), 0u);
  EXPECT_EQ(backend.allocations, 1);
  // Once the capture has ended, the stream gets one.
  backend.captured_stream = nullptr;
  EXPECT_NE(pool.acquire(stream(2), 1000).data(), nullptr);
  EXPECT_EQ(backend.allocations, 2);
}

// One handle for a stream of each thread (cudaStreamPerThread): each thread's calls get a
// workspace of their own, since the two streams' work runs in no order; a thread's later calls
// reuse its own.
TEST(WorkspacePool, APerThreadStreamHandleGetsOnePerThread) {
  testing::FakeBackend backend;
  backend.per_thread_stream = stream(2);
  WorkspacePool pool(backend, true);
  const void* here = pool.acquire(stream(2), 1000).data();
  const void* there = nullptr;
  const void* there_again = nullptr;
  std::thread([&] {
    there = pool.acquire(stream(2), 1000).data();
    there_again = pool.acquire(stream(2), 1000).data();
  }).join();
  ASSERT_NE(here, nullptr);
  EXPECT_NE(there, here);
  EXPECT_EQ(there_again, there);
  EXPECT_EQ(pool.acquire(stream(2), 1000).data(), here);
  // Another handle is one stream for every thread.
  const void* shared = pool.acquire(stream(3), 1000).data();
  const void* shared_there = nullptr;
  std::thread([&] { shared_there = pool.acquire(stream(3), 1000).data(); }).join();
  EXPECT_EQ(shared_there, shared);
}

}  // namespace
}  // namespace gemmtune::api
