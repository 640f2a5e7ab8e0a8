# Every dependency is a Debian -dev package (scripts/install-deps.sh installs them).
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)

function(dl_require_lib target header lib pkg)
  find_path(${target}_INC ${header})
  find_library(${target}_LIB ${lib})
  if(NOT ${target}_INC OR NOT ${target}_LIB)
    message(FATAL_ERROR "Missing dependency ${pkg} (${header}, lib${lib}). Run: sudo scripts/install-deps.sh")
  endif()
  add_library(DL::${target} UNKNOWN IMPORTED)
  set_target_properties(DL::${target} PROPERTIES IMPORTED_LOCATION ${${target}_LIB}
    INTERFACE_INCLUDE_DIRECTORIES ${${target}_INC})
endfunction()

dl_require_lib(zlib zlib.h z zlib1g-dev)
dl_require_lib(zstd zstd.h zstd libzstd-dev)
dl_require_lib(snappy snappy-c.h snappy libsnappy-dev)
dl_require_lib(lz4 lz4.h lz4 liblz4-dev)
dl_require_lib(brotlidec brotli/decode.h brotlidec libbrotli-dev)
dl_require_lib(brotlienc brotli/encode.h brotlienc libbrotli-dev)
dl_require_lib(roaring roaring/roaring.h roaring libroaring-dev)
# Parquet Bloom filters hash values with XXH64 (src/parquet/bloom_filter.c).
dl_require_lib(xxhash xxhash.h xxhash libxxhash-dev)
dl_require_lib(edit histedit.h edit libedit-dev)
# Object stores (src/storage/http.c, store_s3*.c, store_azure*.c): HTTP and signing.
dl_require_lib(curl curl/curl.h curl libcurl4-openssl-dev)
dl_require_lib(crypto openssl/hmac.h crypto libssl-dev)
# HTTP servers (Delta Sharing, `deltalake ui`), their YAML config, and the
# Avro of Iceberg manifests (UniForm).
dl_require_lib(microhttpd microhttpd.h microhttpd libmicrohttpd-dev)
dl_require_lib(yaml yaml.h yaml libyaml-dev)
dl_require_lib(avro avro.h avro libavro-dev)

add_library(DL::codecs INTERFACE IMPORTED)
set_target_properties(DL::codecs PROPERTIES INTERFACE_LINK_LIBRARIES
  "DL::zstd;DL::snappy;DL::lz4;DL::brotlidec;DL::brotlienc;DL::zlib;DL::xxhash")

if(DL_TESTS)
  dl_require_lib(cmocka cmocka.h cmocka libcmocka-dev)
endif()

# Shared test data (conformance tables, bench inputs): $DL_SHARED_DIR when set,
# else ../shared beside the source tree (a checkout's layout), else /work/shared.
if(DEFINED ENV{DL_SHARED_DIR} AND NOT "$ENV{DL_SHARED_DIR}" STREQUAL "")
  set(DL_SHARED_DIR "$ENV{DL_SHARED_DIR}" CACHE PATH "shared test data" FORCE)
elseif(NOT DL_SHARED_DIR)
  if(EXISTS "${CMAKE_SOURCE_DIR}/../shared")
    get_filename_component(_dl_shared "${CMAKE_SOURCE_DIR}/../shared" ABSOLUTE)
  else()
    set(_dl_shared "/work/shared")
  endif()
  set(DL_SHARED_DIR "${_dl_shared}" CACHE PATH "shared test data")
endif()
