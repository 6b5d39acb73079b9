/* The `touche` Python module: a thin CPython binding of the public C API (include/touche/).
 *
 * Objects: Spec (an editable scene, from MJCF), Model (compiled, immutable), Data (the state a
 * step advances). Data's state arrays are numpy views of the C arrays, without copies; each view
 * holds a guard that keeps its Data alive, and Data.close() refuses (BufferError) while any view
 * is alive, so a view can never see freed memory; after close() every access raises ValueError.
 * Contacts, pair results and patches are copied into structured arrays (their C buffers may
 * grow, and move, in any step). Data.step releases the GIL; a Data is stepped by one thread at a
 * time (a second one gets RuntimeError). Library failures raise touche.Error, which carries the
 * library's status, message, file, line and element; a diverged step raises
 * touche.DivergedError, a subclass. docs/python.md. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <stddef.h>
#include <string.h>

#include "touche/touche.h"

_Static_assert(sizeof(tch_contact_model) == 4, "enums are stored as int32 in the dtypes");
_Static_assert(sizeof(tch_transform) == 7 * sizeof(double), "a transform is 7 packed doubles");

static PyObject* touche_error_type;    /* touche.Error */
static PyObject* diverged_error_type;  /* touche.DivergedError(touche.Error) */
static PyArray_Descr* contact_dtype;   /* tch_contact */
static PyArray_Descr* pair_dtype;      /* tch_pair_result (without the full params) */
static PyArray_Descr* polygon_dtype;   /* tch_contact_polygon */

static PyTypeObject SpecType, ModelType, DataType, ViewGuardType;

/* ---- errors ---- */

static tch_error error_cleared(void) {
    tch_error err;
    err.status = TCH_OK;
    err.message[0] = err.file[0] = err.element[0] = '\0';
    err.line = 0;
    return err;
}

/* Raises touche.Error (DivergedError for TCH_ERR_DIVERGED) from a filled tch_error, with the
 * text "file:line: <element> message" and the parts as attributes. Returns NULL. */
static PyObject* raise_library_error(const tch_error* err) {
    PyObject* type = err->status == TCH_ERR_DIVERGED ? diverged_error_type : touche_error_type;
    char where[300] = "", tag[80] = "";
    if (err->file[0] && err->line > 0) {
        snprintf(where, sizeof where, "%s:%d: ", err->file, err->line);
    } else if (err->file[0]) {
        snprintf(where, sizeof where, "%s: ", err->file);
    }
    /* The element as a tag, unless the message already starts with it. */
    if (err->element[0] && err->message[0] != '<') {
        snprintf(tag, sizeof tag, "<%s> ", err->element);
    }
    PyObject* text = PyUnicode_FromFormat("%s%s%s", where, tag, err->message);
    if (!text) return NULL;
    PyObject* exc = PyObject_CallOneArg(type, text);
    Py_DECREF(text);
    if (!exc) return NULL;
    PyObject* status = PyUnicode_FromString(tch_status_name(err->status));
    PyObject* code = PyLong_FromLong((long)err->status);
    PyObject* message = PyUnicode_FromString(err->message);
    PyObject* file = PyUnicode_FromString(err->file);
    PyObject* line = PyLong_FromLong(err->line);
    PyObject* element = PyUnicode_FromString(err->element);
    int failed = !status || !code || !message || !file || !line || !element ||
                 PyObject_SetAttrString(exc, "status", status) < 0 ||
                 PyObject_SetAttrString(exc, "code", code) < 0 ||
                 PyObject_SetAttrString(exc, "message", message) < 0 ||
                 PyObject_SetAttrString(exc, "file", file) < 0 ||
                 PyObject_SetAttrString(exc, "line", line) < 0 ||
                 PyObject_SetAttrString(exc, "element", element) < 0;
    Py_XDECREF(status);
    Py_XDECREF(code);
    Py_XDECREF(message);
    Py_XDECREF(file);
    Py_XDECREF(line);
    Py_XDECREF(element);
    if (!failed) PyErr_SetObject(type, exc);
    Py_DECREF(exc);
    return NULL;
}

/* A setter's refusal of `del object.name` (value NULL): 1 with AttributeError set. */
static int refuse_delete(PyObject* value, const char* name) {
    if (value) return 0;
    PyErr_Format(PyExc_AttributeError, "cannot delete %s", name);
    return 1;
}

static int parse_contact_model(PyObject* name, tch_contact_model* out) {
    const char* text = PyUnicode_AsUTF8(name);
    if (!text) return -1;
    if (!tch_contact_model_parse(text, out)) {
        PyErr_Format(PyExc_ValueError,
                     "unknown contact model '%s'; expected point, volume, pressure, lcp or peg",
                     text);
        return -1;
    }
    return 0;
}

/* ---- array helpers ---- */

/* A numpy array over memory owned by `base` (a reference is stolen), or NULL. */
static PyObject* array_over(PyObject* base, int nd, const npy_intp* dims, const npy_intp* strides,
                            int type, void* memory, int writable) {
    PyObject* array = PyArray_New(&PyArray_Type, nd, (npy_intp*)dims, type, (npy_intp*)strides,
                                  memory, 0, writable ? NPY_ARRAY_WRITEABLE : 0, NULL);
    if (!array) {
        Py_DECREF(base);
        return NULL;
    }
    if (PyArray_SetBaseObject((PyArrayObject*)array, base) < 0) {
        Py_DECREF(array);
        return NULL;
    }
    return array;
}

/* A new array holding a copy of `count` records of `size` bytes with the given dtype. */
static PyObject* records_copy(PyArray_Descr* dtype, const void* records, int count) {
    npy_intp dims[1] = {count};
    Py_INCREF(dtype);
    PyObject* array = PyArray_Empty(1, dims, dtype, 0);
    if (array && count > 0) {
        memcpy(PyArray_DATA((PyArrayObject*)array), records,
               (size_t)count * (size_t)PyArray_ITEMSIZE((PyArrayObject*)array));
    }
    return array;
}

static PyObject* doubles_copy(const double* values, int rows, int columns) {
    npy_intp dims[2] = {rows, columns};
    PyObject* array = PyArray_SimpleNew(columns > 0 ? 2 : 1, dims, NPY_DOUBLE);
    if (array && rows > 0) {
        memcpy(PyArray_DATA((PyArrayObject*)array), values,
               (size_t)rows * (size_t)(columns > 0 ? columns : 1) * sizeof(double));
    }
    return array;
}

static PyObject* ints_copy(const int* values, int count) {
    npy_intp dims[1] = {count};
    PyObject* array = PyArray_SimpleNew(1, dims, NPY_INT32);
    if (array && count > 0) {
        memcpy(PyArray_DATA((PyArrayObject*)array), values, (size_t)count * sizeof(int));
    }
    return array;
}

static PyObject* vec3_tuple(tch_vec3 v) { return Py_BuildValue("(ddd)", v.x, v.y, v.z); }

/* Reads a sequence of `count` floats into out. */
static int read_doubles(PyObject* object, double* out, int count, const char* what) {
    PyObject* array = PyArray_FROMANY(object, NPY_DOUBLE, 1, 1, NPY_ARRAY_IN_ARRAY);
    if (!array) return -1;
    if (PyArray_SIZE((PyArrayObject*)array) != count) {
        PyErr_Format(PyExc_ValueError, "%s needs %d numbers, got %zd", what, count,
                     (Py_ssize_t)PyArray_SIZE((PyArrayObject*)array));
        Py_DECREF(array);
        return -1;
    }
    memcpy(out, PyArray_DATA((PyArrayObject*)array), (size_t)count * sizeof(double));
    Py_DECREF(array);
    return 0;
}

/* A structured dtype over a C struct: fields (name, numpy format, byte offset). */
typedef struct field_layout {
    const char* name;
    const char* format;
    size_t offset;
} field_layout;

static PyArray_Descr* struct_dtype(const field_layout* fields, int count, size_t itemsize) {
    PyObject* names = PyList_New(count);
    PyObject* formats = PyList_New(count);
    PyObject* offsets = PyList_New(count);
    PyArray_Descr* dtype = NULL;
    if (names && formats && offsets) {
        for (int i = 0; i < count; ++i) {
            PyList_SET_ITEM(names, i, PyUnicode_FromString(fields[i].name));
            PyList_SET_ITEM(formats, i, PyUnicode_FromString(fields[i].format));
            PyList_SET_ITEM(offsets, i, PyLong_FromSize_t(fields[i].offset));
        }
        PyObject* spec = Py_BuildValue("{sOsOsOsn}", "names", names, "formats", formats,
                                       "offsets", offsets, "itemsize", (Py_ssize_t)itemsize);
        if (spec && !PyArray_DescrConverter(spec, &dtype)) dtype = NULL;
        Py_XDECREF(spec);
    }
    Py_XDECREF(names);
    Py_XDECREF(formats);
    Py_XDECREF(offsets);
    return dtype;
}

#define FIELD(type, name, format, member) {name, format, offsetof(type, member)}

