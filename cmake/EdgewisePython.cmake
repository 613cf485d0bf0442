# EDGEWISE_PYTHON: the Python module of python/, on by default when pybind11 and a Python with its
# headers are found. On Debian the module is built for the system's /usr/bin/python3 (python3 on
# PATH may be another interpreter, such as a pyenv shim without Debian's packages); give
# -DPython_EXECUTABLE=... for another one. The libraries are then compiled as position-independent
# code, which a shared module needs (edgewise_library sets it).
if(NOT DEFINED Python_EXECUTABLE AND NOT DEFINED SKBUILD AND EXISTS /usr/bin/python3)
  set(Python_EXECUTABLE /usr/bin/python3)
endif()
find_package(Python 3.9 COMPONENTS Interpreter Development.Module QUIET)
set(PYBIND11_FINDPYTHON ON)
find_package(pybind11 2.10 CONFIG QUIET)
if(Python_FOUND AND pybind11_FOUND)
  set(edgewise_python_default ON)
else()
  set(edgewise_python_default OFF)
  message(STATUS "Python module off: needs pybind11 and Python's headers (Debian: pybind11-dev, python3-dev)")
endif()
option(EDGEWISE_PYTHON "Build the Python module (python/)" ${edgewise_python_default})
if(EDGEWISE_PYTHON)
  if(NOT Python_FOUND OR NOT pybind11_FOUND)
    message(FATAL_ERROR "EDGEWISE_PYTHON needs pybind11 and Python's headers (Debian: pybind11-dev, python3-dev)")
  endif()
endif()
