// onyx C++ API: the one header a C++ program includes to load, run and work on ONNX models (docs/cpp-api.md).
//
// Header-only RAII classes over the C API (onyx_c_api.h): only the C functions cross the library boundary, so a
// program built with another compiler or standard library works with the same libonyx.so, and nothing here clashes
// with onyx's internal C++ classes when a program links the static library (the public classes live in the inline
// namespace onyx::api_v1, so their mangled names differ from the internal onyx::Session, onyx::Tensor...).
//
// Errors are C++ exceptions: every failing call throws onyx::Error, carrying the C API's code and message. Needs C++17.
#ifndef ONYX_ONYX_HPP_
#define ONYX_ONYX_HPP_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "onyx/onyx_c_api.h"

namespace onyx {
inline namespace api_v1 {

/// Element types, numbered as ONNX's TensorProto.DataType (the C enum; ONYX_ELEMENT_FLOAT...).
using ElementType = onyx_element_type;
/// What a value or a declared input/output holds (ONYX_KIND_TENSOR...).
using ValueKind = onyx_value_kind;
/// Error categories (ONYX_INVALID_ARGUMENT...).
using ErrorCode = onyx_status_code;

/// The exception every failing call throws: the C API's status code and its message (which names the function,
/// and where it applies the node, operator, input or file).
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  /// The category of the failure.
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

namespace detail {

/// Throws onyx::Error for a failed C call (and frees its status).
inline void Check(onyx_status* status) {
  if (status == nullptr) return;
  const ErrorCode code = onyx_status_get_code(status);
  std::string message = onyx_status_get_message(status);
  onyx_status_release(status);
  throw Error(code, message);
}

template <typename T, void (*Release)(T*)>
struct Releaser {
  void operator()(T* p) const noexcept { Release(p); }
};
template <typename T, void (*Release)(T*)>
using Handle = std::unique_ptr<T, Releaser<T, Release>>;

}  // namespace detail

/// The C ABI version of the loaded library; equal to ONYX_API_VERSION when header and library match.
inline uint32_t ApiVersion() { return onyx_api_version(); }
/// The library's version ("0.1.0").
inline std::string Version() { return onyx_version_string(); }
/// Throws onyx::Error when the loaded library implements another ABI than this header describes.
inline void CheckApiVersion() {
  if (ApiVersion() != ONYX_API_VERSION) {
    throw Error(ONYX_UNSUPPORTED, "libonyx implements C API version " + std::to_string(ApiVersion()) +
                                      ", this header expects " + std::to_string(ONYX_API_VERSION));
  }
}

/// The element type of a C++ type: ElementTypeOf<float>::value == ONYX_ELEMENT_FLOAT.
template <typename T>
struct ElementTypeOf;
#define ONYX_API_ELEMENT_TYPE(cpp, onyx_type)       \
  template <>                                       \
  struct ElementTypeOf<cpp> {                       \
    static constexpr ElementType value = onyx_type; \
  };
ONYX_API_ELEMENT_TYPE(float, ONYX_ELEMENT_FLOAT)
ONYX_API_ELEMENT_TYPE(double, ONYX_ELEMENT_DOUBLE)
ONYX_API_ELEMENT_TYPE(int8_t, ONYX_ELEMENT_INT8)
ONYX_API_ELEMENT_TYPE(uint8_t, ONYX_ELEMENT_UINT8)
ONYX_API_ELEMENT_TYPE(int16_t, ONYX_ELEMENT_INT16)
ONYX_API_ELEMENT_TYPE(uint16_t, ONYX_ELEMENT_UINT16)
ONYX_API_ELEMENT_TYPE(int32_t, ONYX_ELEMENT_INT32)
ONYX_API_ELEMENT_TYPE(uint32_t, ONYX_ELEMENT_UINT32)
ONYX_API_ELEMENT_TYPE(int64_t, ONYX_ELEMENT_INT64)
ONYX_API_ELEMENT_TYPE(uint64_t, ONYX_ELEMENT_UINT64)
ONYX_API_ELEMENT_TYPE(bool, ONYX_ELEMENT_BOOL)
ONYX_API_ELEMENT_TYPE(const char*, ONYX_ELEMENT_STRING)
#undef ONYX_API_ELEMENT_TYPE

/// A tensor in the caller's memory: element type, shape and a pointer (never owned). As a Run input it is read
/// in place (zero-copy) during the call and never written; as a RunInto output its memory receives the result.
class Tensor {
 public:
  Tensor(ElementType type, std::vector<int64_t> shape, void* data, size_t size_bytes)
      : type_(type), shape_(std::move(shape)), data_(data), size_bytes_(size_bytes) {}

  /// A view of `data`, which holds the elements of `shape` (row-major). Const data is fine for inputs.
  template <typename T>
  static Tensor View(T* data, std::vector<int64_t> shape) {
    using Element = std::remove_const_t<T>;
    size_t count = 1;
    for (int64_t d : shape) count *= d > 0 ? static_cast<size_t>(d) : 0;
    return Tensor(ElementTypeOf<Element>::value, std::move(shape), const_cast<Element*>(data), count * sizeof(T));
  }
  /// A view of a vector's elements (the vector must outlive the view and not reallocate).
  template <typename T>
  static Tensor View(std::vector<T>& values, std::vector<int64_t> shape) {
    return View(values.data(), std::move(shape));
  }
  template <typename T>
  static Tensor View(const std::vector<T>& values, std::vector<int64_t> shape) {
    return View(values.data(), std::move(shape));
  }

  ElementType type() const { return type_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  void* data() const { return data_; }
  size_t size_bytes() const { return size_bytes_; }

  /// The C description of this view (valid while the Tensor lives and its shape is unchanged).
  onyx_tensor_view c_view() const { return {type_, shape_.data(), shape_.size(), data_, size_bytes_}; }

 private:
  ElementType type_;
  std::vector<int64_t> shape_;
  void* data_;
  size_t size_bytes_;
};

/// A value a run produced, owned (moves, no copies). Tensors give their type, shape and elements.
class Value {
 public:
  explicit Value(onyx_value* value) : value_(value) {}

  ValueKind kind() const {
    ValueKind k;
    detail::Check(onyx_value_get_kind(value_.get(), &k));
    return k;
  }
  bool is_tensor() const { return kind() == ONYX_KIND_TENSOR; }
  ElementType element_type() const {
    ElementType t;
    detail::Check(onyx_value_get_element_type(value_.get(), &t));
    return t;
  }
  std::vector<int64_t> shape() const {
    size_t rank = 0;
    const int64_t* dims = nullptr;
    detail::Check(onyx_value_get_shape(value_.get(), &rank, &dims));
    return std::vector<int64_t>(dims, dims + rank);
  }
  size_t element_count() const {
    size_t n = 0;
    detail::Check(onyx_value_get_element_count(value_.get(), &n));
    return n;
  }
  /// The raw bytes of a non-string tensor (valid while this Value lives).
  const void* raw_data(size_t* size_bytes = nullptr) const {
    const void* data = nullptr;
    size_t bytes = 0;
    detail::Check(onyx_value_get_data(value_.get(), &data, &bytes));
    if (size_bytes != nullptr) *size_bytes = bytes;
    return data;
  }
  /// The elements as T; throws onyx::Error when T is not the tensor's element type.
  template <typename T>
  const T* data() const {
    if (element_type() != ElementTypeOf<T>::value) {
      throw Error(ONYX_INVALID_ARGUMENT, "Value::data: the tensor's element type is " +
                                             std::to_string(static_cast<int>(element_type())) + ", not " +
                                             std::to_string(static_cast<int>(ElementTypeOf<T>::value)));
    }
    return static_cast<const T*>(raw_data());
  }
  /// A copy of the elements as T.
  template <typename T>
  std::vector<T> ToVector() const {
    const T* p = data<T>();
    return std::vector<T>(p, p + element_count());
  }
  /// Element `index` of a string tensor.
  std::string string_at(size_t index) const {
    const char* s = nullptr;
    size_t length = 0;
    detail::Check(onyx_value_get_string(value_.get(), index, &s, &length));
    return std::string(s, length);
  }
  /// The C handle (still owned by this Value).
  const onyx_value* get() const { return value_.get(); }

 private:
  detail::Handle<onyx_value, onyx_value_release> value_;
};

/// One declared input or output: name, kind, element type and shape (-1 for symbolic or unknown dimensions, whose
/// symbols are in dim_names; rank_known false when even the rank is not declared).
struct IoInfo {
  std::string name;
  ValueKind kind = ONYX_KIND_UNKNOWN;
  ElementType element_type = ONYX_ELEMENT_UNDEFINED;
  bool rank_known = false;
  std::vector<int64_t> shape;
  std::vector<std::string> dim_names;  // "" for numeric or unknown dimensions

  /// Copies a C io_info (borrowed from a session or model).
  static IoInfo From(const onyx_io_info* info) {
    IoInfo out;
    const char* name = nullptr;
    detail::Check(onyx_io_info_get_name(info, &name));
    out.name = name;
    detail::Check(onyx_io_info_get_kind(info, &out.kind));
    detail::Check(onyx_io_info_get_element_type(info, &out.element_type));
    int64_t rank = -1;
    const int64_t* dims = nullptr;
    detail::Check(onyx_io_info_get_shape(info, &rank, &dims));
    out.rank_known = rank >= 0;
    for (int64_t i = 0; i < rank; ++i) {
      out.shape.push_back(dims[i]);
      const char* symbol = nullptr;
      detail::Check(onyx_io_info_get_dim_name(info, static_cast<size_t>(i), &symbol));
      out.dim_names.emplace_back(symbol);
    }
    return out;
  }
};

/// Time spent in one operator (or node) over a profiling session's runs.
struct ProfileEntry {
  std::string op;
  double total_ms = 0;
  int64_t calls = 0;
};

/// Settings for creating sessions (copyable into any number of sessions; chainable setters).
class SessionOptions {
 public:
  SessionOptions() {
    onyx_session_options* raw = nullptr;
    detail::Check(onyx_session_options_create(&raw));
    options_.reset(raw);
  }
  /// Intra-operator threads; 0: all cores.
  SessionOptions& SetThreads(int threads) {
    detail::Check(onyx_session_options_set_threads(options_.get(), threads));
    return *this;
  }
  /// 0 disabled, 1 basic, 2 extended, 99 all (the default), as onnxruntime numbers them.
  SessionOptions& SetOptimizationLevel(int level) {
    detail::Check(onyx_session_options_set_optimization_level(options_.get(), level));
    return *this;
  }
  /// Float sums in ONNX Runtime's order (bit-identical to its unoptimized graph): on or off; by default on at
  /// optimization level 0 only.
  SessionOptions& SetOrtSummationOrder(bool on) {
    detail::Check(onyx_session_options_set_ort_summation_order(options_.get(), on ? 1 : 0));
    return *this;
  }
  /// Time every node (Session::Profile), per operator or per node.
  SessionOptions& EnableProfiling(bool per_node = false) {
    detail::Check(onyx_session_options_set_profiling(options_.get(), 1, per_node ? 1 : 0));
    return *this;
  }
  /// Save the optimized model there when a session is created.
  SessionOptions& SetOptimizedModelPath(const std::string& path) {
    detail::Check(onyx_session_options_set_optimized_model_path(options_.get(), path.c_str()));
    return *this;
  }
  const onyx_session_options* get() const { return options_.get(); }

 private:
  detail::Handle<onyx_session_options, onyx_session_options_release> options_;
};

class Session;

/// An ONNX model in memory: load, check, infer shapes, convert opset, save; or create sessions from it.
class Model {
 public:
  explicit Model(onyx_model* model) : model_(model) {}

  /// Loads an .onnx file.
  static Model Load(const std::string& path) {
    onyx_model* raw = nullptr;
    detail::Check(onyx_model_load(path.c_str(), &raw));
    return Model(raw);
  }
  /// Loads the bytes of an .onnx file (copied).
  static Model LoadFromBytes(const void* data, size_t size) {
    onyx_model* raw = nullptr;
    detail::Check(onyx_model_load_from_bytes(data, size, &raw));
    return Model(raw);
  }
  /// Every problem the checker finds ("where: message [rule]"); empty when valid. `full`: also shape inference.
  std::vector<std::string> Check(bool full = false) const {
    onyx_strings* raw = nullptr;
    detail::Check(onyx_model_check(model_.get(), full ? 1 : 0, &raw));
    detail::Handle<onyx_strings, onyx_strings_release> problems(raw);
    size_t n = 0;
    detail::Check(onyx_strings_get_count(raw, &n));
    std::vector<std::string> out;
    for (size_t i = 0; i < n; ++i) {
      const char* s = nullptr;
      detail::Check(onyx_strings_get(raw, i, &s));
      out.emplace_back(s);
    }
    return out;
  }
  /// Shape and type inference, written into this model.
  void InferShapes() { detail::Check(onyx_model_infer_shapes(model_.get())); }
  /// A copy converted to default-domain opset `opset`.
  Model ConvertOpset(int64_t opset) const {
    onyx_model* raw = nullptr;
    detail::Check(onyx_model_convert_opset(model_.get(), opset, &raw));
    return Model(raw);
  }
  /// The imported version of `domain` ("" = ai.onnx); 0 when not imported.
  int64_t Opset(const std::string& domain = "") const {
    int64_t version = 0;
    detail::Check(onyx_model_get_opset(model_.get(), domain.c_str(), &version));
    return version;
  }
  /// Saves as an .onnx file.
  void Save(const std::string& path) const { detail::Check(onyx_model_save(model_.get(), path.c_str())); }
  std::vector<IoInfo> Inputs() const { return Infos(onyx_model_get_input_count, onyx_model_get_input_info); }
  std::vector<IoInfo> Outputs() const { return Infos(onyx_model_get_output_count, onyx_model_get_output_info); }
  const onyx_model* get() const { return model_.get(); }

 private:
  template <typename Count, typename Info>
  std::vector<IoInfo> Infos(Count count_fn, Info info_fn) const {
    size_t n = 0;
    detail::Check(count_fn(model_.get(), &n));
    std::vector<IoInfo> out;
    for (size_t i = 0; i < n; ++i) {
      const onyx_io_info* info = nullptr;
      detail::Check(info_fn(model_.get(), i, &info));
      out.push_back(IoInfo::From(info));
    }
    return out;
  }
  detail::Handle<onyx_model, onyx_model_release> model_;
};

/// Converts a Keras / TF.js / TensorFlow / TFLite model file (or SavedModel directory) to ONNX at `opset`.
inline Model Convert(const std::string& path, int64_t opset = 17) {
  onyx_model* raw = nullptr;
  detail::Check(onyx_convert(path.c_str(), opset, &raw));
  return Model(raw);
}

/// A named input of Session::Run.
using NamedTensor = std::pair<std::string, Tensor>;

/// A compiled model. Run is const and may be called from several threads at once on one Session.
class Session {
 public:
  explicit Session(onyx_session* session) : session_(session) {}

  /// Loads, optimizes and compiles an .onnx file.
  static Session Load(const std::string& path, const SessionOptions& options = SessionOptions()) {
    onyx_session* raw = nullptr;
    detail::Check(onyx_session_create(path.c_str(), options.get(), &raw));
    return Session(raw);
  }
  /// Same from the bytes of an .onnx file.
  static Session Load(const void* data, size_t size, const SessionOptions& options = SessionOptions()) {
    onyx_session* raw = nullptr;
    detail::Check(onyx_session_create_from_bytes(data, size, options.get(), &raw));
    return Session(raw);
  }
  /// Same from a model in memory (copied).
  static Session Load(const Model& model, const SessionOptions& options = SessionOptions()) {
    onyx_session* raw = nullptr;
    detail::Check(onyx_session_create_from_model(model.get(), options.get(), &raw));
    return Session(raw);
  }

  std::vector<IoInfo> Inputs() const { return Infos(onyx_session_get_input_count, onyx_session_get_input_info); }
  std::vector<IoInfo> Outputs() const { return Infos(onyx_session_get_output_count, onyx_session_get_output_info); }

  /// Runs the model on `inputs` (read in place) and returns `output_names` in that order (empty: every output in
  /// model order) as owned values.
  std::vector<Value> Run(const std::vector<NamedTensor>& inputs,
                         const std::vector<std::string>& output_names = {}) const {
    std::vector<const char*> in_names;
    std::vector<onyx_tensor_view> in_views;
    CInputs(inputs, &in_names, &in_views);
    std::vector<const char*> out_names;
    for (const auto& n : output_names) out_names.push_back(n.c_str());
    size_t count = out_names.size();
    if (count == 0) detail::Check(onyx_session_get_output_count(session_.get(), &count));
    std::vector<onyx_value*> raw(count, nullptr);
    detail::Check(onyx_session_run(session_.get(), in_names.data(), in_views.data(), in_views.size(),
                                   out_names.empty() ? nullptr : out_names.data(), out_names.size(), raw.data()));
    std::vector<Value> out;
    out.reserve(count);
    for (onyx_value* v : raw) out.emplace_back(v);
    return out;
  }

  /// Runs the model and writes `output_names[i]` into `outputs[i]` (the caller's memory; its type and shape must
  /// be the result's).
  void RunInto(const std::vector<NamedTensor>& inputs, const std::vector<std::string>& output_names,
               const std::vector<Tensor>& outputs) const {
    if (outputs.size() != output_names.size()) {
      throw Error(ONYX_INVALID_ARGUMENT, "Session::RunInto: " + std::to_string(output_names.size()) +
                                             " output names but " + std::to_string(outputs.size()) + " buffers");
    }
    std::vector<const char*> in_names;
    std::vector<onyx_tensor_view> in_views;
    CInputs(inputs, &in_names, &in_views);
    std::vector<const char*> out_names;
    std::vector<onyx_tensor_view> out_views;
    for (size_t i = 0; i < outputs.size(); ++i) {
      out_names.push_back(output_names[i].c_str());
      out_views.push_back(outputs[i].c_view());
    }
    detail::Check(onyx_session_run_into(session_.get(), in_names.data(), in_views.data(), in_views.size(),
                                        out_names.data(), out_names.size(), out_views.data()));
  }

  /// Per-operator times of the runs so far (SessionOptions::EnableProfiling), largest first.
  std::vector<ProfileEntry> Profile() const {
    onyx_profile* raw = nullptr;
    detail::Check(onyx_session_get_profile(session_.get(), &raw));
    detail::Handle<onyx_profile, onyx_profile_release> profile(raw);
    size_t n = 0;
    detail::Check(onyx_profile_get_count(raw, &n));
    std::vector<ProfileEntry> out;
    for (size_t i = 0; i < n; ++i) {
      onyx_profile_entry e;
      detail::Check(onyx_profile_get_entry(raw, i, &e));
      out.push_back({e.op, e.total_ms, e.calls});
    }
    return out;
  }
  const onyx_session* get() const { return session_.get(); }

 private:
  static void CInputs(const std::vector<NamedTensor>& inputs, std::vector<const char*>* names,
                      std::vector<onyx_tensor_view>* views) {
    names->reserve(inputs.size());
    views->reserve(inputs.size());
    for (const auto& [name, tensor] : inputs) {
      names->push_back(name.c_str());
      views->push_back(tensor.c_view());
    }
  }
  template <typename Count, typename Info>
  std::vector<IoInfo> Infos(Count count_fn, Info info_fn) const {
    size_t n = 0;
    detail::Check(count_fn(session_.get(), &n));
    std::vector<IoInfo> out;
    for (size_t i = 0; i < n; ++i) {
      const onyx_io_info* info = nullptr;
      detail::Check(info_fn(session_.get(), i, &info));
      out.push_back(IoInfo::From(info));
    }
    return out;
  }
  detail::Handle<onyx_session, onyx_session_release> session_;
};

}  // namespace api_v1
}  // namespace onyx

#endif  // ONYX_ONYX_HPP_