static int make_dtypes(void) {
    static const field_layout contact[] = {
        FIELD(tch_contact, "geom_a", "i4", geom_a), FIELD(tch_contact, "geom_b", "i4", geom_b),
        FIELD(tch_contact, "model", "i4", model),   FIELD(tch_contact, "p", "(3,)f8", p_W),
        FIELD(tch_contact, "n", "(3,)f8", n_W),     FIELD(tch_contact, "depth", "f8", depth),
        FIELD(tch_contact, "f", "(3,)f8", f_W),
    };
    static const field_layout pair[] = {
        FIELD(tch_pair_result, "geom_a", "i4", geom_a),
        FIELD(tch_pair_result, "geom_b", "i4", geom_b),
        FIELD(tch_pair_result, "model", "i4", model),
        FIELD(tch_pair_result, "contact_start", "i4", contact_start),
        FIELD(tch_pair_result, "contact_count", "i4", contact_count),
        FIELD(tch_pair_result, "f", "(3,)f8", f_W),
        FIELD(tch_pair_result, "tau", "(3,)f8", tau_Wo_W),
        FIELD(tch_pair_result, "friction", "f8", params.friction),
        FIELD(tch_pair_result, "stiffness", "f8", params.stiffness),
        FIELD(tch_pair_result, "damping", "f8", params.damping),
        FIELD(tch_pair_result, "polygon_start", "i4", polygon_start),
        FIELD(tch_pair_result, "polygon_count", "i4", polygon_count),
        FIELD(tch_pair_result, "area", "f8", area),
        FIELD(tch_pair_result, "volume", "f8", volume),
        FIELD(tch_pair_result, "max_pressure", "f8", max_pressure),
        FIELD(tch_pair_result, "elastic_energy", "f8", elastic_energy),
    };
    static const field_layout polygon[] = {
        FIELD(tch_contact_polygon, "vertex_start", "i4", vertex_start),
        FIELD(tch_contact_polygon, "vertex_count", "i4", vertex_count),
        FIELD(tch_contact_polygon, "n", "(3,)f8", n_W),
    };
    contact_dtype = struct_dtype(contact, sizeof contact / sizeof contact[0], sizeof(tch_contact));
    pair_dtype = struct_dtype(pair, sizeof pair / sizeof pair[0], sizeof(tch_pair_result));
    polygon_dtype =
        struct_dtype(polygon, sizeof polygon / sizeof polygon[0], sizeof(tch_contact_polygon));
    return contact_dtype && pair_dtype && polygon_dtype ? 0 : -1;
}

/* ==== Spec ==== */

typedef struct {
    PyObject_HEAD tch_spec* spec;
} SpecObject;

static PyObject* spec_wrap(tch_spec* spec) {
    SpecObject* self = PyObject_New(SpecObject, &SpecType);
    if (!self) {
        tch_spec_destroy(spec);
        return NULL;
    }
    self->spec = spec;
    return (PyObject*)self;
}

static void Spec_dealloc(SpecObject* self) {
    tch_spec_destroy(self->spec);
    PyObject_Free(self);
}

static PyObject* spec_from_file(const char* path) {
    tch_spec* spec = NULL;
    tch_error err = error_cleared();
    tch_status status;
    Py_BEGIN_ALLOW_THREADS
    status = tch_mjcf_load(path, &spec, &err);
    Py_END_ALLOW_THREADS
    if (status != TCH_OK) return raise_library_error(&err);
    return spec_wrap(spec);
}

static PyObject* spec_from_string(const char* xml, const char* base_dir, const char* name) {
    tch_spec* spec = NULL;
    tch_error err = error_cleared();
    tch_status status;
    Py_BEGIN_ALLOW_THREADS
    status = tch_mjcf_load_string(xml, base_dir, name, &spec, &err);
    Py_END_ALLOW_THREADS
    if (status != TCH_OK) return raise_library_error(&err);
    return spec_wrap(spec);
}

static PyObject* Spec_load(PyObject* cls, PyObject* args) {
    (void)cls;
    PyObject* path = NULL;
    if (!PyArg_ParseTuple(args, "O&:load", PyUnicode_FSConverter, &path)) return NULL;
    PyObject* spec = spec_from_file(PyBytes_AS_STRING(path));
    Py_DECREF(path);
    return spec;
}

static PyObject* Spec_from_string(PyObject* cls, PyObject* args, PyObject* kwargs) {
    (void)cls;
    static char* keywords[] = {"xml", "base_dir", "name", NULL};
    const char *xml = NULL, *base_dir = NULL, *name = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s|zz:from_string", keywords, &xml,
                                     &base_dir, &name)) {
        return NULL;
    }
    return spec_from_string(xml, base_dir, name);
}

static PyObject* Spec_force_contact_model(SpecObject* self, PyObject* name) {
    tch_contact_model model = TCH_CONTACT_INHERIT;
    if (name != Py_None && parse_contact_model(name, &model) < 0) return NULL;
    tch_spec_force_contact_model(self->spec, model);
    Py_RETURN_NONE;
}

static PyObject* Spec_compile(SpecObject* self, PyObject* unused);

static PyObject* Spec_save(SpecObject* self, PyObject* args, PyObject* kwargs) {
    static char* keywords[] = {"path", "touche_attributes", NULL};
    PyObject* path = NULL;
    int touche_attributes = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|p:save", keywords, PyUnicode_FSConverter,
                                     &path, &touche_attributes)) {
        return NULL;
    }
    tch_error err = error_cleared();
    tch_status status = tch_mjcf_save(self->spec, PyBytes_AS_STRING(path), touche_attributes, &err);
    Py_DECREF(path);
    if (status != TCH_OK) return raise_library_error(&err);
    Py_RETURN_NONE;
}

static PyObject* Spec_get_warnings(SpecObject* self, void* closure) {
    (void)closure;
    int count = tch_spec_warning_count(self->spec);
    PyObject* list = PyList_New(count);
    for (int i = 0; list && i < count; ++i) {
        PyObject* text = PyUnicode_FromString(tch_spec_warning(self->spec, i));
        if (!text) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, text);
    }
    return list;
}

static PyObject* Spec_get_timestep(SpecObject* self, void* closure) {
    (void)closure;
    return PyFloat_FromDouble(tch_spec_option(self->spec)->timestep);
}

static int Spec_set_timestep(SpecObject* self, PyObject* value, void* closure) {
    (void)closure;
    if (refuse_delete(value, "timestep")) return -1;
    double h = PyFloat_AsDouble(value);
    if (h == -1.0 && PyErr_Occurred()) return -1;
    tch_option_def option = *tch_spec_option(self->spec);
    option.timestep = h;
    tch_error err = error_cleared();
    if (tch_spec_set_option(self->spec, &option, &err) != TCH_OK) {
        raise_library_error(&err);
        return -1;
    }
    return 0;
}

static PyObject* Spec_get_body_count(SpecObject* self, void* closure) {
    (void)closure;
    return PyLong_FromLong(tch_spec_body_count(self->spec));
}

static PyObject* Spec_get_geom_count(SpecObject* self, void* closure) {
    (void)closure;
    return PyLong_FromLong(tch_spec_geom_count(self->spec));
}

