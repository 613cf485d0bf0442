#include "edgewise/models/losses.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <string>
#include <utility>

#include <boost/math/special_functions/digamma.hpp>

#include "edgewise/core/error.hpp"

namespace edgewise {
namespace {

std::string shape_of(Index rows, Index cols) { return "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]"; }

template <typename Scalar>
void require_shape(const std::string& what, const Matrix<Scalar>& m, Index rows, Index cols) {
  if (m.rows() != rows || m.cols() != cols)
    throw ArgumentError(what + " is " + shape_of(m.rows(), m.cols()) + ", expected " + shape_of(rows, cols));
}

// Number of present entries; throws on a NaN target among them.
template <typename Scalar>
Index count_present(const std::string& loss, const Matrix<Scalar>& target, const Matrix<Scalar>* mask) {
  Index count = 0;
  for (Index r = 0; r < target.rows(); ++r)
    for (Index c = 0; c < target.cols(); ++c) {
      if (mask != nullptr && (*mask)(r, c) == Scalar(0)) continue;
      if (std::isnan(target(r, c)))
        throw ArgumentError(loss + ": target (" + std::to_string(r) + ", " + std::to_string(c) +
                            ") is NaN but not masked out; build the mask with mask_from_nan");
      ++count;
    }
  return count;
}

// Mean over present entries of term(pred, target).first; dpred = term(pred, target).second / count
// at present entries, 0 elsewhere. term works in double and returns {loss, dloss/dpred}.
template <typename Scalar, typename Term>
double masked_mean(const std::string& loss, Matrix<Scalar>& dpred, const Matrix<Scalar>& pred,
                   const Matrix<Scalar>& target, const Matrix<Scalar>* mask, Term term) {
  require_shape(loss + ": target", target, pred.rows(), pred.cols());
  if (mask != nullptr) require_shape(loss + ": mask", *mask, pred.rows(), pred.cols());
  const Index count = count_present(loss, target, mask);
  dpred.setZero(pred.rows(), pred.cols());
  if (count == 0) return 0.0;

  const double inverse_count = 1.0 / static_cast<double>(count);
  double sum = 0.0;
  for (Index r = 0; r < pred.rows(); ++r)
    for (Index c = 0; c < pred.cols(); ++c) {
      if (mask != nullptr && (*mask)(r, c) == Scalar(0)) continue;
      const auto [value, derivative] = term(static_cast<double>(pred(r, c)), static_cast<double>(target(r, c)));
      sum += value;
      dpred(r, c) = static_cast<Scalar>(derivative * inverse_count);
    }
  return sum * inverse_count;
}

// The logistic function without overflow: exp is only taken of a non-positive number.
double sigmoid(double x) {
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1.0 + e);
}

// The mean over present entries of a loss on Blocks outputs a target: pred [N, Blocks T] holds one
// block of T outputs after another, target and mask are [N, T]. term(outputs, target, gradient) is
// given a present target's Blocks outputs (one from each block) and returns its loss, writing the
// loss's derivatives by those outputs into gradient.
template <std::size_t Blocks, typename Scalar, typename Term>
double per_target_mean(const std::string& loss, Matrix<Scalar>& dpred, const Matrix<Scalar>& pred,
                       const Matrix<Scalar>& target, const Matrix<Scalar>* mask, Term term) {
  const Index tasks = target.cols();
  require_shape(loss + ": prediction", pred, target.rows(), static_cast<Index>(Blocks) * tasks);
  if (mask != nullptr) require_shape(loss + ": mask", *mask, target.rows(), tasks);
  const Index count = count_present(loss, target, mask);
  dpred.setZero(pred.rows(), pred.cols());
  if (count == 0) return 0.0;
  const double inverse_count = 1.0 / static_cast<double>(count);
  double sum = 0.0;
  std::array<double, Blocks> outputs, gradient;
  for (Index r = 0; r < target.rows(); ++r)
    for (Index t = 0; t < tasks; ++t) {
      if (mask != nullptr && (*mask)(r, t) == Scalar(0)) continue;
      for (std::size_t b = 0; b < Blocks; ++b) outputs[b] = pred(r, static_cast<Index>(b) * tasks + t);
      sum += term(outputs, static_cast<double>(target(r, t)), gradient);
      for (std::size_t b = 0; b < Blocks; ++b)
        dpred(r, static_cast<Index>(b) * tasks + t) = static_cast<Scalar>(gradient[b] * inverse_count);
    }
  return sum * inverse_count;
}

}  // namespace

