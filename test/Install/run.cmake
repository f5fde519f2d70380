# Installs the build tree into a scratch prefix, builds the consumer project
# against the installed CMake package, and runs it (ctest: install-package).
# Inputs: BUILD_DIR, SOURCE_DIR, WORK_DIR, CXX_COMPILER, SANITIZE_FLAGS (a
# sanitized lazyc needs its consumers built with the same -fsanitize flags).
file(REMOVE_RECURSE "${WORK_DIR}")
string(REPLACE ";" " " SANITIZE_FLAGS "${SANITIZE_FLAGS}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}"
                        --prefix "${WORK_DIR}/prefix"
                OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${CMAKE_COMMAND} -G Ninja -S "${SOURCE_DIR}"
                        -B "${WORK_DIR}/build"
                        "-Dlazyc_DIR=${WORK_DIR}/prefix/lib/cmake/lazyc"
                        "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
                        "-DCMAKE_CXX_FLAGS=${SANITIZE_FLAGS}"
                OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK_DIR}/build"
                OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND "${WORK_DIR}/build/consumer" COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND "${WORK_DIR}/build/tour" OUTPUT_VARIABLE printed
                COMMAND_ERROR_IS_FATAL ANY)
if(NOT printed MATCHES "^\\[\\[4, 4\\], \\[4, 4\\]\\]\n3\n.*traces compiled")
  message(FATAL_ERROR "the tour program printed:\n${printed}")
endif()
# A tiny model on synthetic data: it exits non-zero if a step after the
# second compiled anything.
execute_process(COMMAND "${WORK_DIR}/build/mnist_mlp" --epochs 2
                        --examples 256 --batch 32 --hidden 32
                OUTPUT_VARIABLE printed COMMAND_ERROR_IS_FATAL ANY)
if(NOT printed MATCHES "epoch 2/2: mean loss [0-9.]+.*steps compiled 0 traces")
  message(FATAL_ERROR "the mnist_mlp program printed:\n${printed}")
endif()
# cond doubles [1, -2, 3]; ten halvings give x / 1024; the loss of rows
# [1, 2] against zeros with w = I is 0.5 * mean([1, 4]) = 1.25 for every
# batch size, all on one concrete function; the loaded function agrees.
execute_process(COMMAND "${WORK_DIR}/build/dtypes" OUTPUT_VARIABLE printed
                COMMAND_ERROR_IS_FATAL ANY)
if(NOT printed STREQUAL "Float32 Int32 Float64 Bool\n6\n")
  message(FATAL_ERROR "the dtypes program printed:\n${printed}")
endif()
execute_process(COMMAND "${WORK_DIR}/build/staged" "${WORK_DIR}/model.lazyc"
                OUTPUT_VARIABLE printed COMMAND_ERROR_IS_FATAL ANY)
if(NOT printed MATCHES "cond: 2 -4 6\nwhileLoop: 10 1 -2 3\nloss\\[1\\]: 1.25\nloss\\[2\\]: 1.25\nloss\\[3\\]: 1.25\ntrain_step\\(x: Float32 \\[\\?, 2\\], labels: Float32 \\[\\?, 2\\]\\) -> Float32 \\[\\]\nloaded: 1.25\n")
  message(FATAL_ERROR "the staged program printed:\n${printed}")
endif()
execute_process(COMMAND "${WORK_DIR}/prefix/bin/lazyc-run"
                        "${WORK_DIR}/model.lazyc" --print
                OUTPUT_VARIABLE printed COMMAND_ERROR_IS_FATAL ANY)
if(NOT printed MATCHES "out0: tensor<f32>")
  message(FATAL_ERROR "lazyc-run on the saved function printed:\n${printed}")
endif()
if(EXISTS "${WORK_DIR}/build/onnx_roundtrip")
  execute_process(COMMAND "${WORK_DIR}/build/onnx_roundtrip"
                          "${WORK_DIR}/relu.onnx"
                  OUTPUT_VARIABLE printed COMMAND_ERROR_IS_FATAL ANY)
  if(NOT printed STREQUAL "onnx: 1 0 0 3\n")
    message(FATAL_ERROR "the onnx_roundtrip program printed:\n${printed}")
  endif()
endif()
execute_process(COMMAND "${WORK_DIR}/prefix/bin/lazyc-opt" --version
                OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
