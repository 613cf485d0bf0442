// A run of two processes in which process 1 never joins process 0's sum, as a stopped or stuck
// process would not: process 0 must give up after EDGEWISE_MPI_TIMEOUT seconds, print why and end
// both. tests/distributed/test_processes.cpp starts it under mpirun.
#include <chrono>
#include <cstdint>
#include <iostream>
#include <thread>

#include "edgewise/core/error.hpp"
#include "edgewise/distributed/processes.hpp"

int main(int argc, char** argv) {
  edgewise::distributed::start(argc, argv);
  if (edgewise::distributed::rank() == 1) {
    std::this_thread::sleep_for(std::chrono::minutes(2));
  } else {
    try {
      edgewise::distributed::sum(std::uint64_t{1});
    } catch (const edgewise::Error& e) {
      std::cerr << "process 0: " << e.what() << '\n';
      edgewise::distributed::abort_all(3);
    }
  }
  edgewise::distributed::finish();
  return 0;
}
