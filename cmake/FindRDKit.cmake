# Finds the RDKit C++ libraries, which Debian ships without a CMake config.
# Defines RDKit_FOUND, RDKit_INCLUDE_DIRS and the imported target RDKit::RDKit.
find_path(RDKit_INCLUDE_DIR GraphMol/GraphMol.h PATH_SUFFIXES rdkit)

set(_rdkit_components
  MolDraw2D Depictor Descriptors PartialCharges ScaffoldNetwork ChemTransforms FileParsers SmilesParse
  SubstructMatch GraphMol RingDecomposerLib DataStructs RDGeometryLib RDGeneral)
set(RDKit_LIBRARIES "")
foreach(_component IN LISTS _rdkit_components)
  find_library(RDKit_${_component}_LIBRARY NAMES RDKit${_component})
  if(RDKit_${_component}_LIBRARY)
    list(APPEND RDKit_LIBRARIES ${RDKit_${_component}_LIBRARY})
  endif()
endforeach()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(RDKit
  REQUIRED_VARS RDKit_INCLUDE_DIR RDKit_GraphMol_LIBRARY RDKit_SmilesParse_LIBRARY RDKit_RDGeneral_LIBRARY)

if(RDKit_FOUND AND NOT TARGET RDKit::RDKit)
  set(RDKit_INCLUDE_DIRS ${RDKit_INCLUDE_DIR})
  add_library(RDKit::RDKit INTERFACE IMPORTED)
  set_target_properties(RDKit::RDKit PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${RDKit_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${RDKit_LIBRARIES}")
endif()
mark_as_advanced(RDKit_INCLUDE_DIR)
