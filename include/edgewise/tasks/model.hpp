/// \file
/// Loading a model file without knowing which task wrote it, as the model of its task: a
/// MoleculeModel, a NodeModel or a LinkModel, held in one AnyModel. The one part of the task layer
/// that knows every task, so a program of one task need not link the others' libraries.
///
/// What every task offers (save, describe, the training summary) is Model's, through as_model; what
/// each does with its own kind of data (molecules, or the nodes of a graph) is reached by visiting,
/// which names every task, so a new task fails to compile wherever it is not handled:
///
///   const AnyModel model = load_any_model("model.ew");
///   std::cout << as_model(model).describe().title;
///   std::visit(Overloaded{[](const MoleculeModel& molecules) { ... },
///                         [](const NodeModel& nodes) { ... },
///                         [](const LinkModel& links) { ... }}, model);
#pragma once

#include <string>
#include <variant>

#include "edgewise/tasks/common/model.hpp"
#include "edgewise/tasks/link/link_model.hpp"
#include "edgewise/tasks/molecule/molecule_model.hpp"
#include "edgewise/tasks/node/node_model.hpp"

namespace edgewise {

/// A trained model of any task, as its own class.
using AnyModel = std::variant<MoleculeModel, NodeModel, LinkModel>;

/// One callable made of several lambdas, one per alternative of a variant, for std::visit.
template <typename... Lambdas>
struct Overloaded : Lambdas... {
  using Lambdas::operator()...;
};
/// Deduces the lambdas' types (C++20 deduces them from the aggregate itself; clang before 17 needs the
/// guide spelled out).
template <typename... Lambdas>
Overloaded(Lambdas...) -> Overloaded<Lambdas...>;

/// Loads the model file at `path` as the model of its task, learnt from its configuration's kind.
/// Throws ModelFormatError naming the file when it is not a valid model file or its kind is
/// unknown, and what the model's load throws.
AnyModel load_any_model(const std::string& path);

/// The loaded model as a Model: save, describe, training summary.
const Model& as_model(const AnyModel& model);

}  // namespace edgewise
