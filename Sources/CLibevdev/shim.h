#ifndef MULTITOUCHD_CLIBEVDEV_SHIM_H
#define MULTITOUCHD_CLIBEVDEV_SHIM_H
#include <libevdev/libevdev.h>
#include <linux/input.h>
#endif