static PyMethodDef Spec_methods[] = {
    {"load", Spec_load, METH_VARARGS | METH_CLASS,
     "Spec.load(path) -> Spec: reads an MJCF scene file (mesh paths relative to it)."},
    {"from_string", (PyCFunction)(void (*)(void))Spec_from_string,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "Spec.from_string(xml, base_dir=None, name=None) -> Spec: an MJCF scene from a string; "
     "base_dir resolves mesh paths, name is the file name errors give."},
    {"force_contact_model", (PyCFunction)Spec_force_contact_model, METH_O,
     "force_contact_model(name): every pair runs this model ('point', 'volume', 'pressure', "
     "'lcp'); None restores the scene's choice."},
    {"compile", (PyCFunction)Spec_compile, METH_NOARGS, "compile() -> Model."},
    {"save", (PyCFunction)(void (*)(void))Spec_save, METH_VARARGS | METH_KEYWORDS,
     "save(path, touche_attributes=True): writes the scene as MJCF."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Spec_getset[] = {
    {"warnings", (getter)Spec_get_warnings, NULL, "the loader's warnings, 'file:line: message'",
     NULL},
    {"timestep", (getter)Spec_get_timestep, (setter)Spec_set_timestep, "time step, s", NULL},
    {"body_count", (getter)Spec_get_body_count, NULL, "bodies, the world excluded", NULL},
    {"geom_count", (getter)Spec_get_geom_count, NULL, "geoms", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SpecType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "touche.Spec",
    .tp_basicsize = sizeof(SpecObject),
    .tp_dealloc = (destructor)Spec_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An editable scene: Spec.load(path) or Spec.from_string(xml); compile() makes a "
              "Model.",
    .tp_methods = Spec_methods,
    .tp_getset = Spec_getset,
};

/* ==== Model ==== */

typedef struct {
    PyObject_HEAD tch_model* model;
} ModelObject;

static PyObject* Spec_compile(SpecObject* self, PyObject* unused) {
    (void)unused;
    tch_model* model = NULL;
    tch_error err = error_cleared();
    tch_status status;
    /* The GIL stays held: another thread could edit this spec meanwhile. */
    status = tch_compile(self->spec, &model, &err);
    if (status != TCH_OK) return raise_library_error(&err);
    ModelObject* object = PyObject_New(ModelObject, &ModelType);
    if (!object) {
        tch_model_destroy(model);
        return NULL;
    }
    object->model = model;
    return (PyObject*)object;
}

static void Model_dealloc(ModelObject* self) {
    tch_model_destroy(self->model);
    PyObject_Free(self);
}

/* A read-only view of a model array; the model is immutable and lives as long as the view. */
static PyObject* model_view(ModelObject* self, int nd, const npy_intp* dims, int type,
                            const void* memory) {
    Py_INCREF(self);
    return array_over((PyObject*)self, nd, dims, NULL, type, (void*)memory, 0);
}

#define MODEL_VIEW(getter_name, nd, type, memory, ...)                          \
    static PyObject* getter_name(ModelObject* self, void* closure) {            \
        (void)closure;                                                          \
        const tch_model* m = self->model;                                       \
        npy_intp dims[] = {__VA_ARGS__};                                        \
        return model_view(self, nd, dims, type, memory);                        \
    }

MODEL_VIEW(Model_get_body_mass, 1, NPY_DOUBLE, m->body_total_mass, m->body_count)
MODEL_VIEW(Model_get_body_free, 1, NPY_INT32, m->body_free, m->body_count)
MODEL_VIEW(Model_get_body_qpos_adr, 1, NPY_INT32, m->body_qpos_adr, m->body_count)
MODEL_VIEW(Model_get_body_qvel_adr, 1, NPY_INT32, m->body_qvel_adr, m->body_count)
MODEL_VIEW(Model_get_geom_type, 1, NPY_INT32, m->geom_type, m->geom_count)
MODEL_VIEW(Model_get_geom_body, 1, NPY_INT32, m->geom_body, m->geom_count)
MODEL_VIEW(Model_get_geom_size, 2, NPY_DOUBLE, m->geom_size, m->geom_count, 3)
MODEL_VIEW(Model_get_qpos0, 1, NPY_DOUBLE, m->qpos0, m->nq)
MODEL_VIEW(Model_get_key_time, 1, NPY_DOUBLE, m->key_time, m->key_count)
MODEL_VIEW(Model_get_key_qpos, 2, NPY_DOUBLE, m->key_qpos, m->key_count, m->nq)
MODEL_VIEW(Model_get_key_qvel, 2, NPY_DOUBLE, m->key_qvel, m->key_count, m->nv)

static PyObject* names_list(const char (*names)[64], int count) {
    PyObject* list = PyList_New(count);
    for (int i = 0; list && i < count; ++i) {
        PyObject* name = PyUnicode_FromString(names[i]);
        if (!name) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, name);
    }
    return list;
}

static PyObject* Model_get_body_names(ModelObject* self, void* closure) {
    (void)closure;
    return names_list((const char(*)[64])self->model->body_name, self->model->body_count);
}

static PyObject* Model_get_geom_names(ModelObject* self, void* closure) {
    (void)closure;
    return names_list((const char(*)[64])self->model->geom_name, self->model->geom_count);
}

static PyObject* Model_get_key_names(ModelObject* self, void* closure) {
    (void)closure;
    return names_list((const char(*)[64])self->model->key_name, self->model->key_count);
}

#define MODEL_INT(getter_name, member)                                 \
    static PyObject* getter_name(ModelObject* self, void* closure) {   \
        (void)closure;                                                 \
        return PyLong_FromLong(self->model->member);                   \
    }

MODEL_INT(Model_get_body_count, body_count)
MODEL_INT(Model_get_geom_count, geom_count)
MODEL_INT(Model_get_key_count, key_count)
MODEL_INT(Model_get_free_count, free_count)
MODEL_INT(Model_get_nq, nq)
MODEL_INT(Model_get_nv, nv)

static PyObject* Model_get_timestep(ModelObject* self, void* closure) {
    (void)closure;
    return PyFloat_FromDouble(self->model->timestep);
}

static PyObject* Model_get_gravity(ModelObject* self, void* closure) {
    (void)closure;
    return vec3_tuple(self->model->gravity);
}

static PyObject* Model_get_integrator(ModelObject* self, void* closure) {
    (void)closure;
    return PyUnicode_FromString(tch_integrator_description(self->model->integrator));
}

typedef int (*index_lookup)(const tch_model*, const char*);

static PyObject* model_index(ModelObject* self, PyObject* name, index_lookup lookup,
                             const char* what) {
    const char* text = PyUnicode_AsUTF8(name);
    if (!text) return NULL;
    int index = lookup(self->model, text);
    if (index < 0) {
        PyErr_Format(PyExc_KeyError, "the scene has no %s named '%s'", what, text);
        return NULL;
    }
    return PyLong_FromLong(index);
}

static PyObject* Model_body_index(ModelObject* self, PyObject* name) {
    return model_index(self, name, tch_model_body_index, "body");
}

static PyObject* Model_geom_index(ModelObject* self, PyObject* name) {
    return model_index(self, name, tch_model_geom_index, "geom");
}

static PyObject* Model_key_index(ModelObject* self, PyObject* name) {
    return model_index(self, name, tch_model_key_index, "keyframe");
}

static PyObject* Model_pair_params(ModelObject* self, PyObject* args) {
    int a = 0, b = 0;
    if (!PyArg_ParseTuple(args, "ii:pair_params", &a, &b)) return NULL;
    if (a < 0 || b < 0 || a >= self->model->geom_count || b >= self->model->geom_count) {
        PyErr_Format(PyExc_IndexError, "geom indices must be in [0, %d), got %d and %d",
                     self->model->geom_count, a, b);
        return NULL;
    }
    tch_pair_params p = tch_model_pair_params(self->model, a, b);
    PyObject* dict = Py_BuildValue("{ssss}", "model", tch_contact_model_name(p.model), "requested",
                                   tch_contact_model_name(p.requested));
    if (!dict) return NULL;
#define TCH_PUT_PARAM(field, positive, combine, doc)                         \
    if (dict) {                                                              \
        PyObject* value = PyFloat_FromDouble(p.field);                       \
        if (!value || PyDict_SetItemString(dict, #field, value) < 0) {       \
            Py_CLEAR(dict);                                                  \
        }                                                                    \
        Py_XDECREF(value);                                                   \
    }
    TCH_CONTACT_REAL_PARAMS(TCH_PUT_PARAM)
#undef TCH_PUT_PARAM
    return dict;
}

/* geom_tetmesh(g): the pressure model's tet mesh of a compliant geom as read-only views. */
static PyObject* Model_geom_tetmesh(ModelObject* self, PyObject* index) {
    long g = PyLong_AsLong(index);
    if (g == -1 && PyErr_Occurred()) return NULL;
    if (g < 0 || g >= self->model->geom_count) {
        PyErr_Format(PyExc_IndexError, "geom %ld out of range [0, %d)", g,
                     self->model->geom_count);
        return NULL;
    }
    double modulus = 0;
    const tch_tetmesh* mesh = tch_model_geom_tetmesh(self->model, (int)g, &modulus);
    if (!mesh) Py_RETURN_NONE;
    npy_intp vertices[2] = {tch_tetmesh_vertex_count(mesh), 3};
    npy_intp tets[2] = {tch_tetmesh_tet_count(mesh), 4};
    return Py_BuildValue("{sNsNsNsd}", "vertices",
                         model_view(self, 2, vertices, NPY_DOUBLE, tch_tetmesh_vertices(mesh)),
                         "tets", model_view(self, 2, tets, NPY_INT32, tch_tetmesh_tets(mesh)),
                         "epsilon",
                         model_view(self, 1, vertices, NPY_DOUBLE, tch_tetmesh_epsilon(mesh)),
                         "modulus", modulus);
}

static PyObject* Data_new_for(ModelObject* model);

static PyObject* Model_make_data(ModelObject* self, PyObject* unused) {
    (void)unused;
    return Data_new_for(self);
}

static PyMethodDef Model_methods[] = {
    {"body_index", (PyCFunction)Model_body_index, METH_O, "body_index(name) -> int (KeyError)"},
    {"geom_index", (PyCFunction)Model_geom_index, METH_O, "geom_index(name) -> int (KeyError)"},
    {"key_index", (PyCFunction)Model_key_index, METH_O, "key_index(name) -> int (KeyError)"},
    {"pair_params", (PyCFunction)Model_pair_params, METH_VARARGS,
     "pair_params(geom_a, geom_b) -> dict: the resolved contact parameters of a geom pair."},
    {"make_data", (PyCFunction)Model_make_data, METH_NOARGS, "make_data() -> Data(self)."},
    {"geom_tetmesh", (PyCFunction)Model_geom_tetmesh, METH_O,
     "geom_tetmesh(geom) -> {'vertices', 'tets', 'epsilon', 'modulus'} or None: the pressure "
     "model's tet mesh of a compliant geom, in the geom frame (read-only views); its pressure "
     "field is modulus * epsilon, Pa."},
    {NULL, NULL, 0, NULL},
};

#define GET(name, function, doc) {name, (getter)function, NULL, doc, NULL}

static PyGetSetDef Model_getset[] = {
    GET("body_count", Model_get_body_count, "bodies, the world (body 0) included"),
    GET("geom_count", Model_get_geom_count, "geoms"),
    GET("key_count", Model_get_key_count, "keyframes"),
    GET("free_count", Model_get_free_count, "free bodies"),
    GET("nq", Model_get_nq, "length of qpos: 7 per free body"),
    GET("nv", Model_get_nv, "length of qvel: 6 per free body"),
    GET("timestep", Model_get_timestep, "time step, s"),
    GET("gravity", Model_get_gravity, "gravity, m/s^2, world"),
    GET("integrator", Model_get_integrator, "the integrator, described"),
    GET("body_names", Model_get_body_names, "list of body names ('world' first)"),
    GET("geom_names", Model_get_geom_names, "list of geom names ('' when unnamed)"),
    GET("key_names", Model_get_key_names, "list of keyframe names"),
    GET("body_mass", Model_get_body_mass, "[body_count] mass of each free body's welded "
                                          "subtree, kg (read-only view)"),
    GET("body_free", Model_get_body_free, "[body_count] 1 for free bodies"),
    GET("body_qpos_adr", Model_get_body_qpos_adr, "[body_count] address in qpos, or -1"),
    GET("body_qvel_adr", Model_get_body_qvel_adr, "[body_count] address in qvel, or -1"),
    GET("geom_type", Model_get_geom_type, "[geom_count] MuJoCo geom type numbers"),
    GET("geom_body", Model_get_geom_body, "[geom_count] body of each geom"),
    GET("geom_size", Model_get_geom_size, "[geom_count, 3] sizes, m"),
    GET("qpos0", Model_get_qpos0, "[nq] the initial state's qpos"),
    GET("key_time", Model_get_key_time, "[key_count] keyframe times, s"),
    GET("key_qpos", Model_get_key_qpos, "[key_count, nq]"),
    GET("key_qvel", Model_get_key_qvel, "[key_count, nv] (angular velocity in the body frame)"),
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ModelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "touche.Model",
    .tp_basicsize = sizeof(ModelObject),
    .tp_dealloc = (destructor)Model_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A compiled scene, immutable: touche.load(path) or Spec.compile().",
    .tp_methods = Model_methods,
    .tp_getset = Model_getset,
};

/* ==== Data ==== */

typedef struct {
    PyObject_HEAD tch_data* data;
    ModelObject* model;
    Py_ssize_t views;     /* live numpy views (ViewGuard objects) of this data's arrays */
    int busy;             /* a step runs without the GIL */
    PyObject* islands;    /* list of observed island problems, or NULL when not observing */
    int islands_failed;   /* an island problem could not be recorded (out of memory) */
} DataObject;

/* The base object of every numpy view of a Data: keeps the Data alive and counted. */
typedef struct {
    PyObject_HEAD DataObject* owner;
} ViewGuard;

static void ViewGuard_dealloc(ViewGuard* self) {
    self->owner->views--;
    Py_DECREF(self->owner);
    PyObject_Free(self);
}

static PyTypeObject ViewGuardType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "touche._ViewGuard",
    .tp_basicsize = sizeof(ViewGuard),
    .tp_dealloc = (destructor)ViewGuard_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Keeps a Data alive while a numpy view of it exists.",
};

static int data_open(DataObject* self) {
    if (!self->data) {
        PyErr_SetString(PyExc_ValueError, "operation on a closed touche.Data");
        return 0;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "this touche.Data is being stepped by another thread");
        return 0;
    }
    return 1;
}

static PyObject* Data_new_for(ModelObject* model) {
    tch_data* data = NULL;
    tch_error err = error_cleared();
    if (tch_data_create(model->model, &data, &err) != TCH_OK) return raise_library_error(&err);
    DataObject* self = PyObject_New(DataObject, &DataType);
    if (!self) {
        tch_data_destroy(data);
        return NULL;
    }
    self->data = data;
    Py_INCREF(model);
    self->model = model;
    self->views = 0;
    self->busy = 0;
    self->islands = NULL;
    self->islands_failed = 0;
    return (PyObject*)self;
}

static PyObject* Data_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
    (void)type;
    static char* keywords[] = {"model", NULL};
    PyObject* model = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!:Data", keywords, &ModelType, &model)) {
        return NULL;
    }
    return Data_new_for((ModelObject*)model);
}

