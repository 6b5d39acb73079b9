/* For drivers: reach a device's own state. */
#pragma once

#include "touche/haptics.h"

/* The driver state of `device` when it was opened with `ops`, else NULL. */
void* tch_haptic_driver_self(tch_haptic_device* device, const tch_haptic_ops* ops);
