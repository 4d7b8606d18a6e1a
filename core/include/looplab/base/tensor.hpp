// looplab/base/tensor.hpp — 2-D float tensors, the only data type the op kernels see.
//
// Every tensor is a row-major matrix of float32 (a scalar is 1x1, a bias row is 1xm). Kernels
// work on raw float pointers and view them through Eigen maps, so the same kernel serves
// eager execution (a fresh buffer per op) and compiled programs (pointers into one arena).
//
//   Tensor x({1000, 1});                 // zero-filled
//   auto m = x.matrix();                 // Eigen::Map<RowMatrix>
//   m.array() += 1.0f;
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <string>
#include <vector>

namespace looplab {

struct Shape {
  int rows = 0;
  int cols = 0;
  std::size_t size() const {
    return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  }
  bool operator==(const Shape& o) const { return rows == o.rows && cols == o.cols; }
  bool operator!=(const Shape& o) const { return !(*this == o); }
  std::string str() const;  // "[rows x cols]"
};

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<RowMatrix>;
using ConstMatrixMap = Eigen::Map<const RowMatrix>;

inline MatrixMap as_matrix(float* p, Shape s) { return MatrixMap(p, s.rows, s.cols); }
inline ConstMatrixMap as_matrix(const float* p, Shape s) {
  return ConstMatrixMap(p, s.rows, s.cols);
}

// An owning tensor: a shape and a contiguous float buffer.
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(Shape shape, float fill = 0.0f) : shape_(shape), data_(shape.size(), fill) {}
  Tensor(Shape shape, std::vector<float> values);

  const Shape& shape() const { return shape_; }
  std::size_t size() const { return data_.size(); }
  float* data() { return data_.data(); }
  const float* data() const { return data_.data(); }
  float& operator[](std::size_t i) { return data_[i]; }
  float operator[](std::size_t i) const { return data_[i]; }
  MatrixMap matrix() { return as_matrix(data(), shape_); }
  ConstMatrixMap matrix() const { return as_matrix(data(), shape_); }

 private:
  Shape shape_;
  std::vector<float> data_;
};

}  // namespace looplab
