#include "cli/app.hpp"

int main(int argc, char** argv) { return gemmtune::cli::run(argc, argv); }
