// The whole public API of edgewise in one include, for programs that embed the library:
//
//   #include <edgewise/edgewise.hpp>
//
// and link edgewise::edgewise (CMake) or `pkg-config --libs edgewise`. Each header can also be
// included on its own; see examples/ for three small programs built against an installed edgewise.
#pragma once

#include "edgewise/version.hpp"

#include "edgewise/attention/graph_attention.hpp"
#include "edgewise/attention/kernels.hpp"
#include "edgewise/core/checksum.hpp"
#include "edgewise/core/error.hpp"
#include "edgewise/core/files.hpp"
#include "edgewise/core/memory.hpp"
#include "edgewise/core/parallel.hpp"
#include "edgewise/core/parameters.hpp"
#include "edgewise/core/random.hpp"
#include "edgewise/core/tensor.hpp"
#include "edgewise/datasets/checksum.hpp"
#include "edgewise/datasets/sbm.hpp"
#include "edgewise/datasets/uniform.hpp"
#include "edgewise/graph/batch.hpp"
#include "edgewise/graph/boost_interop.hpp"
#include "edgewise/graph/featured_graph.hpp"
#include "edgewise/graph/generators.hpp"
#include "edgewise/graph/graph.hpp"
#include "edgewise/graph/positional.hpp"
#include "edgewise/io/csv.hpp"
#include "edgewise/io/explain.hpp"
#include "edgewise/io/graph_files.hpp"
#include "edgewise/io/molecule.hpp"
#include "edgewise/io/molecule_dataset.hpp"
#include "edgewise/io/molecule_model.hpp"
#include "edgewise/io/node_model.hpp"
#include "edgewise/io/splits.hpp"
#include "edgewise/models/graph_predictor.hpp"
#include "edgewise/models/graph_training.hpp"
#include "edgewise/models/layers.hpp"
#include "edgewise/models/losses.hpp"
#include "edgewise/models/metrics.hpp"
#include "edgewise/models/model_file.hpp"
#include "edgewise/models/node_classifier.hpp"
#include "edgewise/models/node_splits.hpp"
#include "edgewise/models/node_training.hpp"
#include "edgewise/models/optimizers.hpp"
#include "edgewise/models/readout.hpp"
