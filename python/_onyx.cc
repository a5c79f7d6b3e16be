// The C++ side of the `onyx` Python module: sessions, models and numpy conversion. The Python package
// (python/onyx/) wraps it in onnxruntime's surface (InferenceSession, SessionOptions, NodeArg) and onnx.backend.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <memory>

#include "checker/checker.h"
#include "convert/convert_file.h"
#include "format/model_io.h"
#include "quantize/quantize.h"
#include "runtime/session.h"
#include "text/parser.h"
#include "text/printer.h"

namespace py = pybind11;

namespace onyx::python {
namespace {

// Errors cross into Python as onyx.OnyxError subclasses carrying onyx's message (set up in PYBIND11_MODULE).
PyObject* g_error = nullptr;
PyObject* g_invalid_argument = nullptr;
PyObject* g_not_implemented = nullptr;

[[noreturn]] void Raise(const Status& st) {
  PyObject* type = st.code() == StatusCode::kInvalidArgument ? g_invalid_argument
                   : st.code() == StatusCode::kUnsupported   ? g_not_implemented
                                                             : g_error;
  PyErr_SetString(type, st.message().c_str());
  throw py::error_already_set();
}

template <typename T>
T Unwrap(Result<T> r) {
  if (!r.ok()) Raise(r.status());
  return std::move(r).value();
}

// numpy dtype for an element type; bfloat16 has none and travels as float32.
py::dtype NumpyDtype(DataType t) {
  switch (t) {
    case DataType::kFloat: return py::dtype("float32");
    case DataType::kDouble: return py::dtype("float64");
    case DataType::kFloat16: return py::dtype("float16");
    case DataType::kInt8: return py::dtype("int8");
    case DataType::kInt16: return py::dtype("int16");
    case DataType::kInt32: return py::dtype("int32");
    case DataType::kInt64: return py::dtype("int64");
    case DataType::kUint8: return py::dtype("uint8");
    case DataType::kUint16: return py::dtype("uint16");
    case DataType::kUint32: return py::dtype("uint32");
    case DataType::kUint64: return py::dtype("uint64");
    case DataType::kBool: return py::dtype("bool");
    case DataType::kComplex64: return py::dtype("complex64");
    case DataType::kComplex128: return py::dtype("complex128");
    default: return py::dtype("uint8");
  }
}

Result<DataType> FromNumpyDtype(const py::dtype& d) {
  const char kind = d.kind();
  const auto size = d.itemsize();
  if (kind == 'f') {
    if (size == 4) return DataType::kFloat;
    if (size == 8) return DataType::kDouble;
    if (size == 2) return DataType::kFloat16;
  } else if (kind == 'i') {
    if (size == 1) return DataType::kInt8;
    if (size == 2) return DataType::kInt16;
    if (size == 4) return DataType::kInt32;
    if (size == 8) return DataType::kInt64;
  } else if (kind == 'u') {
    if (size == 1) return DataType::kUint8;
    if (size == 2) return DataType::kUint16;
    if (size == 4) return DataType::kUint32;
    if (size == 8) return DataType::kUint64;
  } else if (kind == 'b') {
    return DataType::kBool;
  } else if (kind == 'c') {
    if (size == 8) return DataType::kComplex64;
    if (size == 16) return DataType::kComplex128;
  } else if (kind == 'O' || kind == 'U' || kind == 'S') {
    return DataType::kString;
  }
  return InvalidArgument("numpy dtype '" + std::string(py::str(static_cast<const py::handle&>(d))) + "' has no ONNX element type");
}

// Holds a numpy array for a tensor that borrows its memory; the last holder may let go of it on a thread without
// the GIL (PySession::Run keeps its own references until it has the GIL back, so normally it does not).
std::shared_ptr<void> KeepArray(const py::array& array) {
  return std::shared_ptr<void>(new py::object(array), [](void* p) {
    py::gil_scoped_acquire gil;
    delete static_cast<py::object*>(p);
  });
}

// The array as a tensor: its memory borrowed where `borrowed` is given and the array is C-contiguous and aligned
// (a decoder's past key/values: megabytes a step that a copy would move), else copied. Borrowed tensors are
// appended to *borrowed, whose references also keep the session from computing in place into them.
Result<Tensor> TensorFromArray(py::array array, const std::string& name, std::vector<Tensor>* borrowed) {
  ONYX_ASSIGN_OR_RETURN(DataType type, FromNumpyDtype(array.dtype()));
  Shape shape(array.shape(), array.shape() + array.ndim());
  const bool contiguous_now = (array.flags() & py::array::c_style) != 0;
  const auto address = reinterpret_cast<uintptr_t>(array.data());
  const size_t item = static_cast<size_t>(array.itemsize());
  if (borrowed != nullptr && type != DataType::kString && contiguous_now && item > 0 && address % item == 0) {
    auto count = CheckedNumElements(shape);
    if (!count.ok()) return count.status().WithContext("input '" + name + "'");
    Tensor t = Tensor::Borrow(type, std::move(shape), const_cast<void*>(array.data()), KeepArray(array));
    borrowed->push_back(t);
    return t;
  }
  auto created = Tensor::Create(type, shape);
  if (!created.ok()) return created.status().WithContext("input '" + name + "'");
  Tensor t = std::move(created).value();
  if (type == DataType::kString) {
    py::list flat = array.attr("ravel")().attr("tolist")();
    for (size_t i = 0; i < flat.size(); ++i) {
      py::handle item = flat[i];
      if (py::isinstance<py::bytes>(item)) {
        t.data<std::string>()[i] = item.cast<std::string>();
      } else if (py::isinstance<py::str>(item)) {
        t.data<std::string>()[i] = item.cast<std::string>();
      } else {
        return InvalidArgument("input '" + name + "': string tensors need str or bytes items, got " +
                               std::string(py::str(item.get_type())));
      }
    }
    return t;
  }
  py::array contiguous = py::array::ensure(array, py::array::c_style);
  if (t.nbytes() > 0) std::memcpy(t.raw(), contiguous.data(), t.nbytes());
  return t;
}

py::object TensorToPython(const Tensor& t) {
  std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
  if (t.type() == DataType::kString) {
    py::array out(py::dtype("O"), shape);
    auto* cells = static_cast<PyObject**>(out.mutable_data());
    for (int64_t i = 0; i < t.size(); ++i) {
      py::str s(t.data<std::string>()[i]);
      Py_XDECREF(cells[i]);
      cells[i] = s.release().ptr();
    }
    return out;
  }
  if (t.type() == DataType::kBFloat16) {
    py::array_t<float> out(shape);
    for (int64_t i = 0; i < t.size(); ++i) out.mutable_data()[i] = static_cast<float>(t.data<BFloat16>()[i]);
    return out;
  }
  if (IsFloat8(t.type()) || IsSubByte(t.type())) {
    Raise(Unsupported("element type " + std::string(DataTypeName(t.type())) + " has no numpy equivalent"));
  }
  // Zero-copy: the array keeps the tensor's storage alive through a capsule.
  auto* keeper = new Tensor(t);
  py::capsule owner(keeper, [](void* p) { delete static_cast<Tensor*>(p); });
  return py::array(NumpyDtype(t.type()), shape, keeper->raw(), owner);
}

py::object ValueToPython(const Value& v) {
  if (v.is_none() || v.empty()) return py::none();
  if (v.is_tensor()) return TensorToPython(v.tensor());
  if (v.is_sequence()) {
    py::list l;
    for (const auto& item : v.sequence().items) l.append(ValueToPython(item));
    return l;
  }
  py::dict d;
  const MapValue& m = v.map();
  for (int64_t i = 0; i < m.keys.size(); ++i) {
    py::object key = m.keys.type() == DataType::kString ? py::object(py::str(m.keys.data<std::string>()[i]))
                                                        : py::object(py::int_(m.keys.IntAt(i)));
    d[key] = m.values.type() == DataType::kString ? py::object(py::str(m.values.data<std::string>()[i]))
                                                  : py::object(py::float_(m.values.DoubleAt(i)));
  }
  return d;
}

Result<Value> ValueFromPython(py::handle obj, const std::string& name, std::vector<Tensor>* borrowed = nullptr) {
  if (obj.is_none()) return Value::None();
  if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) {
    SequenceValue seq;
    for (py::handle item : obj) {
      ONYX_ASSIGN_OR_RETURN(Value v, ValueFromPython(item, name, borrowed));
      if (v.is_tensor()) seq.elem_type = v.tensor().type();
      seq.items.push_back(std::move(v));
    }
    return Value(std::move(seq));
  }
  py::array array = py::array::ensure(obj);
  if (!array) return InvalidArgument("input '" + name + "' is not a numpy array, list or None");
  ONYX_ASSIGN_OR_RETURN(Tensor t, TensorFromArray(array, name, borrowed));
  return Value(std::move(t));
}

void DetachFrom(const std::vector<Tensor>& borrowed, Value& value) {
  if (value.is_tensor()) {
    for (const Tensor& b : borrowed) {
      if (value.tensor().shares_storage_with(b)) {
        value = Value(value.tensor().Clone());
        return;
      }
    }
  } else if (value.is_sequence()) {
    for (Value& item : value.sequence().items) DetachFrom(borrowed, item);
  }
}

struct PyNodeArg {
  std::string name;
  py::list shape;
  std::string type;
};

PyNodeArg MakeNodeArg(const ir::ValueInfo& vi) {
  PyNodeArg a;
  a.name = vi.name;
  if (vi.type) {
    a.type = vi.type->ToString();
    if (vi.type->shape) {
      for (const auto& d : *vi.type->shape) {
        if (d.is_value()) {
          a.shape.append(py::int_(d.value));
        } else if (d.is_param()) {
          a.shape.append(py::str(d.param));
        } else {
          a.shape.append(py::none());
        }
      }
    }
  }
  return a;
}

class PySession {
 public:
  // ort_summation_order: -1 unset (on at level disabled), 0 off, 1 on (SessionOptions::ort_summation_order).
  PySession(const ir::Model& model, int threads, int optimization_level, const std::string& optimized_model_path,
            int ort_summation_order) {
    SessionOptions so;
    so.intra_op_num_threads = threads;
    so.optimization_level = Unwrap(optimizer::OptLevelFromInt(optimization_level));
    so.optimized_model_path = optimized_model_path;
    if (ort_summation_order >= 0) so.ort_summation_order = ort_summation_order != 0;
    session_ = Unwrap(Session::Create(model, so));
  }

