//===- InteropTest.cpp - .npz, DLPack, fromBuffer and copyTo -------------===//
//
// Part of the lazyc project, under the Apache License v2.0 with LLVM Exceptions.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// .npz archives against numpy itself (/usr/bin/python3) both ways, stored
// and deflated, for every dtype of the DType table; every truncation and
// the corruptions that matter as lazyc::Errors; DLPack exports and imports
// that share memory (the pointers are compared), call their deleters
// exactly once, copy strided views and reject foreign dtypes and devices;
// Tensor::fromBuffer over user memory that compiled code never writes,
// including unaligned memory and memory that ends at an unmapped page; and
// copyTo into user buffers. Expected values come from numpy or are written
// by hand, never from lazyc's own output.
//
//===----------------------------------------------------------------------===//

#include "ExpectError.h"
#include "TestDirectory.h"
#include "lazyc/API/NodeAccess.h"

#include "lazyc/lazyc.h"

#include "gtest/gtest.h"

#include <dlpack/dlpack.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/mman.h>
#include <unistd.h>

using namespace lazyc;
using lazyc::test::expectError;
using lazyc::test::readBytes;
using lazyc::test::writeBytes;

namespace {

/// The bytes of `tensor` as copyTo writes them.
std::string bytesOf(const Tensor &tensor) {
  std::string bytes(tensor.numel() * sizeOf(tensor.dtype()), '\0');
  tensor.copyTo(bytes.data(), bytes.size(), tensor.dtype());
  return bytes;
}

/// The buffer a computed tensor's node holds.
const void *bufferOf(const Tensor &tensor) {
  return detail::TensorAccess::node(tensor)->value->data();
}

/// A tensor of `dtype` holding `values` (exact in every dtype: small
/// integers), made without fromBuffer.
Tensor smallIntegers(const std::vector<double> &values,
                     std::vector<int64_t> shape, DType dtype) {
  return cast(Tensor::fromVector<double>(values, std::move(shape)), dtype);
}

using InteropTest = lazyc::test::TestDirectory;

/// The numpy type strings of the DType table ("<f4 <f8 ... |b1"), for the
/// scripts: a row added to the table is covered without a change here.
std::string numpyTypes() {
  std::string text;
  for (DType dtype : kAllDTypes)
    if (*dtypeInfo(dtype).numpyName)
      text += std::string(text.empty() ? "" : " ") + dtypeInfo(dtype).numpyName;
  return text;
}

//===----------------------------------------------------------------------===//
// .npz
//===----------------------------------------------------------------------===//

/// numpy.savez and savez_compressed archives of every numpy dtype lazyc
/// has, loaded by loadNpz, hold the bytes numpy wrote.
TEST_F(InteropTest, LoadNpzReadsWhatNumpyWrites) {
  runNumpy(R"(import sys, numpy as np
d = sys.argv[1]
arrays = {}
for i, t in enumerate(')" +
           numpyTypes() + R"('.split()):
    base = np.arange(24).reshape(2, 3, 4)
    if t == '|b1':
        a = base % 3 == 0
    elif t[1] == 'f':
        a = (base / 4 - 2.5).astype(t)
    else:
        a = (base * 37 - 50).astype(t)
    arrays['a%d' % i] = a
    a.tofile(d + '/a%d.bin' % i)
arrays['scalar'] = np.array(7.25, np.float64)
arrays['empty'] = np.zeros((0, 5), np.int32)
arrays['big'] = np.tile(np.arange(1000, dtype=np.float32), 40)
np.savez(d + '/stored.npz', **arrays)
np.savez_compressed(d + '/deflated.npz', **arrays)
# zipfile writes zip64 central directory fields and end records past its
# limits: lowered, a small archive has them all.
import zipfile
zipfile.ZIP64_LIMIT = 0
zipfile.ZIP_FILECOUNT_LIMIT = 0
np.savez(d + '/zip64.npz', x=np.arange(5, dtype=np.int64), y=np.ones(3, bool))
)");
  size_t types = 0;
  for (DType dtype : kAllDTypes)
    types += *dtypeInfo(dtype).numpyName != '\0';
  for (const char *name : {"stored.npz", "deflated.npz"}) {
    SCOPED_TRACE(name);
    std::map<std::string, Tensor> loaded = loadNpz(file(name));
    ASSERT_EQ(loaded.size(), types + 3);
    size_t i = 0;
    for (DType dtype : kAllDTypes) {
      if (!*dtypeInfo(dtype).numpyName)
        continue;
      const Tensor &a = loaded.at("a" + std::to_string(i));
      EXPECT_EQ(a.dtype(), dtype) << dtypeName(dtype);
      EXPECT_EQ(a.shape(), (std::vector<int64_t>{2, 3, 4}));
      EXPECT_EQ(bytesOf(a), readBytes(file("a" + std::to_string(i) + ".bin")))
          << dtypeName(dtype);
      ++i;
    }
    EXPECT_EQ(loaded.at("scalar").rank(), 0);
    EXPECT_EQ(loaded.at("scalar").item<double>(), 7.25);
    EXPECT_EQ(loaded.at("empty").shape(), (std::vector<int64_t>{0, 5}));
    std::vector<float> big = loaded.at("big").toVector<float>();
    ASSERT_EQ(big.size(), 40000u);
    for (size_t k = 0; k < big.size(); ++k)
      ASSERT_EQ(big[k], float(k % 1000)) << k;
  }
  std::string zip64 = readBytes(file("zip64.npz"));
  ASSERT_NE(zip64.find("PK\x06\x06"), std::string::npos)
      << "numpy wrote no zip64 end record";
  // The end record may defer every count and offset to the zip64 one.
  std::string deferred = zip64;
  size_t end = deferred.rfind("PK\x05\x06");
  ASSERT_NE(end, std::string::npos);
  std::fill(deferred.begin() + end + 8, deferred.begin() + end + 20, '\xff');
  writeBytes(file("deferred.npz"), deferred);
  for (const char *name : {"zip64.npz", "deferred.npz"}) {
    std::map<std::string, Tensor> loaded = loadNpz(file(name));
    EXPECT_EQ(loaded.at("x").toVector<int64_t>(),
              (std::vector<int64_t>{0, 1, 2, 3, 4}));
    EXPECT_EQ(loaded.at("y").toVector<bool>(),
              (std::vector<bool>{true, true, true}));
  }
}

/// numpy reads what saveNpz and saveNpzCompressed write: every dtype
/// (BFloat16 as float32, as saveNpy writes it), the members in order, named
/// "<name>.npy", stored or deflated.
TEST_F(InteropTest, NumpyReadsWhatSaveNpzWrites) {
  std::vector<std::pair<std::string, Tensor>> tensors;
  std::string expected;
  for (DType dtype : kAllDTypes) {
    std::string name = std::string("t_") + dtypeName(dtype);
    tensors.push_back({name, smallIntegers({0, 1, 2, 3, 0, 5}, {3, 2}, dtype)});
    const char *descr = *dtypeInfo(dtype).numpyName ? dtypeInfo(dtype).numpyName
                                                    : "<f4"; // bfloat16
    expected += "    ('" + name + "', '" + descr + "'),\n";
  }
  tensors.push_back({"scalar", full({}, 2.5, DType::Float64)});
  tensors.push_back({"pending", exp(zeros({4}))}); // materialized by saveNpz
  saveNpz(file("stored.npz"), tensors);
  saveNpzCompressed(file("deflated.npz"), tensors);
  runNumpy(R"(import sys, zipfile, numpy as np
d = sys.argv[1]
expected = [
)" + expected +
           R"(]
for name, method in (('stored.npz', zipfile.ZIP_STORED),
                     ('deflated.npz', zipfile.ZIP_DEFLATED)):
    with zipfile.ZipFile(d + '/' + name) as z:
        assert z.testzip() is None, name
        infos = z.infolist()
        assert [i.filename for i in infos] == \
            [n + '.npy' for n, _ in expected] + ['scalar.npy', 'pending.npy']
        assert all(i.compress_type == method for i in infos), name
    f = np.load(d + '/' + name)
    for n, t in expected:
        a = f[n]
        want = np.array([[0, 1], [2, 3], [0, 5]]).astype(t)
        assert a.dtype == np.dtype(t) and a.shape == (3, 2), (n, a.dtype)
        assert np.array_equal(a, want), (n, a)
    assert f['scalar'].shape == () and f['scalar'] == 2.5
    assert np.array_equal(f['pending'], np.ones(4, np.float32))
)");
}

/// What loadNpz reads back from saveNpz is the values written, for every
/// dtype (BFloat16 comes back as the float32 it was written as).
TEST_F(InteropTest, NpzRoundTripsEveryDType) {
  std::vector<double> values = {0, 1, 2, 3, 4, 0};
  for (bool compress : {false, true}) {
    std::vector<std::pair<std::string, Tensor>> tensors;
    for (DType dtype : kAllDTypes)
      tensors.push_back(
          {dtypeName(dtype), smallIntegers(values, {2, 3}, dtype)});
    std::string path = file(compress ? "d.npz" : "s.npz");
    if (compress)
      saveNpzCompressed(path, tensors);
    else
      saveNpz(path, tensors);
    std::map<std::string, Tensor> loaded = loadNpz(path);
    ASSERT_EQ(loaded.size(), std::size(kAllDTypes));
    for (DType dtype : kAllDTypes) {
      const Tensor &tensor = loaded.at(dtypeName(dtype));
      EXPECT_EQ(tensor.dtype(),
                *dtypeInfo(dtype).numpyName ? dtype : DType::Float32);
      EXPECT_EQ(tensor.shape(), (std::vector<int64_t>{2, 3}));
      std::vector<double> want = values;
      if (dtype == DType::Bool)
        want = {0, 1, 1, 1, 1, 0};
      EXPECT_EQ(tensor.toVector<double>(), want) << dtypeName(dtype);
    }
  }
}

/// Every truncation of an archive, and each corruption a reader must
/// catch, is a lazyc::Error naming the file, the member and the problem.
TEST_F(InteropTest, BadNpzFilesAreErrors) {
  runNumpy(R"(import sys, zipfile, numpy as np, io
d = sys.argv[1]
np.savez(d + '/good.npz', x=np.arange(6, dtype=np.float32), y=np.ones(2))
np.savez_compressed(d + '/deflated.npz', x=np.arange(600, dtype=np.float32))
np.save(d + '/plain.npy', np.ones(2))
def npy(a):
    b = io.BytesIO(); np.save(b, a); return b.getvalue()
with zipfile.ZipFile(d + '/text.npz', 'w') as z:
    z.writestr('x.npy', npy(np.ones(2)))
    z.writestr('notes.txt', 'hello')
with zipfile.ZipFile(d + '/notnpy.npz', 'w') as z:
    z.writestr('x.npy', b'hello, not an array')
with zipfile.ZipFile(d + '/bzip2.npz', 'w', zipfile.ZIP_BZIP2) as z:
    z.writestr('x.npy', npy(np.ones(2)))
import warnings
warnings.simplefilter('ignore')
with zipfile.ZipFile(d + '/twice.npz', 'w') as z:
    z.writestr('x.npy', npy(np.ones(2)))
    z.writestr('x.npy', npy(np.zeros(2)))
)");
  std::string good = readBytes(file("good.npz"));
  auto expectLoadError = [&](const std::string &name,
                             const std::string &mentions) {
    std::string path = file(name);
    expectError(
        [&](unsigned &line) {
          line = __LINE__ + 1;
          loadNpz(path);
        },
        "loadNpz", mentions);
  };
  // Every strict prefix: an error, never a crash or a read past the end.
  for (size_t size = 0; size < good.size(); ++size) {
    writeBytes(file("cut.npz"), good.substr(0, size));
    EXPECT_THROW(loadNpz(file("cut.npz")), Error) << size << " bytes";
  }
  writeBytes(file("cut.npz"), good.substr(0, good.size() / 2));
  expectLoadError("cut.npz", "cut.npz' is truncated");

  // A flipped data byte (the last one of y's float64 ones): the CRC-32.
  // y's data ends where the central directory starts.
  std::string flipped = good;
  flipped[good.find("PK\x01\x02") - 1] ^= 0x40;
  writeBytes(file("crc.npz"), flipped);
  expectLoadError("crc.npz", "crc.npz' is corrupted: the CRC-32 of member "
                             "'y.npy' is 0x");

  // Bit 0 of the first central directory entry's flags: encryption.
  std::string encrypted = good;
  encrypted[good.find("PK\x01\x02") + 8] |= 1;
  writeBytes(file("encrypted.npz"), encrypted);
  expectLoadError("encrypted.npz", "holds the encrypted member 'x.npy'");

  // A corrupted deflate stream fails to inflate or to match its CRC-32.
  std::string deflated = readBytes(file("deflated.npz"));
  deflated[100] ^= 0xff;
  writeBytes(file("inflate.npz"), deflated);
  try {
    loadNpz(file("inflate.npz"));
    ADD_FAILURE() << "a corrupted deflate stream loaded";
  } catch (const Error &error) {
    std::string what = error.what();
    EXPECT_TRUE(what.find("the deflated data of member 'x.npy'") !=
                    std::string::npos ||
                what.find("the CRC-32 of member 'x.npy'") != std::string::npos)
        << what;
  }

  expectLoadError("text.npz",
                  "text.npz' holds member 'notes.txt', which is not a .npy "
                  "array (unsupported member)");
  expectLoadError("notnpy.npz", "notnpy.npz' member 'x.npy' is not a .npy "
                                "file");
  expectLoadError("bzip2.npz",
                  "holds member 'x.npy' compressed with zip method 12");
  expectLoadError("twice.npz", "holds two members named 'x.npy'");
  expectLoadError("plain.npy", "plain.npy' is a .npy file, not an .npz");
  writeBytes(file("text.txt"), "just some text, certainly not a zip archive");
  expectLoadError("text.txt", "text.txt' is not an .npz file");
  expectLoadError("missing.npz", "missing.npz' cannot be opened");
}

TEST_F(InteropTest, SaveNpzErrors) {
  std::string path = file("x.npz");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        saveNpz(path, {{"a", ones({2})}, {"b", ones({1})}, {"a", ones({3})}});
      },
      "saveNpz", "the name 'a' is given twice (tensors 1 and 3)");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        saveNpzCompressed(path, {{"a", Tensor()}});
      },
      "saveNpzCompressed", "the tensor 'a' to write to");
  EXPECT_FALSE(std::filesystem::exists(path));
  std::string missing = file("no/such/dir/x.npz");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        saveNpz(missing, {{"a", ones({2})}});
      },
      "saveNpz", "x.npz' cannot be written");
}

