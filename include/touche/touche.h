/// touche: umbrella header of the public API.
#pragma once

#include "touche/base.h"
#include "touche/spec.h"
#include "touche/model.h"
#include "touche/data.h"
#include "touche/step.h"
#include "touche/watch.h"
#include "touche/checkpoint.h"
#include "touche/derivatives.h"
#include "touche/io.h"
#include "touche/lcp.h"
#include "touche/contact_space.h"
#include "touche/tetmesh.h"
#include "touche/haptics.h"
