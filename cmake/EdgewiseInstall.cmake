# `cmake --install build --prefix P`: headers in P/include/edgewise, the static libraries and
# pkg-config's edgewise.pc in P/lib, the CMake package in P/lib/cmake/edgewise, the tool in P/bin.
include(CMakePackageConfigHelpers)

set(EDGEWISE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/edgewise)
set(edgewise_libraries edgewise_core edgewise_graph edgewise_attention edgewise_datasets edgewise_splits edgewise_models edgewise_io
  edgewise_chem edgewise_distributed edgewise_distributed_molecules edgewise_tasks_common edgewise_tasks_node edgewise_tasks_link
  edgewise_tasks_molecule edgewise_tasks)

set_target_properties(edgewise PROPERTIES EXPORT_NAME edgewise)
install(TARGETS ${edgewise_libraries} edgewise EXPORT edgewiseTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(TARGET edgewise_cli)
  install(TARGETS edgewise_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/edgewise DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_BINARY_DIR}/include/edgewise/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/edgewise)

install(EXPORT edgewiseTargets NAMESPACE edgewise:: DESTINATION ${EDGEWISE_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/edgewiseConfig.cmake.in
  ${PROJECT_BINARY_DIR}/edgewiseConfig.cmake INSTALL_DESTINATION ${EDGEWISE_CMAKE_DIR})
# 0.x releases may break the API from one minor version to the next.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/edgewiseConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/edgewiseConfig.cmake ${PROJECT_BINARY_DIR}/edgewiseConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/FindRDKit.cmake ${PROJECT_SOURCE_DIR}/cmake/FindMETIS.cmake DESTINATION ${EDGEWISE_CMAKE_DIR})

# pkg-config: the prefix is found from the .pc file's own folder, so the tree can be moved.
file(RELATIVE_PATH EDGEWISE_PC_PREFIX /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
string(REGEX REPLACE "/$" "" EDGEWISE_PC_PREFIX ${EDGEWISE_PC_PREFIX})
get_target_property(edgewise_definitions edgewise_core INTERFACE_COMPILE_DEFINITIONS)
list(TRANSFORM edgewise_definitions PREPEND -D)
list(JOIN edgewise_definitions " " EDGEWISE_PC_CFLAGS)
string(APPEND EDGEWISE_PC_CFLAGS " ${OpenMP_CXX_FLAGS}")
set(rdkit_directories "")
set(rdkit_names "")
foreach(library IN LISTS RDKit_LIBRARIES)
  get_filename_component(directory ${library} DIRECTORY)
  get_filename_component(name ${library} NAME_WE)
  string(REGEX REPLACE "^lib" "-l" name ${name})
  list(APPEND rdkit_directories -L${directory})
  list(APPEND rdkit_names ${name})
endforeach()
list(REMOVE_DUPLICATES rdkit_directories)
list(JOIN rdkit_directories " " rdkit_directories)
list(JOIN rdkit_names " " rdkit_names)
set(EDGEWISE_PC_LIBS "${rdkit_directories} ${rdkit_names} ${METIS_LIBRARY} ${OpenMP_CXX_FLAGS}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/edgewise.pc.in ${PROJECT_BINARY_DIR}/edgewise.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/edgewise.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