static void Data_dealloc(DataObject* self) {
    tch_data_destroy(self->data);
    Py_XDECREF(self->islands);
    Py_DECREF(self->model);
    PyObject_Free(self);
}

static PyObject* Data_close(DataObject* self, PyObject* unused) {
    (void)unused;
    if (!self->data) Py_RETURN_NONE;
    if (self->busy) {
        data_open(self);
        return NULL;
    }
    if (self->views > 0) {
        PyErr_Format(PyExc_BufferError,
                     "cannot close this touche.Data: %zd numpy views of its arrays are alive "
                     "(delete them, or copy what you keep)",
                     self->views);
        return NULL;
    }
    tch_data_destroy(self->data);
    self->data = NULL;
    Py_RETURN_NONE;
}

static PyObject* Data_enter(DataObject* self, PyObject* unused) {
    (void)unused;
    if (!data_open(self)) return NULL;
    Py_INCREF(self);
    return (PyObject*)self;
}

static PyObject* Data_exit(DataObject* self, PyObject* args) {
    (void)args;
    return Data_close(self, NULL);
}

static PyObject* Data_get_closed(DataObject* self, void* closure) {
    (void)closure;
    return PyBool_FromLong(self->data == NULL);
}

static PyObject* Data_get_model(DataObject* self, void* closure) {
    (void)closure;
    Py_INCREF(self->model);
    return (PyObject*)self->model;
}

/* A zero-copy view of a data array (rows x columns doubles, `stride` bytes between rows). */
static PyObject* data_view(DataObject* self, void* memory, int rows, int columns,
                           npy_intp stride, int writable) {
    if (!data_open(self)) return NULL;
    ViewGuard* guard = PyObject_New(ViewGuard, &ViewGuardType);
    if (!guard) return NULL;
    Py_INCREF(self);
    guard->owner = self;
    self->views++;
    npy_intp dims[2] = {rows, columns};
    npy_intp strides[2] = {stride, sizeof(double)};
    return array_over((PyObject*)guard, columns > 0 ? 2 : 1, dims, columns > 0 ? strides : NULL,
                      NPY_DOUBLE, memory, writable);
}

/* Views of arrays of tch_vec3 and of the parts of tch_transform. */
#define VEC3_VIEW(self, member, count, writable)                                               \
    data_view(self, (self)->data ? (void*)(self)->data->member : NULL, count, 3,              \
              sizeof(tch_vec3), writable)
#define TRANSFORM_VIEW(self, member, part, columns, count)                                   \
    data_view(self, (self)->data ? (void*)&(self)->data->member[0].part : NULL, count,        \
              columns, sizeof(tch_transform), 0)

static PyObject* Data_get_qpos(DataObject* self, void* closure) {
    (void)closure;
    return data_view(self, self->data ? self->data->qpos : NULL, self->model->model->nq, 0, 0, 1);
}

static PyObject* Data_get_qvel(DataObject* self, void* closure) {
    (void)closure;
    return data_view(self, self->data ? self->data->qvel : NULL, self->model->model->nv, 0, 0, 1);
}

static PyObject* Data_get_qacc(DataObject* self, void* closure) {
    (void)closure;
    return data_view(self, self->data ? self->data->qacc : NULL, self->model->model->nv, 0, 0, 0);
}

static PyObject* Data_get_body_pos(DataObject* self, void* closure) {
    (void)closure;
    return TRANSFORM_VIEW(self, body_X_WB, p, 3, self->model->model->body_count);
}

static PyObject* Data_get_body_quat(DataObject* self, void* closure) {
    (void)closure;
    return TRANSFORM_VIEW(self, body_X_WB, q, 4, self->model->model->body_count);
}

static PyObject* Data_get_geom_pos(DataObject* self, void* closure) {
    (void)closure;
    return TRANSFORM_VIEW(self, geom_X_WG, p, 3, self->model->model->geom_count);
}

static PyObject* Data_get_geom_quat(DataObject* self, void* closure) {
    (void)closure;
    return TRANSFORM_VIEW(self, geom_X_WG, q, 4, self->model->model->geom_count);
}

#define DATA_VEC3_VIEW(getter_name, member, writable)                          \
    static PyObject* getter_name(DataObject* self, void* closure) {            \
        (void)closure;                                                         \
        return VEC3_VIEW(self, member, self->model->model->body_count, writable); \
    }

