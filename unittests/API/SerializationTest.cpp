//===- SerializationTest.cpp - .npy files and checkpoints -----------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// saveNpy/loadNpy against the bytes the .npy specification prescribes and
// against numpy itself (/usr/bin/python3), every malformed file as a
// lazyc::Error, checkpoints against a hand-built file, every truncation and
// flipped byte of a checkpoint as an error, and training that stops, saves,
// loads into a new model and optimizer, and goes on bitwise like a run that
// never stopped.
//
//===----------------------------------------------------------------------===//

#include "ExpectError.h"
#include "TestDirectory.h"

#include "lazyc/nn.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <tuple>

using namespace lazyc;
using lazyc::test::expectError;
using lazyc::test::readBytes;
using lazyc::test::writeBytes;

namespace {

template <typename T> std::string rawBytes(const std::vector<T> &values) {
  return std::string(reinterpret_cast<const char *>(values.data()),
                     values.size() * sizeof(T));
}

template <typename T> void putLittleEndian(std::string &out, T value) {
  for (size_t i = 0; i < sizeof(T); ++i)
    out += static_cast<char>(static_cast<uint64_t>(value) >> (8 * i) & 0xff);
}

/// A .npy file of format `major`.0 with `header` (padded as numpy pads it)
/// and `data`.
std::string npyFile(std::string header, const std::string &data,
                    int major = 1) {
  size_t prefix = major == 1 ? 10 : 12;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  if (major == 1)
    putLittleEndian<uint16_t>(out, header.size());
  else
    putLittleEndian<uint32_t>(out, header.size());
  return out + header + data;
}

using SerializationTest = lazyc::test::TestDirectory;

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

/// The file saveNpy writes is, byte for byte, the one the .npy spec (and
/// numpy.save) gives: magic, version 1.0, header length, the dict padded
/// with spaces to a 64-byte boundary and ended by '\n', then the elements.
TEST_F(SerializationTest, SaveNpyWritesTheSpecifiedBytes) {
  struct Case {
    Tensor tensor;
    std::string header;
    std::string data;
  };
  uint16_t halves[] = {0x3e00, 0xc000, 0x3400}; // 1.5, -2, 0.25
  std::vector<Case> cases = {
      {Tensor::fromVector<float>({1, -2.5f, 3, 4, 5, 6e-8f}, {2, 3}),
       "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
       rawBytes<float>({1, -2.5f, 3, 4, 5, 6e-8f})},
      {Tensor::fromVector<double>({0.1, -1e300}, {2}),
       "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
       rawBytes<double>({0.1, -1e300})},
      {Tensor::fromVector<int32_t>({7, -8, 2147483647}, {3, 1}),
       "{'descr': '<i4', 'fortran_order': False, 'shape': (3, 1), }",
       rawBytes<int32_t>({7, -8, 2147483647})},
      {Tensor::fromVector<int64_t>({int64_t(1) << 40}, {}),
       "{'descr': '<i8', 'fortran_order': False, 'shape': (), }",
       rawBytes<int64_t>({int64_t(1) << 40})},
      {Tensor::fromBools({true, false, true}, {3}),
       "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
       std::string("\1\0\1", 3)},
      {cast(Tensor::fromVector<float>({1.5f, -2, 0.25f}, {3}), DType::Float16),
       "{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }",
       std::string(reinterpret_cast<const char *>(halves), 6)},
      // numpy has no bfloat16: written as float32, exactly.
      {cast(Tensor::fromVector<float>({1.5f, -2, 0.15625f}, {3}),
            DType::BFloat16),
       "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
       rawBytes<float>({1.5f, -2, 0.15625f})},
      {zeros({0, 3}),
       "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", ""},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    std::string path = file("case" + std::to_string(i) + ".npy");
    saveNpy(cases[i].tensor, path);
    std::string bytes = readBytes(path);
    EXPECT_EQ(bytes, npyFile(cases[i].header, cases[i].data)) << path;
    EXPECT_EQ(bytes.size() % 64, cases[i].data.size() % 64) << path;
  }
}

TEST_F(SerializationTest, NpyRoundTripsEveryDType) {
  std::string path = file("t.npy");
  saveNpy(Tensor::fromVector<float>({1.25f, -3, 1e-30f, 65504}, {2, 2}), path);
  Tensor f32 = loadNpy(path);
  EXPECT_EQ(f32.dtype(), DType::Float32);
  EXPECT_EQ(f32.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(f32.toVector<float>(),
            (std::vector<float>{1.25f, -3, 1e-30f, 65504}));

  saveNpy(Tensor::fromVector<double>({1.0 / 3, -0.0, 1e-310}, {3}), path);
  Tensor f64 = loadNpy(path);
  EXPECT_EQ(f64.dtype(), DType::Float64);
  std::vector<double> doubles = f64.toVector<double>();
  EXPECT_EQ(rawBytes(doubles), rawBytes<double>({1.0 / 3, -0.0, 1e-310}));

  saveNpy(Tensor::fromVector<int32_t>({-2147483647 - 1, 0, 5}, {1, 3}), path);
  Tensor i32 = loadNpy(path);
  EXPECT_EQ(i32.dtype(), DType::Int32);
  EXPECT_EQ(i32.shape(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(i32.toVector<int32_t>(),
            (std::vector<int32_t>{-2147483647 - 1, 0, 5}));

  saveNpy(Tensor::fromVector<int64_t>({-(int64_t(1) << 62), 9}, {2}), path);
  Tensor i64 = loadNpy(path);
  EXPECT_EQ(i64.dtype(), DType::Int64);
  EXPECT_EQ(i64.toVector<int64_t>(),
            (std::vector<int64_t>{-(int64_t(1) << 62), 9}));

  saveNpy(Tensor::fromBools({false, true, true, false}, {2, 2}), path);
  Tensor b1 = loadNpy(path);
  EXPECT_EQ(b1.dtype(), DType::Bool);
  EXPECT_EQ(b1.toVector<bool>(), (std::vector<bool>{false, true, true, false}));

  // 1.5, -2 and 2^-24 (the smallest subnormal) are exact halves.
  saveNpy(cast(Tensor::fromVector<float>({1.5f, -2, 0x1p-24f}, {3}),
               DType::Float16),
          path);
  Tensor f16 = loadNpy(path);
  EXPECT_EQ(f16.dtype(), DType::Float16);
  EXPECT_EQ(f16.toVector<float>(), (std::vector<float>{1.5f, -2, 0x1p-24f}));

  saveNpy(
      cast(Tensor::fromVector<float>({-0.15625f, 256}, {2}), DType::BFloat16),
      path);
  Tensor bf16 = loadNpy(path);
  EXPECT_EQ(bf16.dtype(), DType::Float32); // as documented
  EXPECT_EQ(bf16.toVector<float>(), (std::vector<float>{-0.15625f, 256}));

  saveNpy(full({}, 2.5f), path);
  Tensor scalar = loadNpy(path);
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.item<float>(), 2.5f);
}

/// A lazy tensor is computed by saveNpy; the result is what the ops give.
TEST_F(SerializationTest, SaveNpyMaterializesPendingWork) {
  Tensor x = arange(0, 4) * 2.0f + 1.0f; // recorded only
  saveNpy(x, file("x.npy"));
  EXPECT_EQ(loadNpy(file("x.npy")).toVector<float>(),
            (std::vector<float>{1, 3, 5, 7}));
  EagerScope eager;
  saveNpy(x * 0.5f, file("y.npy"));
  EXPECT_EQ(loadNpy(file("y.npy")).toVector<float>(),
            (std::vector<float>{0.5f, 1.5f, 2.5f, 3.5f}));
}

TEST_F(SerializationTest, LoadNpyReadsVersionsTwoAndThree) {
  std::string header =
      "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }";
  for (int major : {2, 3}) {
    writeBytes(file("v.npy"),
               npyFile(header, rawBytes<int32_t>({4, -5}), major));
    EXPECT_EQ(loadNpy(file("v.npy")).toVector<int32_t>(),
              (std::vector<int32_t>{4, -5}));
  }
  // Keys in another order, double quotes, Python 2's long suffix.
  writeBytes(file("w.npy"),
             npyFile("{\"shape\": (1L, 2L), \"fortran_order\": False, "
                     "\"descr\": \"<i4\"}",
                     rawBytes<int32_t>({1, 2})));
  Tensor w = loadNpy(file("w.npy"));
  EXPECT_EQ(w.shape(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(w.toVector<int32_t>(), (std::vector<int32_t>{1, 2}));
}

TEST_F(SerializationTest, BadNpyFilesAreErrorsNamingTheFileAndTheProblem) {
  std::string good = "{'descr': '<f4', 'fortran_order': False, 'shape': "
                     "(2, 2), }";
  std::string data = rawBytes<float>({1, 2, 3, 4});
  std::string valid = npyFile(good, data);
  auto expectLoadError = [&](const std::string &name, const std::string &bytes,
                             const std::string &mentions) {
    SCOPED_TRACE(name);
    std::string path = file(name);
    writeBytes(path, bytes);
    expectError(
        [&](unsigned &line) {
          line = __LINE__ + 1;
          loadNpy(path);
        },
        "loadNpy", mentions);
    expectError(
        [&](unsigned &line) {
          line = __LINE__ + 1;
          loadNpy(path);
        },
        "loadNpy", path);
  };
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        loadNpy(file("missing.npy"));
      },
      "loadNpy", "missing.npy' cannot be opened: No such file");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        loadNpy(dir);
      },
      "loadNpy", "' cannot be read: it is a directory");
  expectLoadError("empty.npy", "", "is not a .npy file");
  expectLoadError("magic.npy", "GIF89a" + valid.substr(6),
                  "is not a .npy file");
  expectLoadError("version.npy", valid.substr(0, 6) + "\x04" + valid.substr(7),
                  "has .npy format version 4.0 (1.0, 2.0 and 3.0 are "
                  "supported)");
  expectLoadError("short.npy", valid.substr(0, 9),
                  "is truncated inside its header length");
  expectLoadError("header.npy", valid.substr(0, 40),
                  "is truncated: its header needs 118 bytes, the file has 30");
  expectLoadError("data.npy", valid.substr(0, valid.size() - 1),
                  "is truncated: it holds 15 data bytes, but its shape [2, 2] "
                  "of '<f4' needs 16");
  expectLoadError("long.npy", valid + "x",
                  "is corrupted: it holds 17 data bytes");
  expectLoadError(
      "fortran.npy",
      npyFile("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
              data),
      "is in Fortran order (fortran_order: True); only C order is supported");
  expectLoadError(
      "complex.npy",
      npyFile("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }",
              data),
      "has the unsupported dtype '<c8' (supported: '<f4', '<f8', '<f2', "
      "'<i4', '<i8', '|b1', '|i1', '|u1', '<i2', '<u2', '<u4', '<u8')");
  expectLoadError(
      "bigendian.npy",
      npyFile("{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }",
              data),
      "holds big-endian data ('>f4'); only little-endian is supported");
  expectLoadError("overflow.npy",
                  npyFile("{'descr': '<f4', 'fortran_order': False, "
                          "'shape': (1099511627776, 1099511627776), }",
                          data),
                  "has a shape [1099511627776, 1099511627776] whose size "
                  "overflows 64 bits");
  expectLoadError("huge.npy",
                  npyFile("{'descr': '<f8', 'fortran_order': False, "
                          "'shape': (1000000000000,), }",
                          data),
                  "holds 16 data bytes, but its shape [1000000000000] of "
                  "'<f8' needs 8000000000000");
  expectLoadError("bigdim.npy",
                  npyFile("{'descr': '<f4', 'fortran_order': False, "
                          "'shape': (99999999999999999999,), }",
                          data),
                  "has a 'shape' that is not a tuple of non-negative integers");
  expectLoadError("negative.npy",
                  npyFile("{'descr': '<f4', 'fortran_order': False, "
                          "'shape': (-1, 4), }",
                          data),
                  "has a 'shape' that is not a tuple of non-negative integers");
  expectLoadError("noshape.npy",
                  npyFile("{'descr': '<f4', 'fortran_order': False, }", data),
                  "has a malformed header: it has no 'shape'");
  expectLoadError("structured.npy",
                  npyFile("{'descr': [('a', '<f4')], 'fortran_order': False, "
                          "'shape': (4,), }",
                          data),
                  "structured dtypes are not supported");
  expectLoadError("extra.npy",
                  npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': "
                          "(4,), 'x': 1}",
                          data),
                  "has an unexpected key 'x'");
  expectLoadError(
      "twice.npy",
      npyFile("{'descr': '<f4', 'descr': '<f4', 'shape': (4,)}", data),
      "has the key 'descr' twice");
  expectLoadError("garbage.npy", npyFile("not a dict", data),
                  "has a malformed header: it does not start with '{'");
}