template <typename Scalar>
MaskedTargets<Scalar> mask_from_nan(const Matrix<Scalar>& target) {
  MaskedTargets<Scalar> out{target, Matrix<Scalar>(target.rows(), target.cols())};
  for (Index k = 0; k < target.size(); ++k) {
    const bool missing = std::isnan(target.data()[k]);
    out.mask.data()[k] = missing ? Scalar(0) : Scalar(1);
    if (missing) out.target.data()[k] = Scalar(0);
  }
  return out;
}

template <typename Scalar>
double mse_loss(Matrix<Scalar>& dpred, const Matrix<Scalar>& pred, const Matrix<Scalar>& target,
                const Matrix<Scalar>* mask) {
  return masked_mean("mse_loss", dpred, pred, target, mask, [](double p, double t) {
    const double diff = p - t;
    return std::pair{diff * diff, 2.0 * diff};
  });
}

Index outputs_per_target(OutputDistribution distribution) {
  switch (distribution) {
    case OutputDistribution::point: return 1;
    case OutputDistribution::gaussian: return 2;
    case OutputDistribution::evidential: return 4;
  }
  throw ArgumentError("outputs_per_target: unknown output distribution");
}

double softplus(double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }

double variance_of_output(double raw) { return softplus(raw) + 1e-6; }

double evidential_variance(double raw_nu, double raw_alpha, double raw_beta) {
  const double nu = variance_of_output(raw_nu), alpha = 1 + variance_of_output(raw_alpha);
  return variance_of_output(raw_beta) * (1 + nu) / (nu * (alpha - 1));
}

template <typename Scalar>
double gaussian_nll_loss(Matrix<Scalar>& dpred, const Matrix<Scalar>& pred, const Matrix<Scalar>& target,
                         const Matrix<Scalar>* mask, double beta) {
  return per_target_mean<2>("gaussian_nll_loss", dpred, pred, target, mask, [&](const auto& out, double y, auto& grad) {
    const double variance = variance_of_output(out[1]), error = out[0] - y;
    const double weight = beta == 0 ? 1.0 : std::pow(variance, beta);
    grad[0] = weight * error / variance;
    // d variance / d raw is the logistic function of raw.
    grad[1] = weight * 0.5 * (1.0 / variance - error * error / (variance * variance)) * sigmoid(out[1]);
    return weight * 0.5 * (std::log(variance) + error * error / variance);
  });
}

template <typename Scalar>
double evidential_loss(Matrix<Scalar>& dpred, const Matrix<Scalar>& pred, const Matrix<Scalar>& target,
                       const Matrix<Scalar>* mask, double regularization) {
  return per_target_mean<4>("evidential_loss", dpred, pred, target, mask, [&](const auto& out, double y, auto& grad) {
    const double nu = variance_of_output(out[1]), alpha = 1 + variance_of_output(out[2]);
    const double beta = variance_of_output(out[3]), error = out[0] - y;
    const double omega = 2 * beta * (1 + nu), spread = nu * error * error + omega;
    const double evidence = 2 * nu + alpha, distance = std::abs(error);
    // The derivatives by gamma, nu, alpha and beta, the last three times d softplus / d raw.
    grad[0] = (alpha + 0.5) * 2 * nu * error / spread + regularization * evidence * (error > 0 ? 1 : error < 0 ? -1 : 0);
    grad[1] = (-0.5 / nu - alpha * 2 * beta / omega + (alpha + 0.5) * (error * error + 2 * beta) / spread +
               regularization * 2 * distance) * sigmoid(out[1]);
    grad[2] = (std::log(spread / omega) + boost::math::digamma(alpha) - boost::math::digamma(alpha + 0.5) +
               regularization * distance) * sigmoid(out[2]);
    grad[3] = (-alpha / beta + (alpha + 0.5) * 2 * (1 + nu) / spread) * sigmoid(out[3]);
    return 0.5 * std::log(std::numbers::pi / nu) - alpha * std::log(omega) + (alpha + 0.5) * std::log(spread) +
           std::lgamma(alpha) - std::lgamma(alpha + 0.5) + regularization * distance * evidence;
  });
}

