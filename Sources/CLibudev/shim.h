#ifndef MULTITOUCHD_CLIBUDEV_SHIM_H
#define MULTITOUCHD_CLIBUDEV_SHIM_H
#include <libudev.h>
#endif
