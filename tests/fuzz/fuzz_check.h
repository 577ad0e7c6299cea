// What a fuzz target does when a property fails: print it and abort, so that
// libFuzzer records the input as a crash.
#ifndef TESTS_FUZZ_FUZZ_CHECK_H_
#define TESTS_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>
#include <string>

#define FUZZ_CHECK(condition, message)                                      \
  do {                                                                      \
    if (!(condition)) {                                                     \
      std::fprintf(stderr, "fuzz check failed: %s: %s\n", #condition,       \
                   std::string(message).c_str());                           \
      std::abort();                                                         \
    }                                                                       \
  } while (false)

#endif  // TESTS_FUZZ_FUZZ_CHECK_H_
