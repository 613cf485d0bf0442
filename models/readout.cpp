#include "edgewise/models/readout.hpp"

#include <cmath>
#include <limits>

#include "edgewise/core/error.hpp"

namespace edgewise {

ReadoutKind parse_readout(const std::string& name) { return value_named(kReadoutNames, name, "readout"); }

std::string to_string(ReadoutKind kind) { return name_of(kReadoutNames, kind); }

Index readout_width(ReadoutKind kind, Index dim) { return kind == ReadoutKind::mean_sum ? 2 * dim : dim; }

template <typename Scalar>
Readout<Scalar>::Readout(Parameters<Scalar>& params, const std::string& name, Index dim, ReadoutKind kind)
    : params_(params), dim_(dim), kind_(kind) {
  if (kind_ == ReadoutKind::attention) {
    gate_ = params_.add(name + ".gate", dim, 1);
    gate_bias_ = params_.add(name + ".gate_bias", 1, 1);
  }
}

template <typename Scalar>
void Readout<Scalar>::reset_parameters(SplitMix64& rng) {
  if (kind_ != ReadoutKind::attention) return;
  glorot_uniform(params_.value(gate_), dim_, 1, rng);
  params_.value(gate_bias_).setZero();
}

template <typename Scalar>
const Matrix<Scalar>& Readout<Scalar>::forward(const GraphBatch& batch, const Matrix<Scalar>& h) {
  if (h.rows() != batch.num_nodes() || h.cols() != dim_)
    throw ArgumentError("Readout: node rows do not match the batch");
  batch_ = &batch;
  h_ = &h;
  const auto offsets = batch.node_offsets();
  y_ = Matrix<Scalar>::Zero(batch.num_graphs(), readout_width(kind_, dim_));
  if (kind_ == ReadoutKind::attention) {
    pool_attention();
    return y_;
  }
  if (kind_ == ReadoutKind::max) argmax_.assign(static_cast<std::size_t>(y_.size()), -1);
  for (Index g = 0; g < batch.num_graphs(); ++g) {
    const Index begin = offsets[g], count = offsets[g + 1] - begin;
    if (count == 0) continue;
    const auto rows = h.middleRows(begin, count);
    switch (kind_) {
      case ReadoutKind::sum: add_row_sums(y_.row(g), rows); break;
      case ReadoutKind::mean:
        add_row_sums(y_.row(g), rows);
        y_.row(g) /= static_cast<Scalar>(count);
        break;
      case ReadoutKind::max:
        for (Index c = 0; c < dim_; ++c) {
          Index best = 0;
          y_(g, c) = rows.col(c).maxCoeff(&best);
          argmax_[g * dim_ + c] = begin + best;
        }
        break;
      case ReadoutKind::mean_sum: {
        auto sum = y_.row(g).tail(dim_);
        add_row_sums(sum, rows);
        y_.row(g).head(dim_) = sum / static_cast<Scalar>(count);
        sum /= static_cast<Scalar>(kReadoutSumScale);
        break;
      }
      case ReadoutKind::attention: break;
    }
  }
  return y_;
}

// weights_i = softmax over the graph's nodes of s_i = h_i . gate + bias; y_g = sum_i weights_i h_i.
template <typename Scalar>
void Readout<Scalar>::pool_attention() {
  const auto offsets = batch_->node_offsets();
  const Vector<Scalar> scores = (*h_ * params_.value(gate_)).col(0).array() + params_.value(gate_bias_)(0, 0);
  weights_.resize(h_->rows());
  for (Index g = 0; g < batch_->num_graphs(); ++g) {
    const Index begin = offsets[g], count = offsets[g + 1] - begin;
    if (count == 0) continue;
    const auto s = scores.segment(begin, count);
    weights_.segment(begin, count) = (s.array() - s.maxCoeff()).exp();
    weights_.segment(begin, count) /= weights_.segment(begin, count).sum();
    for (Index i = begin; i < begin + count; ++i) y_.row(g) += weights_(i) * h_->row(i);
  }
}

template <typename Scalar>
const Matrix<Scalar>& Readout<Scalar>::backward(const Matrix<Scalar>& dy) {
  EDGEWISE_CHECK(batch_ != nullptr && dy.rows() == batch_->num_graphs() && dy.cols() == readout_width(kind_, dim_));
  const auto offsets = batch_->node_offsets();
  dh_ = Matrix<Scalar>::Zero(h_->rows(), dim_);
  if (kind_ == ReadoutKind::attention) {
    backward_attention(dy);
    return dh_;
  }
  for (Index g = 0; g < batch_->num_graphs(); ++g) {
    const Index begin = offsets[g], count = offsets[g + 1] - begin;
    if (count == 0) continue;
    switch (kind_) {
      case ReadoutKind::sum: dh_.middleRows(begin, count).rowwise() = dy.row(g); break;
      case ReadoutKind::mean: dh_.middleRows(begin, count).rowwise() = dy.row(g) / static_cast<Scalar>(count); break;
      case ReadoutKind::max:
        for (Index c = 0; c < dim_; ++c) dh_(argmax_[g * dim_ + c], c) = dy(g, c);
        break;
      case ReadoutKind::mean_sum:
        dh_.middleRows(begin, count).rowwise() = dy.row(g).head(dim_) / static_cast<Scalar>(count) +
                                                 dy.row(g).tail(dim_) / static_cast<Scalar>(kReadoutSumScale);
        break;
      case ReadoutKind::attention: break;
    }
  }
  return dh_;
}

// With u_i = dy_g . h_i: dh_i = w_i dy_g + w_i (u_i - sum_k w_k u_k) gate, and the gate gradients
// follow from ds_i = w_i (u_i - sum_k w_k u_k).
template <typename Scalar>
void Readout<Scalar>::backward_attention(const Matrix<Scalar>& dy) {
  const auto offsets = batch_->node_offsets();
  const auto gate = params_.value(gate_);
  auto dgate = params_.grad(gate_);
  Scalar dbias = 0;
  for (Index g = 0; g < batch_->num_graphs(); ++g) {
    const Index begin = offsets[g], count = offsets[g + 1] - begin;
    if (count == 0) continue;
    const Vector<Scalar> u = h_->middleRows(begin, count) * dy.row(g).transpose();
    const Scalar mean_u = weights_.segment(begin, count).dot(u);
    for (Index i = begin; i < begin + count; ++i) {
      const Scalar ds = weights_(i) * (u(i - begin) - mean_u);
      dh_.row(i) = weights_(i) * dy.row(g) + ds * gate.col(0).transpose();
      dgate.col(0) += ds * h_->row(i).transpose();
      dbias += ds;
    }
  }
  params_.grad(gate_bias_)(0, 0) += dbias;
}

template class Readout<float>;
template class Readout<double>;

}  // namespace edgewise
