# Writes OUTPUT, a C++ string literal naming this build of lazyc's
# compiler: a hash of every source that decides what code it generates (the
# files listed in LIST_FILE, one per line) and of LLVM's version. The
# persistent compile cache keys entries by it, so code compiled by another
# build is never loaded. Run by lib/JIT/CMakeLists.txt whenever one of those
# sources changes.
file(STRINGS "${LIST_FILE}" sources)
set(digests "${LLVM_VERSION}")
foreach(source IN LISTS sources)
  file(SHA256 "${source}" digest)
  string(APPEND digests "${digest}")
endforeach()
string(SHA256 id "${digests}")
string(SUBSTRING "${id}" 0 24 id)
set(content "\"${id}\"\n")
# Rewrite only on change: the one file that includes it recompiles then.
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
  if(old STREQUAL content)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${content}")