DATA_VEC3_VIEW(Data_get_body_com, body_p_WCm, 0)
DATA_VEC3_VIEW(Data_get_body_vel, body_v_WCm, 0)
DATA_VEC3_VIEW(Data_get_body_angvel, body_w_W, 0)
DATA_VEC3_VIEW(Data_get_body_force, body_force_W, 0)
DATA_VEC3_VIEW(Data_get_body_torque, body_torque_W, 0)
DATA_VEC3_VIEW(Data_get_applied_force, body_force_applied_W, 1)
DATA_VEC3_VIEW(Data_get_applied_torque, body_torque_applied_W, 1)

static PyObject* Data_get_time(DataObject* self, void* closure) {
    (void)closure;
    if (!data_open(self)) return NULL;
    return PyFloat_FromDouble(self->data->time);
}

static int Data_set_time(DataObject* self, PyObject* value, void* closure) {
    (void)closure;
    if (!data_open(self) || refuse_delete(value, "time")) return -1;
    double t = PyFloat_AsDouble(value);
    if (t == -1.0 && PyErr_Occurred()) return -1;
    self->data->time = t;
    return 0;
}

static PyObject* Data_get_contact_energy(DataObject* self, void* closure) {
    (void)closure;
    if (!data_open(self)) return NULL;
    return PyBool_FromLong(self->data->contact_energy);
}

static int Data_set_contact_energy(DataObject* self, PyObject* value, void* closure) {
    (void)closure;
    if (!data_open(self) || refuse_delete(value, "contact_energy")) return -1;
    int on = PyObject_IsTrue(value);
    if (on < 0) return -1;
    self->data->contact_energy = on;
    return 0;
}

static PyObject* Data_get_thread_count(DataObject* self, void* closure) {
    (void)closure;
    if (!data_open(self)) return NULL;
    return PyLong_FromLong(self->data->thread_count);
}

static int Data_set_thread_count(DataObject* self, PyObject* value, void* closure) {
    (void)closure;
    if (!data_open(self) || refuse_delete(value, "thread_count")) return -1;
    long count = PyLong_AsLong(value);
    if (count == -1 && PyErr_Occurred()) return -1;
    if (count < 0 || count > 64) {
        PyErr_Format(PyExc_ValueError, "thread_count must be in [0, 64], got %ld", count);
        return -1;
    }
    self->data->thread_count = (int)count;
    return 0;
}

/* step(n=1, /): n steps with the GIL released; raises at the first failing step. */
static PyObject* Data_step(DataObject* self, PyObject* const* args, Py_ssize_t nargs) {
    long n = 1;
    if (nargs > 1) {
        PyErr_SetString(PyExc_TypeError, "step(n=1) takes at most one argument");
        return NULL;
    }
    if (nargs == 1) {
        n = PyLong_AsLong(args[0]);
        if (n == -1 && PyErr_Occurred()) return NULL;
        if (n < 0) {
            PyErr_Format(PyExc_ValueError, "step(n) needs n >= 0, got %ld", n);
            return NULL;
        }
    }
    if (!data_open(self)) return NULL;
    const tch_model* model = self->model->model;
    tch_data* data = self->data;
    tch_error err = error_cleared();
    tch_status status = TCH_OK;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    for (long i = 0; i < n && status == TCH_OK; ++i) {
        status = tch_step(model, data, &err);
    }
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (status != TCH_OK) return raise_library_error(&err);
    Py_RETURN_NONE;
}

static PyObject* Data_forward(DataObject* self, PyObject* unused) {
    (void)unused;
    if (!data_open(self)) return NULL;
    tch_error err = error_cleared();
    if (tch_forward(self->model->model, self->data, &err) != TCH_OK) {
        return raise_library_error(&err);
    }
    Py_RETURN_NONE;
}

static PyObject* Data_reset(DataObject* self, PyObject* unused) {
    (void)unused;
    if (!data_open(self)) return NULL;
    tch_data_reset(self->model->model, self->data);
    Py_RETURN_NONE;
}

static PyObject* Data_reset_key(DataObject* self, PyObject* key) {
    if (!data_open(self)) return NULL;
    const tch_model* model = self->model->model;
    long index = -1;
    if (PyUnicode_Check(key)) {
        const char* name = PyUnicode_AsUTF8(key);
        if (!name) return NULL;
        index = tch_model_key_index(model, name);
        if (index < 0) {
            PyErr_Format(PyExc_KeyError, "the scene has no keyframe named '%s'", name);
            return NULL;
        }
    } else {
        index = PyLong_AsLong(key);
        if (index == -1 && PyErr_Occurred()) return NULL;
    }
    if (index < 0 || index >= model->key_count) {
        PyErr_Format(PyExc_IndexError, "keyframe %ld out of range [0, %d)", index,
                     model->key_count);
        return NULL;
    }
    tch_error err = error_cleared();
    if (tch_data_reset_key(model, self->data, (int)index, &err) != TCH_OK) {
        return raise_library_error(&err);
    }
    Py_RETURN_NONE;
}

static PyObject* Data_energy(DataObject* self, PyObject* unused) {
    (void)unused;
    if (!data_open(self)) return NULL;
    return PyFloat_FromDouble(tch_data_energy(self->model->model, self->data));
}

static PyObject* Data_momentum(DataObject* self, PyObject* unused) {
    (void)unused;
    if (!data_open(self)) return NULL;
    tch_vec3 p, L;
    tch_data_momentum(self->model->model, self->data, &p, &L);
    return Py_BuildValue("(NN)", doubles_copy(&p.x, 3, 0), doubles_copy(&L.x, 3, 0));
}

static int body_argument(const tch_model* model, PyObject* body, int* out) {
    long index = -1;
    if (PyUnicode_Check(body)) {
        const char* name = PyUnicode_AsUTF8(body);
        if (!name) return -1;
        index = tch_model_body_index(model, name);
        if (index < 0) {
            PyErr_Format(PyExc_KeyError, "the scene has no body named '%s'", name);
            return -1;
        }
    } else {
        index = PyLong_AsLong(body);
        if (index == -1 && PyErr_Occurred()) return -1;
    }
    if (index < 0 || index >= model->body_count) {
        PyErr_Format(PyExc_IndexError, "body %ld out of range [0, %d)", index, model->body_count);
        return -1;
    }
    *out = (int)index;
    return 0;
}

static PyObject* Data_body_state(DataObject* self, PyObject* body) {
    if (!data_open(self)) return NULL;
    int b = 0;
    if (body_argument(self->model->model, body, &b) < 0) return NULL;
    tch_transform X;
    tch_vec3 v, w;
    tch_data_body_state(self->model->model, self->data, b, &X, &v, &w);
    return Py_BuildValue("(NNNN)", doubles_copy(&X.p.x, 3, 0), doubles_copy(&X.q.w, 4, 0),
                         doubles_copy(&v.x, 3, 0), doubles_copy(&w.x, 3, 0));
}

static PyObject* Data_set_body_state(DataObject* self, PyObject* args, PyObject* kwargs) {
    static char* keywords[] = {"body", "pos", "quat", "vel", "angvel", NULL};
    PyObject *body, *pos, *quat, *vel = NULL, *angvel = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|OO:set_body_state", keywords, &body, &pos,
                                     &quat, &vel, &angvel)) {
        return NULL;
    }
    if (!data_open(self)) return NULL;
    int b = 0;
    tch_transform X;
    tch_vec3 v = {0, 0, 0}, w = {0, 0, 0};
    if (body_argument(self->model->model, body, &b) < 0 ||
        read_doubles(pos, &X.p.x, 3, "pos") < 0 || read_doubles(quat, &X.q.w, 4, "quat") < 0 ||
        (vel && read_doubles(vel, &v.x, 3, "vel") < 0) ||
        (angvel && read_doubles(angvel, &w.x, 3, "angvel") < 0)) {
        return NULL;
    }
    tch_error err = error_cleared();
    if (tch_data_set_body_state(self->model->model, self->data, b, &X, v, w, &err) != TCH_OK) {
        return raise_library_error(&err);
    }
    Py_RETURN_NONE;
}

/* ---- contacts and patches (copies) ---- */

static PyObject* Data_contacts(DataObject* self, PyObject* unused) {
    (void)unused;
    if (!data_open(self)) return NULL;
    return records_copy(contact_dtype, self->data->contacts, self->data->contact_count);
}

static PyObject* Data_pairs(DataObject* self, PyObject* unused) {
    (void)unused;
    if (!data_open(self)) return NULL;
    return records_copy(pair_dtype, self->data->pair_results, self->data->pair_result_count);
}

static PyObject* Data_patches(DataObject* self, PyObject* unused) {
    (void)unused;
    if (!data_open(self)) return NULL;
    const tch_data* d = self->data;
    return Py_BuildValue("{sNsNsN}", "polygons",
                         records_copy(polygon_dtype, d->polygons, d->polygon_count), "vertices",
                         doubles_copy(&d->polygon_vertices_W[0].x, d->polygon_vertex_count, 3),
                         "pressure",
                         doubles_copy(d->polygon_vertex_pressure, d->polygon_vertex_count, 0));
}

