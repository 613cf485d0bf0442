// A small untrained molecule model file, for tests that need one to load or to damage.
#pragma once

#include <string>

#include "edgewise/tasks/molecule/molecule_model.hpp"

namespace edgewise::testing {

// Writes a one-block, width-8 regression model with one task, "y", to `path`.
inline void save_untrained_molecule_model(const std::string& path) {
  MoleculeModelConfig config;
  config.network.hidden = 8;
  config.network.heads = 2;
  config.network.layers = 1;
  config.network.head_hidden = 4;
  config.tasks = {"y"};
  MoleculeModel model(config);
  model.initialize(1);
  model.save(path);
}

}  // namespace edgewise::testing