  py::list Run(std::optional<std::vector<std::string>> output_names, py::dict feed) {
    std::vector<Tensor> borrowed;  // inputs over the caller's arrays, held (with the GIL) until the outputs are out
    std::vector<std::pair<std::string, Value>> feeds;
    const auto& graph_inputs = session_->model().graph.inputs;
    for (auto [k, v] : feed) {
      std::string name = py::str(k);
      Value value = Unwrap(ValueFromPython(v, name, &borrowed));
      // numpy has no bfloat16: a uint16 array fed to a bfloat16 input carries the bit patterns.
      for (const auto& in : graph_inputs) {
        if (in.name == name && in.type && in.type->is_tensor() && in.type->elem_type == DataType::kBFloat16 &&
            value.is_tensor() && value.tensor().type() == DataType::kUint16) {
          value = Value(Unwrap(value.tensor().ReinterpretAs(DataType::kBFloat16)));
        }
      }
      feeds.emplace_back(name, std::move(value));
    }
    std::vector<Value> outputs;
    Status st;
    {
      py::gil_scoped_release release;
      st = session_->Run(feeds, output_names.value_or(std::vector<std::string>{}), &outputs);
    }
    feeds.clear();
    if (!st.ok()) Raise(st);
    // An output that still shares an input's memory (an Identity of an input) is copied, as onnxruntime returns
    // arrays of their own: writing to the input array afterwards must not change it.
    for (auto& v : outputs) DetachFrom(borrowed, v);
    py::list out;
    for (const auto& v : outputs) out.append(ValueToPython(v));
    return out;
  }

