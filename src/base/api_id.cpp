#include "kjarni/api_id.hpp"

namespace kjarni {

ApiId ApiId::cuda() { return ApiId("cuda"); }
ApiId ApiId::opencl() { return ApiId("opencl"); }

std::vector<ApiId> all_api_ids() { return {ApiId::cuda(), ApiId::opencl()}; }
ApiId cuda_api_id() { return ApiId::cuda(); }
ApiId opencl_api_id() { return ApiId::opencl(); }

}  // namespace kjarni
