#ifndef MULTITOUCHD_CLIBYAML_SHIM_H
#define MULTITOUCHD_CLIBYAML_SHIM_H
/* libyaml (Debian: libyaml-dev to build, libyaml-0-2 at run time): the YAML parser libinput record
 * files are read with. Yams bundled the same libyaml but also linked Foundation, and with it ICU's
 * 34 MB of data tables, into both binaries (issue 29 item 9). */
#include <yaml.h>
#endif