//===----------------------------------------------------------------------===//
// DLPack
//===----------------------------------------------------------------------===//

/// A DLManagedTensor over the test's memory whose deleter counts its calls.
struct Producer {
  DLManagedTensor managed = {};
  std::vector<int64_t> shape, strides;
  int deletions = 0;

  Producer(void *data, DLDataType dtype, std::vector<int64_t> shapeIn,
           std::vector<int64_t> stridesIn = {}, uint64_t byteOffset = 0,
           DLDevice device = {kDLCPU, 0})
      : shape(std::move(shapeIn)), strides(std::move(stridesIn)) {
    DLTensor &t = managed.dl_tensor;
    t.data = data;
    t.device = device;
    t.ndim = static_cast<int>(shape.size());
    t.dtype = dtype;
    t.shape = shape.data();
    t.strides = strides.empty() ? nullptr : strides.data();
    t.byte_offset = byteOffset;
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensor *self) {
      ++static_cast<Producer *>(self->manager_ctx)->deletions;
    };
  }
};

constexpr DLDataType kFloat32 = {kDLFloat, 32, 1};

TEST_F(InteropTest, ToDLPackSharesTheBuffer) {
  Tensor t = Tensor::fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}) * 2.0f;
  DLManagedTensor *exported = toDLPack(t); // materializes t
  const DLTensor &dl = exported->dl_tensor;
  EXPECT_EQ(dl.data, bufferOf(t));
  EXPECT_EQ(dl.device.device_type, kDLCPU);
  EXPECT_EQ(dl.device.device_id, 0);
  EXPECT_EQ(dl.ndim, 2);
  EXPECT_EQ(dl.dtype.code, kDLFloat);
  EXPECT_EQ(dl.dtype.bits, 32);
  EXPECT_EQ(dl.dtype.lanes, 1);
  EXPECT_EQ(std::vector<int64_t>(dl.shape, dl.shape + 2),
            (std::vector<int64_t>{2, 3}));
  ASSERT_NE(dl.strides, nullptr);
  EXPECT_EQ(std::vector<int64_t>(dl.strides, dl.strides + 2),
            (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(dl.byte_offset, 0u);
  // The export keeps the buffer after the last handle goes.
  t = Tensor();
  const float *data = static_cast<const float *>(dl.data);
  EXPECT_EQ(std::vector<float>(data, data + 6),
            (std::vector<float>{2, 4, 6, 8, 10, 12}));
  exported->deleter(exported);
}

/// The dtypes of the table as DLPack codes, and back.
TEST_F(InteropTest, DLPackRoundTripsEveryDType) {
  for (DType dtype : kAllDTypes) {
    SCOPED_TRACE(dtypeName(dtype));
    Tensor t = smallIntegers({0, 1, 2, 3}, {4}, dtype);
    DLManagedTensor *exported = toDLPack(t);
    DLDataType type = exported->dl_tensor.dtype;
    EXPECT_EQ(type.bits, sizeOf(dtype) * 8);
    EXPECT_EQ(type.lanes, 1);
    uint8_t code = dtype == DType::Bool                   ? 6 // kDLBool
                   : dtype == DType::BFloat16             ? kDLBfloat
                   : isFloatingPoint(dtype)               ? kDLFloat
                   : dtypeInfo(dtype).numpyName[1] == 'u' ? kDLUInt
                                                          : kDLInt;
    EXPECT_EQ(type.code, code);
    const void *data = exported->dl_tensor.data;
    Tensor back = fromDLPack(exported); // zero-copy both ways
    EXPECT_EQ(back.dtype(), dtype);
    EXPECT_EQ(bufferOf(back), data);
    EXPECT_EQ(bufferOf(back), bufferOf(t));
    std::vector<double> want = {0, 1, 2, 3};
    if (dtype == DType::Bool)
      want = {0, 1, 1, 1};
    EXPECT_EQ(back.toVector<double>(), want);
    // Dropping the import runs the export's deleter: t's buffer has one
    // owner again.
    back = Tensor();
    EXPECT_EQ(detail::TensorAccess::node(t)->value.use_count(), 1);
  }
}

TEST_F(InteropTest, FromDLPackUsesTheMemoryAndDeletesOnce) {
  alignas(64) float memory[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  Producer producer(memory, kFloat32, {2, 4});
  Tensor x = fromDLPack(&producer.managed);
  EXPECT_EQ(bufferOf(x), memory);
  Tensor y = sum(x * x, {1}); // pending: reads x
  x = Tensor();
  EXPECT_EQ(producer.deletions, 0);
  EXPECT_EQ(y.toVector<float>(), (std::vector<float>{30, 174}));
  // y is computed: nothing reads the producer's memory any more.
  EXPECT_EQ(producer.deletions, 1);
  y = Tensor();
  EXPECT_EQ(producer.deletions, 1);
  // The memory was only read.
  EXPECT_EQ(memory[0], 1);
  EXPECT_EQ(memory[7], 8);
}

TEST_F(InteropTest, FromDLPackCopiesStridedViews) {
  // The transpose of [[0, 1, 2], [3, 4, 5]] as a view: shape [3, 2],
  // strides [1, 3].
  alignas(64) int32_t matrix[6] = {0, 1, 2, 3, 4, 5};
  Producer transposed(matrix, {kDLInt, 32, 1}, {3, 2}, {1, 3});
  Tensor t = fromDLPack(&transposed.managed);
  EXPECT_EQ(transposed.deletions, 1); // copied at once
  EXPECT_NE(bufferOf(t), static_cast<void *>(matrix));
  EXPECT_EQ(t.toVector<int32_t>(), (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));

  // A reversed view: negative strides from the last element.
  Producer reversed(&matrix[5], {kDLInt, 32, 1}, {6}, {-1});
  EXPECT_EQ(fromDLPack(&reversed.managed).toVector<int32_t>(),
            (std::vector<int32_t>{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(reversed.deletions, 1);

  // Contiguous strides spelled out, size-1 dimensions with any stride, and
  // a byte offset: used in place.
  Producer offset(matrix, {kDLInt, 32, 1}, {1, 4}, {99, 1},
                  2 * sizeof(int32_t));
  Tensor tail = fromDLPack(&offset.managed);
  EXPECT_EQ(bufferOf(tail), static_cast<void *>(&matrix[2]));
  EXPECT_EQ(tail.toVector<int32_t>(), (std::vector<int32_t>{2, 3, 4, 5}));
  EXPECT_EQ(offset.deletions, 0);
  tail = Tensor();
  EXPECT_EQ(offset.deletions, 1);
}

TEST_F(InteropTest, FromDLPackErrors) {
  float memory[4] = {};
  Producer complex(memory, {kDLComplex, 64, 1}, {2});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        fromDLPack(&complex.managed);
      },
      "fromDLPack",
      "the DLPack dtype complex64 is not supported (supported: "
      "float32, float64, float16, bfloat16");
  Producer lanes(memory, {kDLFloat, 32, 4}, {1});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        fromDLPack(&lanes.managed);
      },
      "fromDLPack", "the DLPack dtype float32 x 4 lanes is not supported");
  // A GPU no machine has: the import says why it cannot be used.
  Producer cuda(memory, kFloat32, {4}, {}, 0, {kDLCUDA, 99});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        fromDLPack(&cuda.managed);
      },
      "fromDLPack",
      "cannot import a tensor on DLPack device kDLCUDA (device "
      "99): ");
  Producer openCL(memory, kFloat32, {4}, {}, 0, {kDLOpenCL, 1});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        fromDLPack(&openCL.managed);
      },
      "fromDLPack", "DLPack device kDLOpenCL (device 1) (lazyc imports kDLCPU");
  Producer negative(memory, kFloat32, {-2});
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        fromDLPack(&negative.managed);
      },
      "fromDLPack", "negative dimension in shape [-2]");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        fromDLPack(nullptr);
      },
      "fromDLPack", "null pointer");
  // On an error the tensor stays the caller's.
  for (Producer *producer : {&complex, &lanes, &cuda, &openCL, &negative})
    EXPECT_EQ(producer->deletions, 0);
}

