/// \file
/// Training losses. Each returns the mean loss over the entries that are present and writes the
/// gradient of that mean with respect to the prediction into the caller's dpred (resized to the
/// prediction's shape; zero at absent entries; it must not be one of the inputs).
///
/// Missing labels: an entry is present where its mask is nonzero (masks hold 0 and 1). When no entry
/// is present the loss is 0 and dpred is all zeros. Targets are never silently NaN: a NaN target at
/// a present entry throws ArgumentError. Callers with NaN-coded missing labels build the mask with
/// mask_from_nan, which also replaces the NaNs by 0.
///
/// The loss is accumulated and returned in double so that the value a float model reports does not
/// depend on the rounding of a long float sum; dpred is in Scalar.
#pragma once

#include <span>

#include "edgewise/core/tensor.hpp"

namespace edgewise {

/// Targets with missing entries (NaN) split into values and a 0/1 mask, as the losses take them.
template <typename Scalar>
struct MaskedTargets {
  Matrix<Scalar> target;  ///< NaN replaced by 0
  Matrix<Scalar> mask;    ///< 1 where the target was a number, 0 where it was NaN
};

/// target: [N, T] with NaN for missing labels.
template <typename Scalar>
MaskedTargets<Scalar> mask_from_nan(const Matrix<Scalar>& target);

/// Mean squared error, mean over present entries of (pred - target)².
/// dpred, pred, target: [N, T]; mask: [N, T] or null for all present.
template <typename Scalar>
double mse_loss(Matrix<Scalar>& dpred, const Matrix<Scalar>& pred, const Matrix<Scalar>& target,
                const Matrix<Scalar>* mask = nullptr);

/// Gaussian negative log-likelihood of mean-variance outputs: pred is [N, 2T], the means of the T
/// targets, then a raw value v per target whose variance is softplus(v) + 1e-6. Mean over present
/// entries of (log variance + (mean - target)^2 / variance) / 2, the NLL less its constant, each
/// entry weighted by variance^beta, a weight the gradient treats as a constant (beta-NLL, Seitzer et
/// al. 2022): beta 0 is the plain likelihood, whose means learn little where the variance is large;
/// beta 1 moves the means as the squared error does.
/// dpred, pred: [N, 2T]; target, mask: [N, T] (mask null for all present).
template <typename Scalar>
double gaussian_nll_loss(Matrix<Scalar>& dpred, const Matrix<Scalar>& pred, const Matrix<Scalar>& target,
                         const Matrix<Scalar>* mask = nullptr, double beta = 0);

/// log(1 + e^x), computed without overflow: exp is only taken of a non-positive number.
double softplus(double x);

/// The variance a raw mean-variance output stands for (gaussian_nll_loss): softplus(v) + 1e-6.
double variance_of_output(double raw);

/// Deep evidential regression's loss (Amini et al. 2020) on pred [N, 4T]: the means gamma of the T
/// targets, then blocks of raw nu, alpha and beta, the parameters of a Normal-Inverse-Gamma prior
/// on the target's mean and variance (nu and beta = softplus + 1e-6, alpha = 1 + softplus + 1e-6).
/// Mean over present entries of the negative log-likelihood of the target under the prior's
/// Student-t, plus `regularization` |gamma - target| (2 nu + alpha), which takes evidence away where
/// the error is large. dpred, pred: [N, 4T]; target, mask: [N, T] (mask null for all present).
template <typename Scalar>
double evidential_loss(Matrix<Scalar>& dpred, const Matrix<Scalar>& pred, const Matrix<Scalar>& target,
                       const Matrix<Scalar>* mask, double regularization);

/// The total variance of evidential outputs (evidential_loss) from their raw nu, alpha and beta:
/// beta (1 + nu) / (nu (alpha - 1)), the expected variance of the target plus that of its mean.
double evidential_variance(double raw_nu, double raw_alpha, double raw_beta);

/// What a regression network's outputs for one target stand for.
enum class OutputDistribution {
  point,       ///< the prediction alone, trained by mse_loss
  gaussian,    ///< a mean and a raw variance, trained by gaussian_nll_loss
  evidential,  ///< a mean and raw nu, alpha and beta, trained by evidential_loss
};

/// The outputs a network gives each target: 1, 2 or 4.
Index outputs_per_target(OutputDistribution distribution);

/// Softmax cross-entropy of integer classes, mean over present rows of logsumexp(z) - z_target,
/// computed with the row maximum subtracted so large logits stay finite.
/// dpred, logits: [N, C]; targets: [N] in [0, C), or negative to ignore the row; mask: [N] or null.
/// Throws ArgumentError on a target >= C.
template <typename Scalar>
double cross_entropy_loss(Matrix<Scalar>& dpred, const Matrix<Scalar>& logits, std::span<const Index> targets,
                          const Vector<Scalar>* mask = nullptr);

/// Binary cross-entropy on logits for multi-task labels, mean over present entries of
/// max(x, 0) - x y + log(1 + exp(-|x|)), which is finite for any finite x.
/// dpred, logits, target: [N, T] with targets in [0, 1]; mask: [N, T] or null for all present.
template <typename Scalar>
double bce_with_logits_loss(Matrix<Scalar>& dpred, const Matrix<Scalar>& logits, const Matrix<Scalar>& target,
                            const Matrix<Scalar>* mask = nullptr);

}  // namespace edgewise
