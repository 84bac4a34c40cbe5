/*
 * What configure would find for jq 1.8.2 on wasm32-wasi with Debian's wasi-libc (musl-based):
 * included in every jq and oniguruma file through -include. Each HAVE_ line names something
 * wasi-libc really provides (build.sh links without undefined symbols, so a wrong line fails
 * the build). Not available: gamma, __exp10, pthread (see include/pthread.h), tm_gmtoff (not
 * needed: timegm exists), strptime (see below).
 */
#ifndef SWFLOW_JQ_CONFIG_H
#define SWFLOW_JQ_CONFIG_H

/* jq */
#define USE_DECNUM 1
#define IEEE_8087 1
#define HAVE_LIBONIG 1
#define HAVE_ALLOCA 1
#define HAVE_ALLOCA_H 1
#define HAVE_MEMMEM 1
#define HAVE_SETLOCALE 1
#define HAVE_SETENV 1
#define HAVE_ATEXIT 1
#define HAVE_PTHREAD_KEY_CREATE 1
#define HAVE_PTHREAD_ONCE 1
#define HAVE_GETENTROPY 1
#define HAVE_GETTIMEOFDAY 1
#define HAVE_GMTIME 1
#define HAVE_GMTIME_R 1
#define HAVE_LOCALTIME 1
#define HAVE_LOCALTIME_R 1
#define HAVE_STRFTIME 1
/* No HAVE_STRPTIME: musl's strptime lacks %z, %Z and the %j date arithmetic jq users rely on,
 * so jq's own (NetBSD's, src/util.c, what jq uses on Windows) is built instead. It reads the
 * local time zone's names, which wasi-libc leaves out (no time zone data): UTC, in missing.c. */
extern char *tzname[2];
extern long timezone;
extern int daylight;
void tzset(void);
#define HAVE_TIMEGM 1

/* jq's math builtins (src/libm.h) */
#define HAVE_ACOS 1
#define HAVE_ACOSH 1
#define HAVE_ASIN 1
#define HAVE_ASINH 1
#define HAVE_ATAN 1
#define HAVE_ATAN2 1
#define HAVE_ATANH 1
#define HAVE_CBRT 1
#define HAVE_CEIL 1
#define HAVE_COPYSIGN 1
#define HAVE_COS 1
#define HAVE_COSH 1
#define HAVE_DREM 1
#define HAVE_ERF 1
#define HAVE_ERFC 1
#define HAVE_EXP 1
#define HAVE_EXP10 1
#define HAVE_EXP2 1
#define HAVE_EXPM1 1
#define HAVE_FABS 1
#define HAVE_FDIM 1
#define HAVE_FLOOR 1
#define HAVE_FMA 1
#define HAVE_FMAX 1
#define HAVE_FMIN 1
#define HAVE_FMOD 1
#define HAVE_FREXP 1
#define HAVE_HYPOT 1
#define HAVE_ILOGB 1
#define HAVE_J0 1
#define HAVE_J1 1
#define HAVE_JN 1
#define HAVE_LDEXP 1
#define HAVE_LGAMMA 1
#define HAVE_LGAMMA_R 1
#define HAVE_LOG 1
#define HAVE_LOG10 1
#define HAVE_LOG1P 1
#define HAVE_LOG2 1
#define HAVE_LOGB 1
#define HAVE_MODF 1
#define HAVE_NEARBYINT 1
#define HAVE_NEXTAFTER 1
#define HAVE_NEXTTOWARD 1
#define HAVE_POW 1
#define HAVE_REMAINDER 1
#define HAVE_RINT 1
#define HAVE_ROUND 1
#define HAVE_SCALB 1
#define HAVE_SCALBLN 1
#define HAVE_SCALBN 1
#define HAVE_SIGNIFICAND 1
#define HAVE_SIN 1
#define HAVE_SINH 1
#define HAVE_SQRT 1
#define HAVE_TAN 1
#define HAVE_TANH 1
#define HAVE_TGAMMA 1
#define HAVE_TRUNC 1
#define HAVE_Y0 1
#define HAVE_Y1 1
#define HAVE_YN 1

/* oniguruma (its `#include "config.h"` finds this file) */
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_UNISTD_H 1
#define SIZEOF_INT 4
#define SIZEOF_LONG 4
#define SIZEOF_LONG_LONG 8
#define SIZEOF_VOIDP 4

#endif
