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
execute_process(COMMAND "${WORK_DIR}/prefix/bin/lazyc-opt" --version
                OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
