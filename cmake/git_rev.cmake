# cmake -DSRC=<source dir> -DOUT=<header> -P cmake/git_rev.cmake
# Writes the git revision of the source tree at BUILD time (not configure time: a build directory
# configured once and rebuilt after later commits must not record the old revision in run
# manifests) as TIDE_GIT_REV into OUT, rewriting the file only when the revision changed, so
# that only runtime/version.c recompiles, and only then.
execute_process(COMMAND git rev-parse --short HEAD WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT rev)
  set(rev "unknown")
endif()
set(text "#define TIDE_GIT_REV \"${rev}\"\n")
set(old "")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