/// An export holds its buffer: a variable's update does not overwrite the
/// exported old value in place.
TEST_F(InteropTest, AnExportedValueIsNotUpdatedInPlace) {
  Variable w(Tensor::fromVector<float>({1, 2, 3}, {3}), "w");
  w.assign(w.read() + 0.0f);
  lazyc::sync(); // w's value is now a computed buffer only w holds
  DLManagedTensor *exported = toDLPack(w.read());
  w.assign(w.read() * 2.0f);
  lazyc::sync();
  const float *old = static_cast<const float *>(exported->dl_tensor.data);
  EXPECT_EQ(std::vector<float>(old, old + 3), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(w.read().toVector<float>(), (std::vector<float>{2, 4, 6}));
  exported->deleter(exported);
}

//===----------------------------------------------------------------------===//
// fromBuffer and copyTo
//===----------------------------------------------------------------------===//

TEST_F(InteropTest, FromBufferUsesTheMemoryAndDeletesOnceAfterTheLastUse) {
  float *memory = new float[6]{1, 2, 3, 4, 5, 6};
  int deletions = 0;
  Tensor x =
      Tensor::fromBuffer(memory, {2, 3}, DType::Float32, [&](void *data) {
        EXPECT_EQ(data, memory);
        ++deletions;
        delete[] static_cast<float *>(data);
      });
  EXPECT_TRUE(x.isMaterialized());
  EXPECT_EQ(bufferOf(x), memory);
  Tensor y = x * 2.0f + 1.0f;
  Tensor z = sum(x, {0});
  x = Tensor();
  EXPECT_EQ(deletions, 0);
  EXPECT_EQ(y.toVector<float>(), (std::vector<float>{3, 5, 7, 9, 11, 13}));
  EXPECT_EQ(deletions, 0); // z still reads it
  EXPECT_EQ(z.toVector<float>(), (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(deletions, 1);
  y = Tensor();
  z = Tensor();
  EXPECT_EQ(deletions, 1);
}

/// lazyc reads the memory when a computation that uses it runs: a write
/// before then is seen, one after is not.
TEST_F(InteropTest, FromBufferReadsTheMemoryWhenTheTraceRuns) {
  std::vector<int32_t> memory = {1, 2, 3};
  Tensor x = Tensor::fromBuffer(memory.data(), {3}, DType::Int32, nullptr);
  Tensor early = x * 10;
  early.toVector<int32_t>(); // runs now
  Tensor late = x * 10;      // pending
  memory[0] = 7;
  EXPECT_EQ(late.toVector<int32_t>(), (std::vector<int32_t>{70, 20, 30}));
  EXPECT_EQ(early.toVector<int32_t>(), (std::vector<int32_t>{10, 20, 30}));
}

/// Compiled code updates dead buffers in place (docs/Architecture.md); the
/// user's memory is never one of them.
TEST_F(InteropTest, FromBufferMemoryIsNeverUpdatedInPlace) {
  // The control: the same steps on a lazyc buffer are updated in place.
  {
    Variable w(Tensor::fromVector<float>({1, 2, 3, 4}, {4}), "w");
    uint64_t before = metrics().updatedInPlace;
    w.assign(w.read() * 2.0f);
    lazyc::sync();
    ASSERT_EQ(metrics().updatedInPlace, before + 1)
        << "the control did not update in place: this test proves nothing";
  }
  alignas(64) float memory[4] = {1, 2, 3, 4};
  int deletions = 0;
  {
    Variable w(Tensor::fromBuffer(memory, {4}, DType::Float32,
                                  [&](void *) { ++deletions; }),
               "w");
    uint64_t before = metrics().updatedInPlace;
    w.assign(w.read() * 2.0f);
    lazyc::sync();
    EXPECT_EQ(metrics().updatedInPlace, before);
    EXPECT_EQ(w.read().toVector<float>(), (std::vector<float>{2, 4, 6, 8}));
    EXPECT_EQ(deletions, 1);
    // A temporary whose handle is gone is not updated in place either.
    Tensor x = Tensor::fromBuffer(memory, {4}, DType::Float32, nullptr);
    Tensor y = x + 1.0f;
    x = Tensor();
    EXPECT_EQ(y.toVector<float>(), (std::vector<float>{2, 3, 4, 5}));
  }
  EXPECT_EQ(std::vector<float>(memory, memory + 4),
            (std::vector<float>{1, 2, 3, 4}));
}

/// Hand-computed checks of elementwise ops, a reduction and a matmul over
/// `n` floats at `data` (values 0.5 * (i % 7) - 1).
void expectComputedRight(float *data, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    data[i] = 0.5f * static_cast<float>(i % 7) - 1.0f;
  Tensor x = Tensor::fromBuffer(data, {n}, DType::Float32, nullptr);
  std::vector<float> y = (x * 3.0f + 1.0f).toVector<float>();
  double total = 0;
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(y[i], data[i] * 3.0f + 1.0f) << i;
    total += data[i];
  }
  EXPECT_NEAR(sum(x).item<float>(), total, 1e-3);
  Tensor row = reshape(x, {1, n});
  EXPECT_NEAR(
      matmul(row, transpose(row)).item<float>(),
      [&] {
        double dot = 0;
        for (int64_t i = 0; i < n; ++i)
          dot += double(data[i]) * data[i];
        return dot;
      }(),
      1e-2);
}

/// Generated code assumes element alignment only: memory aligned to 4 bytes
/// but not to a vector is used in place and computes right; memory that is
/// not aligned to its element size is copied at once.
TEST_F(InteropTest, FromBufferAlignment) {
  const int64_t n = 1000;
  std::vector<char> block(n * sizeof(float) + 64 + 8);
  char *aligned =
      block.data() + (64 - reinterpret_cast<uintptr_t>(block.data()) % 64) % 64;
  float *elementAligned = reinterpret_cast<float *>(aligned + 4);
  Tensor inPlace =
      Tensor::fromBuffer(elementAligned, {n}, DType::Float32, nullptr);
  EXPECT_EQ(bufferOf(inPlace), elementAligned);
  expectComputedRight(elementAligned, n);

  float values[3] = {1.5f, -2, 4};
  char *odd = aligned + 1;
  std::memcpy(odd, values, sizeof values);
  int deletions = 0;
  Tensor copied = Tensor::fromBuffer(odd, {3}, DType::Float32, [&](void *data) {
    EXPECT_EQ(data, odd);
    ++deletions;
  });
  EXPECT_EQ(deletions, 1); // copied: the memory is free at once
  EXPECT_NE(bufferOf(copied), static_cast<void *>(odd));
  std::memset(odd, 0, sizeof values);
  EXPECT_EQ((copied * 2.0f).toVector<float>(), (std::vector<float>{3, -4, 8}));
}

/// Generated code reads no byte past the user's memory: the buffer ends at
/// a page with no access.
TEST_F(InteropTest, FromBufferMemoryEndingAtAnUnmappedPage) {
  long page = ::sysconf(_SC_PAGESIZE);
  const int64_t n = 999; // 3996 bytes: the start is 4-aligned, not 8
  size_t span = (n * sizeof(float) / page + 2) * page;
  void *mapping = ::mmap(nullptr, span, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mapping, MAP_FAILED);
  char *guard = static_cast<char *>(mapping) + span - page;
  ASSERT_EQ(::mprotect(guard, page, PROT_NONE), 0);
  expectComputedRight(reinterpret_cast<float *>(guard) - n, n);
  ::munmap(mapping, span);
}

TEST_F(InteropTest, FromBufferErrors) {
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        Tensor::fromBuffer(nullptr, {2, 3}, DType::Float32, nullptr);
      },
      "fromBuffer",
      "the data pointer is null, but shape [2, 3] of Float32 needs 24 bytes");
  float memory[2];
  int deletions = 0;
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        Tensor::fromBuffer(memory, {2, -1}, DType::Float32,
                           [&](void *) { ++deletions; });
      },
      "fromBuffer", "negative dimension in shape [2, -1]");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        Tensor::fromBuffer(
            memory, {2}, DType::Float32, [&](void *) { ++deletions; },
            Device::cuda(3));
      },
      "fromBuffer", "");
  EXPECT_EQ(deletions, 0);
  // An empty tensor needs no memory.
  EXPECT_EQ(Tensor::fromBuffer(nullptr, {0, 4}, DType::Int64, nullptr).numel(),
            0);
}