  std::vector<PyNodeArg> Inputs() const {
    std::vector<PyNodeArg> out;
    for (const auto* in : session_->model().graph.RealInputs()) out.push_back(MakeNodeArg(*in));
    return out;
  }
  std::vector<PyNodeArg> Outputs() const {
    std::vector<PyNodeArg> out;
    for (const auto& o : session_->outputs()) out.push_back(MakeNodeArg(o));
    return out;
  }
  std::vector<PyNodeArg> OverridableInitializers() const {
    std::vector<PyNodeArg> out;
    const auto& g = session_->model().graph;
    for (const auto& in : g.inputs) {
      if (g.FindInitializer(in.name) != nullptr) out.push_back(MakeNodeArg(in));
    }
    return out;
  }
  const ir::Model& model() const { return session_->model(); }

 private:
  std::unique_ptr<Session> session_;
};

ir::Model LoadFromPython(py::object source) {
  if (py::isinstance<py::bytes>(source)) {
    std::string bytes = source.cast<std::string>();
    return Unwrap(format::LoadModelFromBytes(bytes, "."));
  }
  return Unwrap(format::LoadModel(py::str(source)));
}

}  // namespace
}  // namespace onyx::python

PYBIND11_MODULE(_onyx, m) {
  using namespace onyx;
  using namespace onyx::python;
  m.doc() = "onyx: ONNX models in C++ (native part; use the onyx package)";

  static py::exception<std::runtime_error> error(m, "OnyxError", PyExc_RuntimeError);
  static py::exception<std::runtime_error> invalid(m, "InvalidArgument", error.ptr());
  static py::exception<std::runtime_error> not_impl(m, "NotImplemented", error.ptr());
  g_error = error.ptr();
  g_invalid_argument = invalid.ptr();
  g_not_implemented = not_impl.ptr();

  py::class_<PyNodeArg>(m, "NodeArg")
      .def_readonly("name", &PyNodeArg::name)
      .def_readonly("shape", &PyNodeArg::shape)
      .def_readonly("type", &PyNodeArg::type)
      .def("__repr__", [](const PyNodeArg& a) {
        return "NodeArg(name='" + a.name + "', type='" + a.type + "', shape=" + std::string(py::repr(a.shape)) + ")";
      });

  py::class_<ir::Model>(m, "Model", "A loaded ONNX model (onyx's in-memory IR).")
      .def_readonly("ir_version", &ir::Model::ir_version)
      .def_readonly("producer_name", &ir::Model::producer_name)
      .def_readonly("producer_version", &ir::Model::producer_version)
      .def_readonly("domain", &ir::Model::domain)
      .def_readonly("model_version", &ir::Model::model_version)
      .def_readonly("doc_string", &ir::Model::doc_string)
      .def_property_readonly("graph_name", [](const ir::Model& mo) { return mo.graph.name; })
      .def_property_readonly("opset_import",
                             [](const ir::Model& mo) {
                               std::map<std::string, int64_t> d;
                               for (const auto& o : mo.opset_import) d[o.domain] = o.version;
                               return d;
                             })
      .def_property_readonly("metadata_props",
                             [](const ir::Model& mo) {
                               std::map<std::string, std::string> d(mo.metadata_props.begin(), mo.metadata_props.end());
                               return d;
                             })
      .def_property_readonly("inputs",
                             [](const ir::Model& mo) {
                               std::vector<PyNodeArg> v;
                               for (const auto* i : mo.graph.RealInputs()) v.push_back(MakeNodeArg(*i));
                               return v;
                             })
      .def_property_readonly("outputs",
                             [](const ir::Model& mo) {
                               std::vector<PyNodeArg> v;
                               for (const auto& o : mo.graph.outputs) v.push_back(MakeNodeArg(o));
                               return v;
                             })
      .def_property_readonly("operators", [](const ir::Model& mo) { return ir::OperatorHistogram(mo.graph); })
      .def("SerializeToString", [](const ir::Model& mo) { return py::bytes(Unwrap(format::SerializeModel(mo))); });

  m.def("load_model", &LoadFromPython, py::arg("path_or_bytes"));
  m.def(
      "save_model",
      [](const ir::Model& model, const std::string& path, int64_t external_threshold) {
        format::SaveOptions so;
        so.external_data_threshold = external_threshold;
        Status st = format::SaveModel(model, path, so);
        if (!st.ok()) Raise(st);
      },
      py::arg("model"), py::arg("path"), py::arg("external_data_threshold") = -1);
  m.def("check_model", [](const ir::Model& model) {
    std::vector<std::string> problems;
    for (const auto& p : checker::CheckModel(model)) problems.push_back(p.ToString());
    return problems;
  });
  m.def(
      "convert_model",
      [](const std::string& path, int64_t opset) {
        // The conversion runs without the GIL; errors become Python exceptions once it is held again.
        Result<ir::Model> model = [&] {
          py::gil_scoped_release release;
          return convert::ConvertFile(path, opset);
        }();
        return Unwrap(std::move(model));
      },
      py::arg("path"), py::arg("opset") = 17);
  m.def(
      "quantize_model",
      [](const std::string& input, const std::string& output, const std::string& mode, const std::string& calibration,
         bool per_channel, bool reduce_range, const std::string& activation_type, const std::string& method,
         double percentile, int max_samples, const std::vector<std::string>& op_types,
         const std::vector<std::string>& exclude, int bits, int block, int threads, bool prepare, bool bias_correction,
         const std::string& quant_format) {
        // onyx.quantize(): the options as `onyx quantize` takes them; returns the report as JSON text.
        quantize::QuantizeOptions o;
        if (mode == "dynamic")
          o.mode = quantize::Mode::kDynamic;
        else if (mode == "static")
          o.mode = quantize::Mode::kStatic;
        else if (mode == "weight-only" || mode == "weight_only")
          o.mode = quantize::Mode::kWeightOnly;
        else
          Raise(InvalidArgument("mode must be 'dynamic', 'static' or 'weight-only', got '" + mode + "'"));
        if (method == "minmax")
          o.method = quantize::CalibrationMethod::kMinMax;
        else if (method == "percentile")
          o.method = quantize::CalibrationMethod::kPercentile;
        else if (method == "entropy")
          o.method = quantize::CalibrationMethod::kEntropy;
        else
          Raise(InvalidArgument("calibrate_method must be 'minmax', 'percentile' or 'entropy', got '" + method + "'"));
        if (activation_type == "uint8")
          o.activation_type = DataType::kUint8;
        else if (activation_type == "int8")
          o.activation_type = DataType::kInt8;
        else
          Raise(InvalidArgument("activation_type must be 'uint8' or 'int8', got '" + activation_type + "'"));
        if (quant_format == "QDQ" || quant_format == "qdq")
          o.format = quantize::Format::kQdq;
        else if (quant_format == "QOperator" || quant_format == "qoperator")
          o.format = quantize::Format::kQOperator;
        else
          Raise(InvalidArgument("quant_format must be 'QDQ' or 'QOperator', got '" + quant_format + "'"));
        o.calibration_dir = calibration;
        o.per_channel = per_channel;
        o.reduce_range = reduce_range;
        o.percentile = percentile;
        o.max_samples = max_samples;
        o.op_types = op_types;
        o.exclude = exclude;
        o.bits = bits;
        o.block = block;
        o.threads = threads;
        o.prepare = prepare;
        o.bias_correction = bias_correction;
        Result<quantize::QuantizeReport> report = [&] {
          py::gil_scoped_release release;
          return quantize::QuantizeFile(input, output, o);
        }();
        return quantize::ReportToJson(Unwrap(std::move(report)));
      },
      py::arg("input"), py::arg("output"), py::arg("mode"), py::arg("calibration"), py::arg("per_channel"),
      py::arg("reduce_range"), py::arg("activation_type"), py::arg("calibrate_method"), py::arg("percentile"),
      py::arg("max_samples"), py::arg("op_types"), py::arg("exclude"), py::arg("bits"), py::arg("block"),
      py::arg("threads"), py::arg("prepare") = true, py::arg("bias_correction") = true,
      py::arg("quant_format") = "QDQ");
  m.def("to_text", [](const ir::Model& model) { return text::PrintModel(model); });
  m.def("parse_text", [](const std::string& s) { return Unwrap(text::ParseModel(s)); });

  py::class_<PySession>(m, "Session")
      .def(py::init<const ir::Model&, int, int, const std::string&, int>(), py::arg("model"), py::arg("threads") = 0,
           py::arg("optimization_level") = 99, py::arg("optimized_model_path") = "",
           py::arg("ort_summation_order") = -1)
      .def("run", &PySession::Run, py::arg("output_names"), py::arg("input_feed"))
      .def("inputs", &PySession::Inputs)
      .def("outputs", &PySession::Outputs)
      .def("overridable_initializers", &PySession::OverridableInitializers)
      .def_property_readonly("model", &PySession::model, py::return_value_policy::reference_internal);
}