/* ---- diagnostics ---- */

static const char* const WARNING_NAMES[TCH_WARN_COUNT] = {
    "contact_full",      "arena_grown",       "bad_quat",      "deep_penetration",
    "energy_gain",       "friction_dropped",  "loose_residual",
};

static const char* const PATH_NAMES[TCH_CONSTRAINT_PATH_COUNT] = {"lemke", "pgs", "normal_lemke",
                                                                  "normal_pgs"};

static PyObject* counts_dict(const char* const* names, const int* counts, int n) {
    PyObject* dict = PyDict_New();
    for (int i = 0; dict && i < n; ++i) {
        PyObject* value = PyLong_FromLong(counts[i]);
        if (!value || PyDict_SetItemString(dict, names[i], value) < 0) Py_CLEAR(dict);
        Py_XDECREF(value);
    }
    return dict;
}

static PyObject* adaptive_dict(const tch_adaptive_work* w) {
    return Py_BuildValue("{slslslsl}", "steps", w->steps, "rejected", w->rejected, "jacobians",
                         w->jacobians, "evaluations", w->evaluations);
}

static PyObject* Data_summary(DataObject* self, PyObject* unused) {
    (void)unused;
    if (!data_open(self)) return NULL;
    const tch_data* d = self->data;
    return Py_BuildValue(
        "{sdsisisisisNsNslslsisisdsisisNsN}", "time", d->time, "contact_count", d->contact_count,
        "pair_count", d->pair_result_count, "polygon_count", d->polygon_count,
        "broadphase_pairs", d->broadphase_pair_count, "warnings",
        counts_dict(WARNING_NAMES, d->warning_count, TCH_WARN_COUNT), "energy",
        PyFloat_FromDouble(tch_data_energy(self->model->model, d)), "heap_allocations",
        d->heap_allocation_count, "buffer_growths", d->buffer_growth_count,
        "constraint_islands", d->constraint_island_count, "constraint_iterations",
        d->constraint_iterations, "constraint_residual", d->constraint_residual,
        "constraint_failed_islands", d->constraint_failed_islands, "constraint_sleeping_islands",
        d->constraint_sleeping_islands, "constraint_paths",
        counts_dict(PATH_NAMES, d->constraint_path_islands, TCH_CONSTRAINT_PATH_COUNT),
        "adaptive_total", adaptive_dict(&d->adaptive_total));
}

static PyObject* Data_watch_report(DataObject* self, PyObject* unused) {
    (void)unused;
    if (!data_open(self)) return NULL;
    tch_watch_report r;
    tch_data_watch_report(self->data, &r);
    PyObject* deepest = PyDict_New();
    for (int i = 1; deepest && i < TCH_CONTACT_MODEL_END; ++i) {
        PyObject* value = PyFloat_FromDouble(r.deepest[i]);
        if (!value ||
            PyDict_SetItemString(deepest, tch_contact_model_name((tch_contact_model)i), value) < 0) {
            Py_CLEAR(deepest);
        }
        Py_XDECREF(value);
    }
    PyObject* warnings = PyList_New(0);
    for (int i = 0; warnings && i < r.warning_count; ++i) {
        const tch_watch_warning* w = tch_data_watch_warning(self->data, i);
        if (!w) break;
        PyObject* item = Py_BuildValue(
            "{sssdsisisisdsdsdsl}", "kind",
            w->kind >= 0 && w->kind < TCH_WARN_COUNT ? WARNING_NAMES[w->kind] : "?", "time",
            w->time, "body", w->body, "geom_a", w->geom_a, "geom_b", w->geom_b, "value", w->value,
            "limit", w->limit, "worst", w->worst, "steps", w->steps);
        if (!item || PyList_Append(warnings, item) < 0) Py_CLEAR(warnings);
        Py_XDECREF(item);
    }
    return Py_BuildValue("{slsdsdsdsdsdsNsNsi}", "steps", r.steps, "energy_start",
                         r.energy_start, "energy", r.energy, "work_applied", r.work_applied,
                         "largest_gain", r.largest_gain, "energy_scale", r.energy_scale,
                         "deepest", deepest, "warnings", warnings, "warnings_dropped",
                         r.warnings_dropped);
}

/* ---- island problems ---- */

static PyObject* optional_doubles(const double* values, int n) {
    if (values) return doubles_copy(values, n, 0);
    Py_RETURN_NONE;
}

static PyObject* island_dict(const tch_island_problem* p) {
    PyObject* normal_index = Py_None;
    Py_INCREF(Py_None);
    if (p->normal_index) Py_SETREF(normal_index, ints_copy(p->normal_index, p->n));
    return Py_BuildValue(
        "{sisNsNsNsNsNsNsssdsO}", "n", p->n, "matrix", doubles_copy(p->matrix, p->n, p->n), "q",
        doubles_copy(p->q, p->n, 0), "lo", optional_doubles(p->lo, p->n), "hi",
        optional_doubles(p->hi, p->n), "normal_index", normal_index, "z",
        doubles_copy(p->z, p->n, 0), "path",
        p->path >= 0 && p->path < TCH_CONSTRAINT_PATH_COUNT ? PATH_NAMES[p->path] : "?",
        "residual", p->residual, "friction_disc", p->friction_disc ? Py_True : Py_False);
}

/* The observer runs inside a step, without the GIL: it takes it to record the problem. */
static void record_island(const tch_island_problem* problem, void* user) {
    DataObject* self = user;
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject* item = island_dict(problem);
    if (!item || !self->islands || PyList_Append(self->islands, item) < 0) {
        PyErr_Clear();
        self->islands_failed = 1;
    }
    Py_XDECREF(item);
    PyGILState_Release(gil);
}

static PyObject* Data_observe_islands(DataObject* self, PyObject* on_object) {
    if (!data_open(self)) return NULL;
    int on = PyObject_IsTrue(on_object);
    if (on < 0) return NULL;
    if (on && !self->islands) {
        self->islands = PyList_New(0);
        if (!self->islands) return NULL;
    } else if (!on) {
        Py_CLEAR(self->islands);
    }
    tch_data_observe_islands(self->data, on ? record_island : NULL, on ? self : NULL);
    Py_RETURN_NONE;
}

static PyObject* Data_island_problems(DataObject* self, PyObject* unused) {
    (void)unused;
    if (!data_open(self)) return NULL;
    if (!self->islands) {
        PyErr_SetString(PyExc_RuntimeError, "call observe_islands(True) before stepping");
        return NULL;
    }
    if (self->islands_failed) {
        self->islands_failed = 0;
        return PyErr_NoMemory();
    }
    PyObject* problems = self->islands;
    self->islands = PyList_New(0);
    if (!self->islands) {
        self->islands = problems;
        return NULL;
    }
    return problems;
}