TEST_F(SerializationTest, SaveNpyErrors) {
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        saveNpy(Tensor(), file("x.npy"));
      },
      "saveNpy", "the tensor to write to '" + file("x.npy") + "' is empty");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        saveNpy(ones({2}), file("no/such/dir/x.npy"));
      },
      "saveNpy", "x.npy' cannot be written: cannot create");
}

/// numpy reads what saveNpy writes, and loadNpy reads what numpy writes.
TEST_F(SerializationTest, NumpyInterop) {
  saveNpy(Tensor::fromVector<float>({0.5f, -1, 2, 3.25f, 4, 5}, {2, 3}),
          file("l_f4.npy"));
  saveNpy(Tensor::fromVector<int64_t>({-3, int64_t(1) << 50}, {2, 1}),
          file("l_i8.npy"));
  saveNpy(Tensor::fromBools({true, false}, {2}), file("l_b1.npy"));
  saveNpy(cast(Tensor::fromVector<float>({0.25f, -8}, {2}), DType::Float16),
          file("l_f2.npy"));
  saveNpy(cast(Tensor::fromVector<float>({0.25f, -8}, {2}), DType::BFloat16),
          file("l_bf16.npy"));
  saveNpy(full({}, 6.5, DType::Float64), file("l_f8.npy"));
  runNumpy(R"(import sys, numpy as np
from numpy.lib import format
d = sys.argv[1]
def check(name, expected):
    a = np.load(d + '/' + name)
    assert a.dtype == expected.dtype, (name, a.dtype, expected.dtype)
    assert a.shape == expected.shape, (name, a.shape, expected.shape)
    assert np.array_equal(a, expected), (name, a, expected)
check('l_f4.npy', np.array([[0.5, -1, 2], [3.25, 4, 5]], np.float32))
check('l_i8.npy', np.array([[-3], [2**50]], np.int64))
check('l_b1.npy', np.array([True, False]))
check('l_f2.npy', np.array([0.25, -8], np.float16))
check('l_bf16.npy', np.array([0.25, -8], np.float32))
check('l_f8.npy', np.float64(6.5).reshape(()))
np.save(d + '/n_f4.npy', (np.arange(6, dtype=np.float32) / 4).reshape(2, 3))
np.save(d + '/n_f8.npy', np.array([1 / 3, -1e300]))
np.save(d + '/n_i4.npy', np.array([[1, -2], [3, 2**31 - 1]], np.int32))
np.save(d + '/n_i8.npy', np.array(-2**40, np.int64))
np.save(d + '/n_b1.npy', np.array([[True], [False], [True]]))
np.save(d + '/n_f2.npy', np.array([1.5, -0.125, 65504], np.float16))
np.save(d + '/n_empty.npy', np.zeros((0, 3), np.float32))
with open(d + '/n_v2.npy', 'wb') as f:
    format.write_array(f, np.arange(5, dtype=np.int32), version=(2, 0))
# Every non-contiguous case numpy can write in Fortran order.
np.save(d + '/n_fortran.npy', np.asfortranarray(np.ones((2, 3), np.float32)))
np.save(d + '/n_big.npy', np.ones(3, '>f4'))
np.save(d + '/n_c8.npy', np.ones(3, np.complex64))
)");
  // (A failed script means numpy rejected a file saveNpy wrote.)

  Tensor f4 = loadNpy(file("n_f4.npy"));
  EXPECT_EQ(f4.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(f4.toVector<float>(),
            (std::vector<float>{0, 0.25f, 0.5f, 0.75f, 1, 1.25f}));
  std::vector<double> f8 = loadNpy(file("n_f8.npy")).toVector<double>();
  EXPECT_EQ(rawBytes(f8), rawBytes<double>({1.0 / 3, -1e300}));
  Tensor i4 = loadNpy(file("n_i4.npy"));
  EXPECT_EQ(i4.dtype(), DType::Int32);
  EXPECT_EQ(i4.toVector<int32_t>(),
            (std::vector<int32_t>{1, -2, 3, 2147483647}));
  Tensor i8 = loadNpy(file("n_i8.npy"));
  EXPECT_EQ(i8.rank(), 0);
  EXPECT_EQ(i8.item<int64_t>(), -(int64_t(1) << 40));
  Tensor b1 = loadNpy(file("n_b1.npy"));
  EXPECT_EQ(b1.shape(), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(b1.toVector<bool>(), (std::vector<bool>{true, false, true}));
  Tensor f2 = loadNpy(file("n_f2.npy"));
  EXPECT_EQ(f2.dtype(), DType::Float16);
  EXPECT_EQ(f2.toVector<float>(), (std::vector<float>{1.5f, -0.125f, 65504}));
  Tensor empty = loadNpy(file("n_empty.npy"));
  EXPECT_EQ(empty.shape(), (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(empty.toVector<float>().empty());
  EXPECT_EQ(loadNpy(file("n_v2.npy")).toVector<int32_t>(),
            (std::vector<int32_t>{0, 1, 2, 3, 4}));
  for (const auto &[name, mentions] : std::map<std::string, std::string>{
           {"n_fortran.npy", "Fortran order"},
           {"n_big.npy", "big-endian data ('>f4')"},
           {"n_c8.npy", "unsupported dtype '<c8'"}}) {
    std::string path = file(name);
    expectError(
        [&](unsigned &line) {
          line = __LINE__ + 1;
          loadNpy(path);
        },
        "loadNpy", mentions);
  }
}

//===----------------------------------------------------------------------===//
// Checkpoints
//===----------------------------------------------------------------------===//

uint64_t fnv1a(const std::string &bytes) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : bytes)
    hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

void putString(std::string &out, const std::string &text) {
  putLittleEndian<uint32_t>(out, text.size());
  out += text;
}

/// The file of docs/API.md's layout, built here by hand.
TEST_F(SerializationTest, CheckpointLayoutIsTheDocumentedOne) {
  Variable w(Tensor::fromVector<float>({1.5f, -2}, {2, 1}), "w");
  Variable n(Tensor::fromVector<int64_t>({7}, {}), "n");
  saveVariables(file("c.ckpt"), {&w, &n});

  std::string expected = "LAZYCKPT";
  putLittleEndian<uint32_t>(expected, 1);
  putString(expected, "0.1.0");
  putLittleEndian<uint64_t>(expected, 2);
  putLittleEndian<uint64_t>(expected, fnv1a(expected));
  std::string entry;
  putString(entry, "w");
  putString(entry, "Float32");
  putLittleEndian<uint32_t>(entry, 2);
  putLittleEndian<int64_t>(entry, 2);
  putLittleEndian<int64_t>(entry, 1);
  putLittleEndian<uint64_t>(entry, 8);
  entry += rawBytes<float>({1.5f, -2});
  putLittleEndian<uint64_t>(entry, fnv1a(entry));
  expected += entry;
  entry.clear();
  putString(entry, "n");
  putString(entry, "Int64");
  putLittleEndian<uint32_t>(entry, 0);
  putLittleEndian<uint64_t>(entry, 8);
  entry += rawBytes<int64_t>({7});
  putLittleEndian<uint64_t>(entry, fnv1a(entry));
  expected += entry + "LAZYCEND";
  EXPECT_EQ(readBytes(file("c.ckpt")), expected);
}

/// One variable of every dtype, odd shapes included, saved and loaded into
/// new variables that started at other values.
TEST_F(SerializationTest, CheckpointRoundTripsEveryDType) {
  std::vector<Variable> saved;
  saved.emplace_back(Tensor::fromVector<float>({1, -2, 3.5f, 1e-40f}, {2, 2}),
                     "f32");
  saved.emplace_back(Tensor::fromVector<double>({1.0 / 3, -1e308}, {2}), "f64");
  saved.emplace_back(
      cast(Tensor::fromVector<float>({1.5f, -0.5f}, {2}), DType::Float16),
      "f16");
  saved.emplace_back(
      cast(Tensor::fromVector<float>({3, -0.15625f}, {1, 2}), DType::BFloat16),
      "bf16");
  saved.emplace_back(Tensor::fromVector<int32_t>({-5, 6, 7}, {3}), "i32");
  saved.emplace_back(Tensor::fromVector<int64_t>({int64_t(1) << 60}, {}),
                     "i64");
  saved.emplace_back(Tensor::fromBools({true, false, true}, {3, 1}), "b1");
  saved.emplace_back(zeros({0, 4}), "empty");
  saved.emplace_back(Tensor::fromVector<float>({42}, {}), ""); // no name
  std::vector<const Variable *> list;
  for (const Variable &variable : saved)
    list.push_back(&variable);
  saveVariables(file("all.ckpt"), list);

  std::vector<CheckpointEntry> entries = checkpointEntries(file("all.ckpt"));
  ASSERT_EQ(entries.size(), saved.size());
  for (size_t i = 0; i < saved.size(); ++i) {
    EXPECT_EQ(entries[i].name, saved[i].name());
    EXPECT_EQ(entries[i].dtype, saved[i].dtype());
    EXPECT_EQ(entries[i].shape, saved[i].shape());
  }

  std::vector<Variable> loaded;
  for (const Variable &variable : saved)
    loaded.emplace_back(ones(variable.shape(), variable.dtype()),
                        variable.name());
  std::vector<Variable *> targets;
  for (Variable &variable : loaded)
    targets.push_back(&variable);
  loadVariables(file("all.ckpt"), targets);
  auto values = [](const Variable &v) {
    return cast(v.read(), DType::Float64).toVector<double>();
  };
  for (size_t i = 0; i < saved.size(); ++i) {
    EXPECT_EQ(loaded[i].dtype(), saved[i].dtype());
    EXPECT_EQ(rawBytes(values(loaded[i])), rawBytes(values(saved[i])))
        << saved[i].name();
  }
  EXPECT_EQ(loaded[1].read().toVector<double>()[0], 1.0 / 3);
  EXPECT_EQ(loaded[3].read().toVector<float>(),
            (std::vector<float>{3, -0.15625f}));
  EXPECT_EQ(loaded[5].read().item<int64_t>(), int64_t(1) << 60);
  EXPECT_EQ(loaded[6].read().toVector<bool>(),
            (std::vector<bool>{true, false, true}));
}

TEST_F(SerializationTest, CheckpointsInLazyAndEagerMode) {
  Variable w(Tensor::fromVector<float>({1, 2}, {2}), "w");
  w.assign(w.read() * 3.0f); // pending: the checkpoint holds 3, 6
  saveVariables(file("w.ckpt"), {&w});
  Variable fresh(zeros({2}), "w");
  loadVariables(file("w.ckpt"), {&fresh});
  fresh.assignAdd(ones({2})); // program order: after the load
  EXPECT_EQ(fresh.read().toVector<float>(), (std::vector<float>{4, 7}));
  {
    EagerScope eager;
    Variable other(zeros({2}), "w");
    loadVariables(file("w.ckpt"), {&other});
    EXPECT_TRUE(other.read().isMaterialized());
    EXPECT_EQ(other.read().toVector<float>(), (std::vector<float>{3, 6}));
    other.assign(other.read() - 1.0f);
    saveVariables(file("e.ckpt"), {&other});
  }
  loadVariables(file("e.ckpt"), {&fresh});
  EXPECT_EQ(fresh.read().toVector<float>(), (std::vector<float>{2, 5}));
}

/// Keys instead of names: a subset loads alone (a model out of a model and
/// optimizer checkpoint), and a missing key is an error.
TEST_F(SerializationTest, CheckpointsByName) {
  Variable a(full({2}, 1.0f), "a"), b(full({3}, 2.0f), "b");
  saveVariables(file("m.ckpt"), std::map<std::string, const Variable *>{
                                    {"model.a", &a}, {"opt.b", &b}});
  Variable x(zeros({2}), "x");
  loadVariables(file("m.ckpt"),
                std::map<std::string, Variable *>{{"model.a", &x}});
  EXPECT_EQ(x.read().toVector<float>(), (std::vector<float>{1, 1}));
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        loadVariables(file("m.ckpt"),
                      std::map<std::string, Variable *>{{"model.c", &x}});
      },
      "loadVariables", "has no entry named 'model.c'");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        loadVariables(file("m.ckpt"),
                      std::map<std::string, Variable *>{{"opt.b", &x}});
      },
      "loadVariables",
      "holds Float32 [3] for 'opt.b', but the variable for 'opt.b' is "
      "Float32 [2]");
}