TEST_F(InteropTest, CopyToWritesIntoTheCallersBuffer) {
  Tensor t = Tensor::fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}) + 0.5f;
  std::vector<float> out(6);
  t.copyTo(std::span(out));
  EXPECT_EQ(out, (std::vector<float>{1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f}));
  bool flags[3];
  (Tensor::fromVector<int32_t>({0, 5, -1}, {3}) > 0).copyTo(std::span(flags));
  EXPECT_FALSE(flags[0]);
  EXPECT_TRUE(flags[1]);
  EXPECT_FALSE(flags[2]);
  int64_t nothing[1];
  zeros({0}, DType::Int64).copyTo(std::span(nothing, 0));

  std::vector<float> small(5);
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        t.copyTo(std::span(small));
      },
      "copyTo",
      "the buffer holds 5 elements of Float32 (20 bytes), but the tensor of "
      "shape [2, 3] has 6 (24 bytes)");
  std::vector<double> wrong(6);
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        t.copyTo(std::span(wrong));
      },
      "copyTo",
      "the buffer is for Float64 elements, but the tensor of shape [2, 3] is "
      "Float32");
  expectError(
      [&](unsigned &line) {
        line = __LINE__ + 1;
        Tensor().copyTo(out.data(), 24, DType::Float32);
      },
      "copyTo", "the Tensor is empty");
}

} // namespace
