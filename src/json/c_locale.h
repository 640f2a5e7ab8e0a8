/* The "C" locale for number conversions: JSON always uses '.' as the
 * decimal point, whatever locale the application has set. */
#ifndef DL_JSON_C_LOCALE_H
#define DL_JSON_C_LOCALE_H
#include <locale.h>

/* Created once per process; NULL only if the system cannot create it. */
locale_t dl_json_c_locale(void);

#endif
