/// touche: base types shared by every public header.
///
/// Units are SI throughout (m, kg, s, N, rad). Frames follow docs/notation.md:
/// p_AB is the position of B's origin measured and expressed in A, R_AB the rotation
/// that maps B-expressed vectors to A, X_AB the rigid transform (R_AB, p_AB).
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(TOUCHE_STATIC_DEFINE)
#define TCH_API
#elif defined(TOUCHE_BUILDING_LIBRARY)
#define TCH_API __attribute__((visibility("default")))
#else
#define TCH_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// The one scalar type of the library (double precision).
typedef double tch_real;

/// A 3-vector.
typedef struct tch_vec3 {
    tch_real x, y, z;
} tch_vec3;

/// A quaternion w + xi + yj + zk; rotations use unit quaternions (Hamilton convention).
typedef struct tch_quat {
    tch_real w, x, y, z;
} tch_quat;

/// A 3x3 matrix, row-major: m[row][column].
typedef struct tch_mat3 {
    tch_real m[3][3];
} tch_mat3;

/// A rigid transform X_AB: rotation q = R_AB (unit quaternion) and translation p = p_AB.
/// Applied to a point expressed in B it gives the point expressed in A: p_A = R_AB p_B + p_AB.
typedef struct tch_transform {
    tch_quat q;
    tch_vec3 p;
} tch_transform;

/// Result of every fallible library call. TCH_OK is zero.
typedef enum tch_status {
    TCH_OK = 0,
    TCH_ERR_INVALID_ARGUMENT, ///< a value is out of range or inconsistent
    TCH_ERR_PARSE,            ///< an input file is malformed
    TCH_ERR_IO,               ///< a file could not be opened, read or written
    TCH_ERR_OUT_OF_MEMORY,    ///< an allocation failed
    TCH_ERR_UNSUPPORTED,      ///< a valid request that this build does not support yet
    TCH_ERR_NUMERICAL,        ///< a numerical method failed (singular matrix, no convergence)
    TCH_ERR_DIVERGED,         ///< the simulation state became NaN or its energy ran away
} tch_status;

/// Details of the last failure. `file`, `line` and `element` locate input errors
/// (empty / 0 when the error has no input location).
typedef struct tch_error {
    tch_status status;    ///< same value the failing call returned
    char message[512];    ///< what is wrong and what is expected, one sentence
    char file[256];       ///< input file the error refers to, or ""
    int line;             ///< 1-based line in `file`, or 0
    char element[64];     ///< XML element or mesh record the error refers to, or ""
} tch_error;

/// Short name of a status code ("ok", "invalid argument", ...). Never NULL.
TCH_API const char* tch_status_name(tch_status status);

/// Version of the library as "MAJOR.MINOR.PATCH".
TCH_API const char* tch_version(void);

#ifdef __cplusplus
}
#endif
