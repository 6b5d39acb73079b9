/* The generic device: an ops table and the driver's own state behind it. */
#include "touche/haptics.h"

#include <stdlib.h>

#include "base/error.h"
#include "haptics/driver.h"

struct tch_haptic_device {
    const tch_haptic_ops* ops;
    void* self;
    tch_haptic_spec spec;
};

tch_status tch_haptic_open(const tch_haptic_ops* ops, const void* config,
                           tch_haptic_device** device, tch_error* err) {
    if (!device || !ops || !ops->open || !ops->read || !ops->write || !ops->close) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "haptic device: the ops table must have open, read, write and close");
    }
    *device = NULL;
    tch_haptic_device* d = calloc(1, sizeof *d);
    if (!d) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "haptic device: out of memory");
    }
    d->ops = ops;
    tch_status s = ops->open(config, &d->self, &d->spec, err);
    if (s != TCH_OK) {
        free(d);
        return s;
    }
    *device = d;
    return TCH_OK;
}

tch_status tch_haptic_read(tch_haptic_device* device, tch_haptic_state* state, tch_error* err) {
    return device->ops->read(device->self, state, err);
}

tch_status tch_haptic_write(tch_haptic_device* device, const tch_haptic_command* command,
                            tch_error* err) {
    return device->ops->write(device->self, command, err);
}

const tch_haptic_spec* tch_haptic_spec_of(const tch_haptic_device* device) {
    return &device->spec;
}

void tch_haptic_close(tch_haptic_device* device) {
    if (device) {
        device->ops->close(device->self);
        free(device);
    }
}

void* tch_haptic_driver_self(tch_haptic_device* device, const tch_haptic_ops* ops) {
    return device && device->ops == ops ? device->self : NULL;
}
