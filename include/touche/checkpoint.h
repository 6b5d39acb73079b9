/// touche: checkpoints of a tch_data, so that a run continues bit-identically after a restart.
///
/// A checkpoint holds everything a step of the data reads: time, qpos, qvel, qacc, ctrl, the
/// applied loads, the mocap poses, the contacts of the last step, the per-pair contact state
/// (warm starts, friction springs), the sleeping counters, the implicit integrator's kept
/// system, the watch's energy account and the warning counts. Restoring it into a data of the
/// same model and stepping gives the same bits as the run that wrote it. The format
/// (docs/checkpoints.md) is versioned, carries a CRC-32 of its payload and a fingerprint of the
/// model, and is for the build and architecture that wrote it.
#pragma once

#include "touche/data.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Writes the state of `data` (of `model`) to `path`, under a temporary name renamed when
/// complete: a failure never leaves a half-written checkpoint. TCH_ERR_IO when the file cannot
/// be written; TCH_ERR_UNSUPPORTED for the adaptive integrator (its ARKODE history is not
/// saved).
TCH_API tch_status tch_data_save_checkpoint(const tch_model* model, const tch_data* data,
                                            const char* path, tch_error* err);

/// Replaces the state of `data` (of `model`) with the checkpoint at `path`. TCH_ERR_IO when it
/// cannot be read; TCH_ERR_PARSE, with the file and what is wrong, when it is not a touche
/// checkpoint, is of another format version or architecture, is truncated, fails its checksum
/// or was written for another model. On failure `data` is unchanged unless the status is
/// TCH_ERR_OUT_OF_MEMORY (then reset it before use).
TCH_API tch_status tch_data_load_checkpoint(const tch_model* model, tch_data* data,
                                            const char* path, tch_error* err);

#ifdef __cplusplus
}
#endif