class CheckpointErrorTest : public SerializationTest {
protected:
  void SetUp() override {
    SerializationTest::SetUp();
    path = file("model.ckpt");
    saveVariables(path, {&weight, &bias});
    bytes = readBytes(path);
  }

  /// Expects loading `path` into weight and bias to fail, mentioning
  /// `mentions`, and to leave both untouched.
  void expectLoadError(const std::string &mentions,
                       std::vector<Variable *> targets = {}) {
    if (targets.empty())
      targets = {&target, &bias};
    expectError(
        [&](unsigned &line) {
          line = __LINE__ + 1;
          loadVariables(path, targets);
        },
        "loadVariables", mentions);
    EXPECT_EQ(target.read().toVector<float>(),
              (std::vector<float>{0, 0, 0, 0, 0, 0}));
  }

  Variable weight{Tensor::fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}),
                  "layer.weight"};
  Variable bias{Tensor::fromVector<float>({-1, -2, -3}, {3}), "layer.bias"};
  Variable target{zeros({2, 3}), "layer.weight"};
  std::string path, bytes;
};

TEST_F(CheckpointErrorTest, TruncatedCorruptedAndForeignFiles) {
  writeBytes(path, bytes.substr(0, bytes.size() - 10));
  expectLoadError("is truncated: it ends inside entry 2 of 2 ('layer.bias')");
  writeBytes(path, bytes.substr(0, bytes.size() - 8));
  expectLoadError("is truncated: it ends inside the end marker (after 2 "
                  "entries)");
  writeBytes(path, bytes.substr(0, 20));
  expectLoadError("is truncated: it ends inside the header");
  writeBytes(path, bytes + "x");
  expectLoadError("is corrupted: 1 unexpected bytes follow the end marker");

  std::string corrupted = bytes;
  size_t data = corrupted.find(rawBytes<float>({1, 2, 3, 4, 5, 6}));
  ASSERT_NE(data, std::string::npos);
  corrupted[data + 5] ^= 0x10; // one bit of the element 2
  writeBytes(path, corrupted);
  expectLoadError("is corrupted: the checksum of entry 1 of 2 "
                  "('layer.weight') does not match");

  std::string foreign = bytes;
  foreign[8] = 2; // the format version, little endian
  writeBytes(path, foreign);
  expectLoadError("was written in checkpoint format version 2 (by lazyc "
                  "0.1.0), but this lazyc (0.1.0) reads format version 1");

  writeBytes(path, "hello, world");
  expectLoadError("is not a lazyc checkpoint (it does not start with "
                  "\"LAZYCKPT\")");
  saveNpy(ones({2}), path);
  expectLoadError("is a numpy .npy file, not a lazyc checkpoint");
  std::filesystem::remove(path);
  expectLoadError("cannot be opened: No such file or directory");
}