static PyMethodDef Data_methods[] = {
    {"step", (PyCFunction)(void (*)(void))Data_step, METH_FASTCALL,
     "step(n=1, /): advances n time steps (the GIL is released meanwhile)."},
    {"forward", (PyCFunction)Data_forward, METH_NOARGS,
     "forward(): computes poses, contacts and forces at the current state without stepping."},
    {"reset", (PyCFunction)Data_reset, METH_NOARGS, "reset(): back to the initial state."},
    {"reset_key", (PyCFunction)Data_reset_key, METH_O,
     "reset_key(key): the state of a keyframe, by index or name."},
    {"energy", (PyCFunction)Data_energy, METH_NOARGS,
     "energy() -> float: kinetic plus gravitational energy of the free bodies, J."},
    {"momentum", (PyCFunction)Data_momentum, METH_NOARGS,
     "momentum() -> (p, L): linear (kg m/s) and angular momentum about the world origin."},
    {"body_state", (PyCFunction)Data_body_state, METH_O,
     "body_state(body) -> (pos, quat, vel, angvel): a body's world pose, its origin's velocity "
     "and its angular velocity, all in the world frame (body by index or name)."},
    {"set_body_state", (PyCFunction)(void (*)(void))Data_set_body_state,
     METH_VARARGS | METH_KEYWORDS,
     "set_body_state(body, pos, quat, vel=0, angvel=0): a free body's state, world frame."},
    {"contacts", (PyCFunction)Data_contacts, METH_NOARGS,
     "contacts() -> structured array (geom_a, geom_b, model, p, n, depth, f) of the last "
     "step's contact points (a copy)."},
    {"pairs", (PyCFunction)Data_pairs, METH_NOARGS,
     "pairs() -> structured array of the last step's pair results (a copy)."},
    {"patches", (PyCFunction)Data_patches, METH_NOARGS,
     "patches() -> {'polygons', 'vertices', 'pressure'}: contact patch polygons (copies)."},
    {"summary", (PyCFunction)Data_summary, METH_NOARGS,
     "summary() -> dict: counts and diagnostics of the last step."},
    {"watch_report", (PyCFunction)Data_watch_report, METH_NOARGS,
     "watch_report() -> dict: the watch's energy account and warnings (touche/watch.h)."},
    {"observe_islands", (PyCFunction)Data_observe_islands, METH_O,
     "observe_islands(on): record every lcp island problem of later steps."},
    {"island_problems", (PyCFunction)Data_island_problems, METH_NOARGS,
     "island_problems() -> list of dicts (n, matrix, q, lo, hi, normal_index, z, path, "
     "residual, friction_disc) recorded since the last call."},
    {"close", (PyCFunction)Data_close, METH_NOARGS,
     "close(): frees the data now; BufferError while numpy views of it are alive."},
    {"__enter__", (PyCFunction)Data_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)Data_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Data_getset[] = {
    GET("model", Data_get_model, "the Model"),
    GET("closed", Data_get_closed, "True after close()"),
    GET("qpos", Data_get_qpos, "[nq] per free body p_WB (3), q_WB (w x y z): writable view"),
    GET("qvel", Data_get_qvel, "[nv] per free body v_WBo in W (3), w_WB in B (3): writable view"),
    GET("qacc", Data_get_qacc, "[nv] last accelerations (view)"),
    GET("body_pos", Data_get_body_pos, "[body_count, 3] body origins, world (view)"),
    GET("body_quat", Data_get_body_quat, "[body_count, 4] body orientations w x y z (view)"),
    GET("body_com", Data_get_body_com, "[body_count, 3] centres of mass, world (view)"),
    GET("body_vel", Data_get_body_vel, "[body_count, 3] centre-of-mass velocities, world"),
    GET("body_angvel", Data_get_body_angvel, "[body_count, 3] angular velocities, world"),
    GET("body_force", Data_get_body_force, "[body_count, 3] total force on each centre of mass"),
    GET("body_torque", Data_get_body_torque, "[body_count, 3] total torque about it"),
    GET("geom_pos", Data_get_geom_pos, "[geom_count, 3] geom origins, world (view)"),
    GET("geom_quat", Data_get_geom_quat, "[geom_count, 4] geom orientations (view)"),
    GET("applied_force", Data_get_applied_force,
        "[body_count, 3] user force at each centre of mass, N: writable view"),
    GET("applied_torque", Data_get_applied_torque,
        "[body_count, 3] user torque, N m: writable view"),
    {"time", (getter)Data_get_time, (setter)Data_set_time, "simulated time, s", NULL},
    {"contact_energy", (getter)Data_get_contact_energy, (setter)Data_set_contact_energy,
     "compute the pressure model's elastic energy per pair", NULL},
    {"thread_count", (getter)Data_get_thread_count, (setter)Data_set_thread_count,
     "threads a step may use (results identical for every count)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject DataType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "touche.Data",
    .tp_basicsize = sizeof(DataObject),
    .tp_dealloc = (destructor)Data_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Data(model): the simulation state of a model; step() advances it.",
    .tp_methods = Data_methods,
    .tp_getset = Data_getset,
    .tp_new = Data_new,
};

/* ==== the solvers of touche/lcp.h ==== */

/* A complementarity problem's arrays as C-contiguous doubles (int32 for normal_index), each
 * optional one NULL when not given. */
typedef struct lcp_arrays {
    PyArrayObject *M, *q, *lo, *hi, *normal_index, *z;
    int n;
} lcp_arrays;

static void lcp_arrays_release(lcp_arrays* a) {
    Py_XDECREF(a->M);
    Py_XDECREF(a->q);
    Py_XDECREF(a->lo);
    Py_XDECREF(a->hi);
    Py_XDECREF(a->normal_index);
    Py_XDECREF(a->z);
}

/* A vector of length n (copied, so that a solve may write it), or NULL for None. */
static int lcp_vector(PyObject* object, int type, int n, const char* name, PyArrayObject** out) {
    *out = NULL;
    if (!object || object == Py_None) return 0;
    *out = (PyArrayObject*)PyArray_FROMANY(object, type, 1, 1,
                                           NPY_ARRAY_CARRAY | NPY_ARRAY_ENSURECOPY);
    if (!*out) return -1;
    if (PyArray_DIM(*out, 0) != n) {
        PyErr_Format(PyExc_ValueError, "%s needs %d entries (the size of M), got %zd", name, n,
                     (Py_ssize_t)PyArray_DIM(*out, 0));
        return -1;
    }
    return 0;
}

static int lcp_arrays_read(PyObject* M, PyObject* q, PyObject* lo, PyObject* hi,
                           PyObject* normal_index, PyObject* z, lcp_arrays* a) {
    memset(a, 0, sizeof *a);
    a->M = (PyArrayObject*)PyArray_FROMANY(M, NPY_DOUBLE, 2, 2, NPY_ARRAY_IN_ARRAY);
    if (!a->M) return -1;
    if (PyArray_DIM(a->M, 0) != PyArray_DIM(a->M, 1) || PyArray_DIM(a->M, 0) > 100000) {
        PyErr_SetString(PyExc_ValueError, "M must be a square matrix of at most 100000 rows");
        return -1;
    }
    a->n = (int)PyArray_DIM(a->M, 0);
    if (lcp_vector(q, NPY_DOUBLE, a->n, "q", &a->q) < 0 || !a->q ||
        lcp_vector(lo, NPY_DOUBLE, a->n, "lo", &a->lo) < 0 ||
        lcp_vector(hi, NPY_DOUBLE, a->n, "hi", &a->hi) < 0 ||
        lcp_vector(normal_index, NPY_INT32, a->n, "normal_index", &a->normal_index) < 0 ||
        lcp_vector(z, NPY_DOUBLE, a->n, "z", &a->z) < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "q is required");
        return -1;
    }
    if (!a->z) {
        npy_intp dims[1] = {a->n};
        a->z = (PyArrayObject*)PyArray_ZEROS(1, dims, NPY_DOUBLE, 0);
        if (!a->z) return -1;
    }
    return 0;
}

static const double* lcp_data(PyArrayObject* array) {
    return array ? PyArray_DATA(array) : NULL;
}

static tch_lcp_bounds lcp_bounds(const lcp_arrays* a, int disc) {
    tch_lcp_bounds bounds = {lcp_data(a->lo), lcp_data(a->hi),
                             a->normal_index ? PyArray_DATA(a->normal_index) : NULL, disc != 0};
    return bounds;
}

/* (z, {'reason', 'iterations', 'residual'}) of a solve, or touche.Error. */
static PyObject* lcp_answer(lcp_arrays* a, tch_status status, const tch_lcp_result* result,
                            const tch_error* err) {
    PyObject* answer = NULL;
    if (status != TCH_OK) {
        raise_library_error(err);
    } else {
        answer = Py_BuildValue("(O{sssisd})", a->z, "reason", tch_lcp_reason_name(result->reason),
                               "iterations", result->iterations, "residual", result->residual);
    }
    lcp_arrays_release(a);
    return answer;
}

static PyObject* touche_lemke(PyObject* module, PyObject* args, PyObject* kwargs) {
    (void)module;
    static char* keywords[] = {"M", "q", "z0", "max_pivots", NULL};
    PyObject *M, *q, *z0 = NULL;
    int max_pivots = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O$i:lemke", keywords, &M, &q, &z0,
                                     &max_pivots)) {
        return NULL;
    }
    lcp_arrays a;
    if (lcp_arrays_read(M, q, NULL, NULL, NULL, z0, &a) < 0) {
        lcp_arrays_release(&a);
        return NULL;
    }
    tch_lemke_options options = tch_lemke_options_default();
    options.warm_start = z0 && z0 != Py_None;
    options.max_pivots = max_pivots;
    tch_lcp_result result = {0};
    tch_error err = error_cleared();
    tch_status status;
    Py_BEGIN_ALLOW_THREADS
    status = tch_lcp_solve_lemke(lcp_data(a.M), lcp_data(a.q), a.n, &options,
                                 PyArray_DATA(a.z), &result, &err);
    Py_END_ALLOW_THREADS
    return lcp_answer(&a, status, &result, &err);
}

static PyObject* touche_pgs(PyObject* module, PyObject* args, PyObject* kwargs) {
    (void)module;
    static char* keywords[] = {"M", "q", "lo", "hi", "normal_index", "z0", "iterations",
                               "tolerance", "omega", NULL};
    PyObject *M, *q, *lo = NULL, *hi = NULL, *normal_index = NULL, *z0 = NULL;
    tch_pgs_options options = tch_pgs_options_default();
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OOOO$idd:pgs", keywords, &M, &q, &lo, &hi,
                                     &normal_index, &z0, &options.max_iterations,
                                     &options.tolerance, &options.omega)) {
        return NULL;
    }
    lcp_arrays a;
    if (lcp_arrays_read(M, q, lo, hi, normal_index, z0, &a) < 0) {
        lcp_arrays_release(&a);
        return NULL;
    }
    options.warm_start = z0 && z0 != Py_None;
    tch_lcp_bounds bounds = lcp_bounds(&a, 0);
    tch_lcp_result result = {0};
    tch_error err = error_cleared();
    tch_status status;
    Py_BEGIN_ALLOW_THREADS
    status = tch_lcp_solve_pgs(lcp_data(a.M), lcp_data(a.q), a.n, &bounds, &options,
                               PyArray_DATA(a.z), &result, &err);
    Py_END_ALLOW_THREADS
    return lcp_answer(&a, status, &result, &err);
}

