// kvlab: measure why an AI server needs a KV cache and continuous batching.
#include <iostream>
#include <new>
#include <vector>

#include "cli/commands.h"
#include "cli/output.h"
#include "common/input_error.h"

namespace {

int run(int argc, char** argv) {
  CLI::App app{
      "kvlab: time a tiny transformer with and without a KV cache, and replay a request queue under serving policies"};
  app.require_subcommand(1);
  std::vector<kvlab::cli::Action> actions = {
      kvlab::cli::add_measure_command(app),  kvlab::cli::add_simulate_command(app), kvlab::cli::add_lab_command(app),
      kvlab::cli::add_info_command(app),     kvlab::cli::add_bench_command(app),    kvlab::cli::add_replay_command(app),
      kvlab::cli::add_roofline_command(app), kvlab::cli::add_generate_command(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int status = app.exit(e);
    return status == 0 ? 0 : 2;
  }
  try {
    for (const auto& action : actions) {
      int status = action();
      if (status >= 0) return status;
    }
  } catch (const kvlab::InputError& e) {  // one thrown before a command knew its sources
    std::cerr << "kvlab: " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "kvlab: out of memory: try a smaller model, grid or workload\n";
    return 1;
  } catch (const std::exception& e) {  // a bug or an I/O failure: said in one line, never an abort
    std::cerr << "kvlab: internal error: " << kvlab::bounded_text(e.what(), kvlab::kMaxProblemChars) << "\n";
    return 1;
  } catch (...) {
    std::cerr << "kvlab: internal error: an exception of unknown type\n";
    return 1;
  }
  return 2;
}

}  // namespace

int main(int argc, char** argv) { return kvlab::cli::with_output_checked(run(argc, argv)); }