TEST_F(CheckpointErrorTest, VariablesThatDoNotMatch) {
  Variable transposed(zeros({3, 2}), "layer.weight");
  expectLoadError("holds Float32 [2, 3] for 'layer.weight', but variable 1 "
                  "('layer.weight') is Float32 [3, 2]",
                  {&transposed, &bias});
  Variable wide(zeros({2, 3}, DType::Float64), "layer.weight");
  expectLoadError("holds Float32 [2, 3] for 'layer.weight', but variable 1 "
                  "('layer.weight') is Float64 [2, 3]",
                  {&wide, &bias});
  Variable renamed(zeros({2, 3}), "other");
  expectLoadError("holds 'layer.weight' at position 1, but the variable "
                  "there is 'other'",
                  {&renamed, &bias});
  expectLoadError("holds 2 variables, but 1 were given to load", {&target});
  // The second variable does not match, so the first is not assigned
  // either (expectLoadError checks it still holds zeros).
  Variable shortBias(zeros({4}), "layer.bias");
  expectLoadError("holds Float32 [3] for 'layer.bias', but variable 2 "
                  "('layer.bias') is Float32 [4]",
                  {&target, &shortBias});
  Variable empty;
  expectLoadError("cannot be loaded into variable 2: it is empty",
                  {&target, &empty});
  expectLoadError("cannot be loaded into variable 2: it is a null pointer",
                  {&target, nullptr});

  loadVariables(path, {&target, &bias});
  EXPECT_EQ(target.read().toVector<float>(),
            (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

/// No prefix of a checkpoint and no single flipped byte loads: each is a
/// lazyc::Error naming the file (never a crash, a huge allocation or a
/// silently wrong value).
TEST_F(CheckpointErrorTest, EveryTruncationAndEveryFlippedByteIsAnError) {
  auto expectRejected = [&](const std::string &content,
                            const std::string &what) {
    writeBytes(path, content);
    try {
      loadVariables(path, {&target, &bias});
      ADD_FAILURE() << "loaded " << what;
    } catch (const Error &error) {
      EXPECT_EQ(error.op(), "loadVariables") << what;
      EXPECT_NE(std::string(error.what()).find(path), std::string::npos)
          << what << ": " << error.what();
    }
  };
  for (size_t size = 0; size < bytes.size(); ++size)
    expectRejected(bytes.substr(0, size),
                   "the first " + std::to_string(size) + " bytes");
  for (size_t at = 0; at < bytes.size(); ++at)
    for (unsigned char flip : {0x01, 0x80}) {
      std::string corrupted = bytes;
      corrupted[at] = static_cast<char>(corrupted[at] ^ flip);
      expectRejected(corrupted, "byte " + std::to_string(at) + " ^ " +
                                    std::to_string(flip));
    }
  EXPECT_EQ(target.read().toVector<float>(),
            (std::vector<float>{0, 0, 0, 0, 0, 0}));
}

TEST_F(SerializationTest, SaveVariablesErrorsAndAtomicWrites) {
  Variable w(ones({2}), "w"), empty;
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        saveVariables(file("x.ckpt"), {&w, nullptr});
      },
      "saveVariables", "variable 2 ('') is a null pointer");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        saveVariables(file("x.ckpt"), {&w, &empty});
      },
      "saveVariables", "variable 2 ('') is empty");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        saveVariables(file("no/such/dir/x.ckpt"), {&w});
      },
      "saveVariables", "x.ckpt' cannot be written: cannot create");
  EXPECT_FALSE(std::filesystem::exists(file("x.ckpt")));

  // Overwriting replaces the file whole and leaves no temporary behind.
  saveVariables(file("x.ckpt"), {&w});
  w.assign(full({2}, 5.0f));
  saveVariables(file("x.ckpt"), {&w});
  std::vector<std::string> names;
  for (const auto &entry : std::filesystem::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"x.ckpt"}));
  Variable back(zeros({2}), "w");
  loadVariables(file("x.ckpt"), {&back});
  EXPECT_EQ(back.read().toVector<float>(), (std::vector<float>{5, 5}));
}

