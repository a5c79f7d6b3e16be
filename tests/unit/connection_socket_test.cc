// WaitAwakeForNextRequest: the server's short poll for a connection's next request (serve/connection_socket.h).
#include "serve/connection_socket.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <thread>

namespace onyx::serve {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::microseconds;
using std::chrono::milliseconds;

// A connected pair of stream sockets, closed at the end of the test.
struct SocketPair {
  std::array<int, 2> fd{-1, -1};
  SocketPair() { EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fd.data()), 0); }
  ~SocketPair() {
    for (int f : fd)
      if (f >= 0) close(f);
  }
  void CloseWriter() {
    close(fd[1]);
    fd[1] = -1;
  }
};

TEST(WaitAwakeForNextRequest, GivesUpAfterTheSpinWhenNothingArrives) {
  SocketPair s;
  const auto start = Clock::now();
  EXPECT_FALSE(WaitAwakeForNextRequest(s.fd[0], milliseconds(3), [] { return true; }));
  const auto waited = Clock::now() - start;
  EXPECT_GE(waited, milliseconds(3));
  EXPECT_LT(waited, milliseconds(1000));
}

TEST(WaitAwakeForNextRequest, SeesBytesWithoutReadingThem) {
  SocketPair s;
  ASSERT_EQ(write(s.fd[1], "GET", 3), 3);
  EXPECT_TRUE(WaitAwakeForNextRequest(s.fd[0], milliseconds(1000), [] { return true; }));
  char buffer[4] = {};
  ASSERT_EQ(read(s.fd[0], buffer, 3), 3);  // still there for httplib to read
  EXPECT_STREQ(buffer, "GET");
}

TEST(WaitAwakeForNextRequest, WakesWhenBytesArriveDuringTheSpin) {
  SocketPair s;
  std::thread writer([&] {
    std::this_thread::sleep_for(milliseconds(5));
    EXPECT_EQ(write(s.fd[1], "P", 1), 1);
  });
  const auto start = Clock::now();
  EXPECT_TRUE(WaitAwakeForNextRequest(s.fd[0], milliseconds(5000), [] { return true; }));
  EXPECT_LT(Clock::now() - start, milliseconds(4000));
  writer.join();
}

TEST(WaitAwakeForNextRequest, ReportsAClosedPeerAtOnce) {
  SocketPair s;
  s.CloseWriter();
  const auto start = Clock::now();
  EXPECT_TRUE(WaitAwakeForNextRequest(s.fd[0], milliseconds(5000), [] { return true; }));
  EXPECT_LT(Clock::now() - start, milliseconds(4000));
}

TEST(WaitAwakeForNextRequest, StopsWhenOtherWorkNeedsTheCpu) {
  SocketPair s;
  std::atomic<int> polls{0};
  const auto start = Clock::now();
  EXPECT_FALSE(WaitAwakeForNextRequest(s.fd[0], milliseconds(5000), [&] { return ++polls < 3; }));
  EXPECT_EQ(polls.load(), 3);
  EXPECT_LT(Clock::now() - start, milliseconds(4000));
}

TEST(WaitAwakeForNextRequest, AnInvalidSocketEndsTheWait) {
  EXPECT_TRUE(WaitAwakeForNextRequest(-1, milliseconds(5000), [] { return true; }));
}

}  // namespace
}  // namespace onyx::serve