template <typename Scalar>
double bce_with_logits_loss(Matrix<Scalar>& dpred, const Matrix<Scalar>& logits, const Matrix<Scalar>& target,
                            const Matrix<Scalar>* mask) {
  return masked_mean("bce_with_logits_loss", dpred, logits, target, mask, [](double x, double y) {
    const double value = std::max(x, 0.0) - x * y + std::log1p(std::exp(-std::abs(x)));
    return std::pair{value, sigmoid(x) - y};
  });
}

template <typename Scalar>
double cross_entropy_loss(Matrix<Scalar>& dpred, const Matrix<Scalar>& logits, std::span<const Index> targets,
                          const Vector<Scalar>* mask) {
  const Index n = logits.rows(), classes = logits.cols();
  if (static_cast<Index>(targets.size()) != n)
    throw ArgumentError("cross_entropy_loss: " + std::to_string(targets.size()) + " targets for " + std::to_string(n) +
                        " rows");
  if (mask != nullptr && mask->size() != n)
    throw ArgumentError("cross_entropy_loss: mask has " + std::to_string(mask->size()) + " entries for " +
                        std::to_string(n) + " rows");
  const auto present = [&](Index r) { return targets[r] >= 0 && (mask == nullptr || (*mask)(r) != Scalar(0)); };
  Index count = 0;
  for (Index r = 0; r < n; ++r) {
    if (targets[r] >= classes)
      throw ArgumentError("cross_entropy_loss: target of row " + std::to_string(r) + " is " +
                          std::to_string(targets[r]) + ", expected < " + std::to_string(classes));
    if (present(r)) ++count;
  }
  dpred.setZero(n, classes);
  if (count == 0) return 0.0;

  const double inverse_count = 1.0 / static_cast<double>(count);
  double sum = 0.0;
  for (Index r = 0; r < n; ++r) {
    if (!present(r)) continue;
    const Vector<double> z = logits.row(r).transpose().template cast<double>();
    const double max = z.maxCoeff();
    const double log_sum_exp = max + std::log((z.array() - max).exp().sum());
    sum += log_sum_exp - z(targets[r]);
    for (Index c = 0; c < classes; ++c) dpred(r, c) = static_cast<Scalar>(std::exp(z(c) - log_sum_exp) * inverse_count);
    dpred(r, targets[r]) -= static_cast<Scalar>(inverse_count);
  }
  return sum * inverse_count;
}

template MaskedTargets<float> mask_from_nan(const Matrix<float>&);
template MaskedTargets<double> mask_from_nan(const Matrix<double>&);
template double mse_loss(Matrix<float>&, const Matrix<float>&, const Matrix<float>&, const Matrix<float>*);
template double mse_loss(Matrix<double>&, const Matrix<double>&, const Matrix<double>&, const Matrix<double>*);
template double gaussian_nll_loss(Matrix<float>&, const Matrix<float>&, const Matrix<float>&, const Matrix<float>*,
                                  double);
template double gaussian_nll_loss(Matrix<double>&, const Matrix<double>&, const Matrix<double>&,
                                  const Matrix<double>*, double);
template double evidential_loss(Matrix<float>&, const Matrix<float>&, const Matrix<float>&, const Matrix<float>*,
                                double);
template double evidential_loss(Matrix<double>&, const Matrix<double>&, const Matrix<double>&, const Matrix<double>*,
                                double);
template double bce_with_logits_loss(Matrix<float>&, const Matrix<float>&, const Matrix<float>&, const Matrix<float>*);
template double bce_with_logits_loss(Matrix<double>&, const Matrix<double>&, const Matrix<double>&,
                                     const Matrix<double>*);
template double cross_entropy_loss(Matrix<float>&, const Matrix<float>&, std::span<const Index>, const Vector<float>*);
template double cross_entropy_loss(Matrix<double>&, const Matrix<double>&, std::span<const Index>,
                                   const Vector<double>*);

}  // namespace edgewise