//===----------------------------------------------------------------------===//
// Resuming training
//===----------------------------------------------------------------------===//

/// A small classification problem: batch `step`'s inputs and labels, the
/// same in every run.
std::pair<Tensor, Tensor> batch(int step) {
  Tensor inputs = randomUniform({16, 6}, -1, 1, /*seed=*/1000 + step);
  std::vector<int32_t> labels(16);
  for (int i = 0; i < 16; ++i)
    labels[i] = (i * 7 + step) % 4;
  return {inputs, Tensor::fromVector<int32_t>(labels, {16})};
}

enum class OptimizerKind { SgdMomentum, Adam };

/// A model and its optimizer, built from `seed`.
struct Trainer {
  Trainer(OptimizerKind kind, int64_t seed) : model({6, 12, 12, 4}, seed) {
    if (kind == OptimizerKind::Adam) {
      optim::Adam::Options options;
      options.learningRate = 0.01;
      options.weightDecay = 1e-3;
      optimizer = std::make_unique<optim::Adam>(model.parameters(), options);
    } else {
      optim::SGD::Options options;
      options.learningRate = 0.1;
      options.momentum = 0.9;
      optimizer = std::make_unique<optim::SGD>(model.parameters(), options);
    }
  }

  /// The parameters, then the optimizer's state: what a checkpoint holds.
  std::vector<Variable *> state() {
    std::vector<Variable *> all = model.parameters();
    for (Variable *variable : optimizer->stateVariables())
      all.push_back(variable);
    return all;
  }

