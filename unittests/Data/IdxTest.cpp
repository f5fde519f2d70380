//===- IdxTest.cpp - The IDX reader and data sets -------------------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM
// Exceptions. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The files are written byte by byte here (big-endian dimensions spelled
// out), not with writeIdx, so the reader is checked against the format
// itself; writeIdx is then checked against the same bytes.
//
//===----------------------------------------------------------------------===//

#include "lazyc/Data/Idx.h"
#include "lazyc/Data/Dataset.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <unistd.h>

using namespace lazyc;
using namespace lazyc::data;

namespace {

using Bytes = std::vector<uint8_t>;

class IdxTest : public ::testing::Test {
protected:
  void SetUp() override {
    directory =
        std::filesystem::path(::testing::TempDir()) /
        ("lazyc-idx-" + std::to_string(::getpid()) + "-" +
         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(directory);
  }
  void TearDown() override { std::filesystem::remove_all(directory); }

  std::string write(const std::string &name, const Bytes &bytes) {
    std::string path = (directory / name).string();
    std::ofstream file(path, std::ios::binary);
    file.write(reinterpret_cast<const char *>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
    return path;
  }

  /// The message of the lazyc::Error `read` throws ("" if none).
  template <typename Read> static std::string errorOf(Read read) {
    try {
      read();
    } catch (const Error &error) {
      return error.what();
    }
    return "";
  }

  std::filesystem::path directory;
};

// 2 images of 2 rows x 3 columns: magic 0x00000803, then 2, 2, 3.
const Bytes twoImages = {0, 0, 8, 3, 0, 0, 0, 2, 0,   0,   0,  2,  0,  0,
                         0, 3, 0, 1, 2, 3, 4, 5, 255, 128, 64, 32, 16, 8};
const Bytes twoLabels = {0, 0, 8, 1, 0, 0, 0, 2, 7, 3};

TEST_F(IdxTest, ReadsDimensionsAndBytes) {
  IdxArray images = readIdx(write("images", twoImages));
  EXPECT_EQ(images.dims, (std::vector<int64_t>{2, 2, 3}));
  EXPECT_EQ(images.values, (Bytes{0, 1, 2, 3, 4, 5, 255, 128, 64, 32, 16, 8}));
  IdxArray labels = readIdx(write("labels", twoLabels));
  EXPECT_EQ(labels.dims, (std::vector<int64_t>{2}));
  EXPECT_EQ(labels.values, (Bytes{7, 3}));
}

TEST_F(IdxTest, DimensionsAreBigEndian) {
  // 0x00010002 = 65538 labels.
  Bytes bytes = {0, 0, 8, 1, 0x00, 0x01, 0x00, 0x02};
  bytes.resize(8 + 65538, 9);
  IdxArray labels = readIdx(write("labels", bytes));
  EXPECT_EQ(labels.dims, (std::vector<int64_t>{65538}));
  EXPECT_EQ(labels.values.size(), 65538u);
}

TEST_F(IdxTest, WriteIdxWritesTheSameBytes) {
  std::string path = (directory / "written").string();
  writeIdx(path, {{2, 2, 3}, {0, 1, 2, 3, 4, 5, 255, 128, 64, 32, 16, 8}});
  std::ifstream file(path, std::ios::binary);
  Bytes bytes((std::istreambuf_iterator<char>(file)),
              std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes, twoImages);
  EXPECT_NE(errorOf([&] {
              writeIdx(path, {{2, 2}, {1, 2, 3}});
            }).find("the dimensions hold 4 values, but 3 were given"),
            std::string::npos);
}

TEST_F(IdxTest, BadFilesSayWhatIsWrong) {
  struct Case {
    Bytes bytes;
    std::string message;
  };
  std::vector<Case> cases = {
      {{0x1f, 0x8b, 8, 0}, "gzip-compressed; decompress it first"},
      {{0, 0, 8}, "too short for an IDX header (3 bytes)"},
      {{0x50, 0x4b, 3, 4},
       "the magic number must start with two zero "
       "bytes, got 0x50 0x4b"},
      {{0, 0, 0x0D, 1, 0, 0, 0, 1, 0, 0, 0, 0},
       "elements of type float32 (0x0d) are not supported"},
      {{0, 0, 0x42, 1}, "unknown IDX element type 0x42"},
      {{0, 0, 8, 0}, "zero dimensions"},
      {{0, 0, 8, 3, 0, 0, 0, 2, 0, 0},
       "truncated header: 3 dimensions need 16 bytes, the file has 10"},
      {{0, 0, 8, 2, 0, 0, 0, 2, 0, 0, 0, 3, 1, 2, 3},
       "truncated: the dimensions 2 x 3 need 6 data bytes, but 3 follow"},
      {{0, 0, 8, 1, 0, 0, 0, 1, 5, 6},
       "trailing bytes: the dimensions 1 need 1 data bytes, but 2 follow"},
      {{0, 0, 8, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff},
       "truncated: the dimensions 4294967295 x 4294967295 need "
       "18446744065119617025 data bytes"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    std::string path = write("bad" + std::to_string(i), cases[i].bytes);
    std::string message = errorOf([&] { readIdx(path); });
    EXPECT_NE(message.find("[lazyc::readIdx] " + path + ": "),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(cases[i].message), std::string::npos)
        << "case " << i << ": " << message;
  }
  std::string missing = (directory / "missing").string();
  EXPECT_NE(errorOf([&] {
              readIdx(missing);
            }).find(missing + ": cannot open the file"),
            std::string::npos);
}

TEST_F(IdxTest, LoadsMnistPairsAndScalesPixels) {
  write("train-images-idx3-ubyte", twoImages);
  write("train-labels-idx1-ubyte", twoLabels);
  Dataset set = loadMnist(directory.string(), "train");
  EXPECT_EQ(set.count, 2);
  EXPECT_EQ(set.features, 6);
  EXPECT_EQ(set.classes, 10);
  EXPECT_EQ(set.labels, (std::vector<int32_t>{7, 3}));
  ASSERT_EQ(set.inputs.size(), 12u);
  EXPECT_FLOAT_EQ(set.inputs[1], 1.0f / 255.0f);
  EXPECT_FLOAT_EQ(set.inputs[6], 1.0f);
  EXPECT_FLOAT_EQ(set.inputs[7], 128.0f / 255.0f);

  // The dotted spelling of some MNIST copies.
  write("t10k-images.idx3-ubyte", twoImages);
  write("t10k-labels.idx1-ubyte", twoLabels);
  EXPECT_EQ(loadMnist(directory.string(), "t10k").labels,
            (std::vector<int32_t>{7, 3}));
}

TEST_F(IdxTest, MnistMismatchesAreErrors) {
  std::string dir = directory.string();
  EXPECT_NE(errorOf([&] { loadMnist(dir, "train"); }).find("no MNIST images"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              loadMnist(dir, "test");
            }).find("the split must be \"train\" or \"t10k\""),
            std::string::npos);
  write("train-images-idx3-ubyte", twoImages);
  write("train-labels-idx1-ubyte", {0, 0, 8, 1, 0, 0, 0, 3, 1, 2, 3});
  EXPECT_NE(errorOf([&] { loadMnist(dir, "train"); }).find("has 2 images, but"),
            std::string::npos);
  write("train-labels-idx1-ubyte", {0, 0, 8, 1, 0, 0, 0, 2, 1, 10});
  EXPECT_NE(errorOf([&] {
              loadMnist(dir, "train");
            }).find("label 10 at index 1 is not a digit"),
            std::string::npos);
  write("train-labels-idx1-ubyte", twoLabels);
  write("train-images-idx3-ubyte", twoLabels); // rank 1
  EXPECT_NE(errorOf([&] {
              loadMnist(dir, "train");
            }).find("images need 3 dimensions"),
            std::string::npos);
}

TEST_F(IdxTest, BatchesWrapAround) {
  Dataset set;
  set.count = 3;
  set.features = 2;
  set.classes = 3;
  set.inputs = {0, 1, 10, 11, 20, 21};
  set.labels = {0, 1, 2};
  Tensor inputs = set.batchInputs(2, 2);
  EXPECT_EQ(inputs.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(inputs.toVector<float>(), (std::vector<float>{20, 21, 0, 1}));
  Tensor labels = set.batchLabels(2, 2);
  EXPECT_EQ(labels.dtype(), DType::Int32);
  EXPECT_EQ(labels.toVector<int32_t>(), (std::vector<int32_t>{2, 0}));
}

TEST_F(IdxTest, SyntheticDataIsSeededAndSeparable) {
  const int64_t features = 64;
  Dataset a = syntheticClassification(60, features, 3, 7);
  Dataset b = syntheticClassification(60, features, 3, 7);
  Dataset c = syntheticClassification(60, features, 3, 8);
  EXPECT_EQ(a.inputs, b.inputs);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_NE(a.inputs, c.inputs);
  // Every class appears count / classes times, and pixels stay in [0, 1].
  for (int32_t label = 0; label < 3; ++label)
    EXPECT_EQ(std::count(a.labels.begin(), a.labels.end(), label), 20);
  for (float value : a.inputs) {
    EXPECT_GE(value, 0.0f);
    EXPECT_LE(value, 1.0f);
  }
  // Separable (in 64 dimensions): each example is nearer its own class's
  // mean than any other.
  std::vector<double> means(3 * features, 0.0);
  for (int64_t i = 0; i < 60; ++i)
    for (int64_t f = 0; f < features; ++f)
      means[a.labels[i] * features + f] += a.inputs[i * features + f] / 20.0;
  int nearestOwn = 0;
  for (int64_t i = 0; i < 60; ++i) {
    int best = -1;
    double bestDistance = 1e300;
    for (int k = 0; k < 3; ++k) {
      double distance = 0;
      for (int64_t f = 0; f < features; ++f) {
        double d = a.inputs[i * features + f] - means[k * features + f];
        distance += d * d;
      }
      if (distance < bestDistance) {
        bestDistance = distance;
        best = k;
      }
    }
    nearestOwn += best == a.labels[i];
  }
  EXPECT_EQ(nearestOwn, 60);
}

} // namespace