static PyObject* touche_mixed_lcp(PyObject* module, PyObject* args, PyObject* kwargs) {
    (void)module;
    static char* keywords[] = {"M", "q", "equality_count", NULL};
    PyObject *M, *q;
    int equality_count = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOi:mixed_lcp", keywords, &M, &q,
                                     &equality_count)) {
        return NULL;
    }
    lcp_arrays a;
    if (lcp_arrays_read(M, q, NULL, NULL, NULL, NULL, &a) < 0) {
        lcp_arrays_release(&a);
        return NULL;
    }
    tch_lcp_result result = {0};
    tch_error err = error_cleared();
    tch_status status;
    Py_BEGIN_ALLOW_THREADS
    status = tch_lcp_solve_mixed(lcp_data(a.M), lcp_data(a.q), a.n, equality_count, NULL,
                                 PyArray_DATA(a.z), &result, &err);
    Py_END_ALLOW_THREADS
    return lcp_answer(&a, status, &result, &err);
}

static PyObject* touche_lcp_residuals(PyObject* module, PyObject* args, PyObject* kwargs) {
    (void)module;
    static char* keywords[] = {"M", "q", "z", "lo", "hi", "normal_index", "disc", NULL};
    PyObject *M, *q, *z, *lo = NULL, *hi = NULL, *normal_index = NULL;
    int disc = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|OOOp:lcp_residuals", keywords, &M, &q,
                                     &z, &lo, &hi, &normal_index, &disc)) {
        return NULL;
    }
    lcp_arrays a;
    if (lcp_arrays_read(M, q, lo, hi, normal_index, z, &a) < 0) {
        lcp_arrays_release(&a);
        return NULL;
    }
    tch_lcp_bounds bounds = lcp_bounds(&a, disc);
    tch_lcp_residual r =
        tch_lcp_residuals_dense(lcp_data(a.M), lcp_data(a.q), a.n, &bounds, lcp_data(a.z));
    lcp_arrays_release(&a);
    return Py_BuildValue("{sdsdsd}", "natural_map", r.natural_map, "z_dot_w", r.z_dot_w,
                         "infeasibility", r.infeasibility);
}

/* ==== module functions ==== */

/* load(path, contact=None, timestep=None) and load_string(xml, base_dir=None, name=None, ...)
 * share this: the spec's overrides, then compile. */
static PyObject* compile_with(PyObject* spec, PyObject* contact, PyObject* timestep) {
    if (!spec) return NULL;
    PyObject* result = NULL;
    if (contact && contact != Py_None) {
        result = Spec_force_contact_model((SpecObject*)spec, contact);
        if (!result) goto done;
        Py_DECREF(result);
    }
    if (timestep && timestep != Py_None &&
        Spec_set_timestep((SpecObject*)spec, timestep, NULL) < 0) {
        goto done;
    }
    result = Spec_compile((SpecObject*)spec, NULL);
done:
    Py_DECREF(spec);
    return result;
}

static PyObject* touche_load(PyObject* module, PyObject* args, PyObject* kwargs) {
    (void)module;
    static char* keywords[] = {"path", "contact", "timestep", NULL};
    PyObject *path = NULL, *contact = NULL, *timestep = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|$OO:load", keywords,
                                     PyUnicode_FSConverter, &path, &contact, &timestep)) {
        return NULL;
    }
    PyObject* spec = spec_from_file(PyBytes_AS_STRING(path));
    Py_DECREF(path);
    return compile_with(spec, contact, timestep);
}

static PyObject* touche_load_string(PyObject* module, PyObject* args, PyObject* kwargs) {
    (void)module;
    static char* keywords[] = {"xml", "base_dir", "name", "contact", "timestep", NULL};
    const char *xml = NULL, *base_dir = NULL, *name = NULL;
    PyObject *contact = NULL, *timestep = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s|zz$OO:load_string", keywords, &xml,
                                     &base_dir, &name, &contact, &timestep)) {
        return NULL;
    }
    return compile_with(spec_from_string(xml, base_dir, name), contact, timestep);
}

static PyMethodDef module_methods[] = {
    {"load", (PyCFunction)(void (*)(void))touche_load, METH_VARARGS | METH_KEYWORDS,
     "load(path, *, contact=None, timestep=None) -> Model: loads and compiles an MJCF scene; "
     "contact runs every pair with one model, timestep overrides the scene's."},
    {"load_string", (PyCFunction)(void (*)(void))touche_load_string,
     METH_VARARGS | METH_KEYWORDS,
     "load_string(xml, base_dir=None, name=None, *, contact=None, timestep=None) -> Model."},
    {"lemke", (PyCFunction)(void (*)(void))touche_lemke, METH_VARARGS | METH_KEYWORDS,
     "lemke(M, q, z0=None, *, max_pivots=0) -> (z, info): LCP(M, q) by Lemke (touche/lcp.h); "
     "z0 warm-starts; touche.Error on a ray or the pivot limit."},
    {"pgs", (PyCFunction)(void (*)(void))touche_pgs, METH_VARARGS | METH_KEYWORDS,
     "pgs(M, q, lo=None, hi=None, normal_index=None, z0=None, *, iterations=100, "
     "tolerance=1e-8, omega=1.0) -> (z, info): the LCP or box MLCP by projected Gauss-Seidel."},
    {"mixed_lcp", (PyCFunction)(void (*)(void))touche_mixed_lcp, METH_VARARGS | METH_KEYWORDS,
     "mixed_lcp(M, q, equality_count) -> (z, info): the first equality_count rows equations."},
    {"lcp_residuals", (PyCFunction)(void (*)(void))touche_lcp_residuals,
     METH_VARARGS | METH_KEYWORDS,
     "lcp_residuals(M, q, z, lo=None, hi=None, normal_index=None, disc=False) -> dict: "
     "natural_map, z_dot_w, infeasibility (an island problem's fields fit as they are)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef touche_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "touche",
    .m_doc = "touche: rigid bodies in contact (Python binding of the C library).",
    .m_size = -1,
    .m_methods = module_methods,
};

static int add_type(PyObject* module, PyTypeObject* type, const char* name) {
    if (PyType_Ready(type) < 0) return -1;
    Py_INCREF(type);
    if (PyModule_AddObject(module, name, (PyObject*)type) < 0) {
        Py_DECREF(type);
        return -1;
    }
    return 0;
}

static int add_errors(PyObject* module) {
    touche_error_type = PyErr_NewExceptionWithDoc(
        "touche.Error",
        "A failure of the touche library: attributes status (its name), code, message, file, "
        "line and element (the input location, '' and 0 when none).",
        NULL, NULL);
    if (!touche_error_type) return -1;
    diverged_error_type = PyErr_NewExceptionWithDoc(
        "touche.DivergedError", "The simulation state became non-finite or ran away.",
        touche_error_type, NULL);
    if (!diverged_error_type) return -1;
    Py_INCREF(touche_error_type);
    Py_INCREF(diverged_error_type);
    if (PyModule_AddObject(module, "Error", touche_error_type) < 0 ||
        PyModule_AddObject(module, "DivergedError", diverged_error_type) < 0) {
        return -1;
    }
    return 0;
}

static int add_names(PyObject* module) {
    PyObject* models = PyTuple_New(TCH_CONTACT_MODEL_END);
    for (int i = 0; models && i < TCH_CONTACT_MODEL_END; ++i) {
        PyObject* name = PyUnicode_FromString(tch_contact_model_name((tch_contact_model)i));
        if (!name) {
            Py_CLEAR(models);
            break;
        }
        PyTuple_SET_ITEM(models, i, name);
    }
    if (!models || PyModule_AddObject(module, "CONTACT_MODELS", models) < 0) {
        Py_XDECREF(models);
        return -1;
    }
    return PyModule_AddStringConstant(module, "__version__", tch_version());
}

PyMODINIT_FUNC PyInit_touche(void) {
    import_array();
    if (make_dtypes() < 0) return NULL;
    PyObject* module = PyModule_Create(&touche_module);
    if (!module) return NULL;
    if (add_type(module, &SpecType, "Spec") < 0 || add_type(module, &ModelType, "Model") < 0 ||
        add_type(module, &DataType, "Data") < 0 || PyType_Ready(&ViewGuardType) < 0 ||
        add_errors(module) < 0 || add_names(module) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    Py_INCREF(contact_dtype);
    Py_INCREF(pair_dtype);
    Py_INCREF(polygon_dtype);
    if (PyModule_AddObject(module, "contact_dtype", (PyObject*)contact_dtype) < 0 ||
        PyModule_AddObject(module, "pair_dtype", (PyObject*)pair_dtype) < 0 ||
        PyModule_AddObject(module, "polygon_dtype", (PyObject*)polygon_dtype) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