  /// Runs steps [from, to) and returns their losses.
  std::vector<float> train(int from, int to) {
    std::vector<float> losses;
    for (int step = from; step < to; ++step) {
      auto [inputs, labels] = batch(step);
      Tensor loss;
      {
        GradientTape tape;
        loss = nn::crossEntropy(model(inputs), labels);
        optimizer->step(tape.gradient(loss, nn::refs(model.parameters())));
      }
      lazyc::sync();
      losses.push_back(loss.item<float>());
    }
    return losses;
  }

  /// Every value of the state, as bytes (exact: Float32 widens to
  /// Float64 without rounding).
  std::vector<std::string> values() {
    std::vector<std::string> out;
    for (Variable *variable : state())
      out.push_back(rawBytes(variable->read().toVector<double>()));
    return out;
  }

  nn::Mlp model;
  std::unique_ptr<optim::Optimizer> optimizer;
};

class ResumeTest : public SerializationTest,
                   public ::testing::WithParamInterface<
                       std::tuple<OptimizerKind, bool /*eager*/>> {};

/// Training for 3 steps, saving, loading into a new model and optimizer
/// (initialized differently) and training 4 more gives, bit for bit, the
/// losses and the state of 7 steps without a stop.
TEST_P(ResumeTest, ResumedTrainingIsBitwiseIdentical) {
  auto [kind, eager] = GetParam();
  std::optional<EagerScope> eagerScope;
  if (eager)
    eagerScope.emplace();
  const int stop = 3, total = 7;

  Trainer straight(kind, /*seed=*/5);
  std::vector<float> straightLosses = straight.train(0, total);

  std::vector<float> resumedLosses;
  {
    Trainer first(kind, /*seed=*/5);
    resumedLosses = first.train(0, stop);
    saveVariables(file("run.ckpt"), first.state());
  }
  Trainer second(kind, /*seed=*/99);
  ASSERT_NE(second.values(), straight.values()); // the load must matter
  loadVariables(file("run.ckpt"), second.state());
  std::vector<float> rest = second.train(stop, total);
  resumedLosses.insert(resumedLosses.end(), rest.begin(), rest.end());

  EXPECT_EQ(rawBytes(resumedLosses), rawBytes(straightLosses));
  EXPECT_EQ(second.values(), straight.values());
  // Training moved: the losses are not all one value.
  EXPECT_NE(straightLosses.front(), straightLosses.back());
  // The optimizer's state is part of the checkpoint: without it, the
  // resumed run would differ.
  if (kind == OptimizerKind::Adam) {
    EXPECT_EQ(static_cast<optim::Adam &>(*second.optimizer)
                  .stepCount()
                  .item<double>(),
              total);
  }
}

TEST_P(ResumeTest, ResumingWithoutOptimizerStateDiffers) {
  auto [kind, eager] = GetParam();
  std::optional<EagerScope> eagerScope;
  if (eager)
    eagerScope.emplace();
  Trainer straight(kind, /*seed=*/5);
  std::vector<float> straightLosses = straight.train(0, 5);
  Trainer first(kind, /*seed=*/5);
  first.train(0, 3);
  saveVariables(file("params.ckpt"), first.model.parameters());
  Trainer second(kind, /*seed=*/99);
  loadVariables(file("params.ckpt"), second.model.parameters());
  std::vector<float> rest = second.train(3, 5);
  // Same parameters at step 3, so the same loss there; fresh momenta then
  // make the update, and the next loss, differ.
  EXPECT_EQ(rest[0], straightLosses[3]);
  EXPECT_NE(rest[1], straightLosses[4]);
}

INSTANTIATE_TEST_SUITE_P(
    Optimizers, ResumeTest,
    ::testing::Combine(::testing::Values(OptimizerKind::SgdMomentum,
                                         OptimizerKind::Adam),
                       ::testing::Bool()),
    [](const auto &info) {
      return std::string(std::get<0>(info.param) == OptimizerKind::Adam
                             ? "Adam"
                             : "SgdMomentum") +
             (std::get<1>(info.param) ? "Eager" : "Lazy");
    });

} // namespace
